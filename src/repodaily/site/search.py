"""The search index: every commit of every stored day, as a script that assigns the data (no fetch).

A browser refuses ``fetch()`` of a local file, so a site opened from
``file://`` could not load a JSON index; a ``<script src>`` that assigns
``window.REPODAILY_INDEX`` loads from anywhere. The index is compact: each
commit is one array (page, anchor, short SHA, title, one line, importance,
type, flags as bits), pages and repositories are listed once and referred to
by position. It is data for ``site.js``, which shows it with ``textContent``
only, so no text in it can become markup; its control characters (a bidi
override that would reverse the result list's text after it, a terminal escape)
are U+FFFD already, as on the pages.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from repodaily.controls import controls_except
from repodaily.models import DailyReport
from repodaily.render.anchors import commit_anchor
from repodaily.render.markdown import commit_title

#: How much of a commit's one line the index keeps: enough to find it by, not its whole analysis.
ONE_LINE_CHARS = 160
#: The bits of a commit's flags in the index, as ``site.js`` reads them.
FLAG_BITS = {"breaking": 1, "security": 2, "user_facing": 4}
INDEX_VERSION = 1
_CONTROL = controls_except("\t\n\r")  # the whitespace a page shows as a space


@dataclass(frozen=True)
class IndexedDay:
    """One day page of the site: whose, which day, and where."""

    repo: int
    report: DailyReport
    path: str


def _flags(report: DailyReport, index: int) -> int:
    flags = report.commits[index].analysis.flags
    return sum(bit for name, bit in FLAG_BITS.items() if getattr(flags, name))


def _shown(text: str) -> str:
    return _CONTROL.sub("\ufffd", text)


def _clipped(text: str) -> str:
    return text if len(text) <= ONE_LINE_CHARS else text[: ONE_LINE_CHARS - 1] + "…"


def search_index_script(repos: Sequence[str], days: Sequence[IndexedDay]) -> str:
    """The index of ``days`` (each day of each repository in ``repos``) as the script ``assets/search-index.js``."""
    pages = [[day.repo, day.report.date.isoformat(), day.path] for day in days]
    commits = [
        [
            page,
            commit_anchor(commit.short_sha),
            commit.short_sha,
            _shown(commit_title(commit)),
            _shown(_clipped(commit.analysis.one_line)),
            commit.analysis.importance.value,
            commit.analysis.type.value,
            _flags(day.report, position),
        ]
        for page, day in enumerate(days)
        for position, commit in enumerate(day.report.commits)
    ]
    data = {"v": INDEX_VERSION, "repos": list(repos), "pages": pages, "commits": commits}
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    # JSON is JavaScript; the two line separators JSON allows raw are escaped for older engines.
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f"window.REPODAILY_INDEX = {text};\n"
