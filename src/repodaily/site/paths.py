"""Where each page of a site lives, and the relative links between pages.

Every link is relative, so a site works from ``file://`` and under any
sub-path (GitHub Pages' ``/<repository>/``). A repository's pages sit under
``r/<owner>/<name>/``, each part of its name reduced to characters safe in a
path on every file system (a name is foreign text too).
"""

from __future__ import annotations

import hashlib
import re
from datetime import date

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
# Far above any real repository's name (GitHub's: 100), far below a file name's limit (255 bytes).
_SEGMENT_CHARS = 64

INDEX = "index.html"
SEARCH = "search.html"
SEARCH_INDEX = "assets/search-index.js"
FEEDS = {"rss": "feed.xml", "atom": "atom.xml"}


def _segment(part: str) -> str:
    """``part`` when it is safe as it is; else its safe characters and a hash of the whole of it.

    Names that reduce alike (``a#b``, ``a?b``, ``a_b``) would share a folder, one's
    pages overwriting the other's, and a name past a file name's length could not be
    written at all: the hash keeps each apart, and the cut keeps it short.
    """
    safe = _UNSAFE.sub("_", part).strip(".") or "_"
    if safe == part and len(part) <= _SEGMENT_CHARS:
        return part
    digest = hashlib.sha256(part.encode("utf-8", "surrogatepass")).hexdigest()[:10]
    return f"{safe[:_SEGMENT_CHARS]}-{digest}"


def repo_dir(repo: str) -> str:
    """The folder of ``repo``'s pages: ``r/owner/name``."""
    return "r/" + "/".join(_segment(part) for part in repo.split("/") if part)


def timeline(repo: str) -> str:
    return f"{repo_dir(repo)}/{INDEX}"


def day_page(repo: str, day: date) -> str:
    return f"{repo_dir(repo)}/days/{day.isoformat()}.html"


def week_page(repo: str, week: str) -> str:
    return f"{repo_dir(repo)}/weeks/{week}.html"


def feed(repo: str | None, kind: str) -> str:
    """A repository's feed of ``kind`` (``rss`` or ``atom``), or the whole site's when ``repo`` is None."""
    return f"{repo_dir(repo)}/{FEEDS[kind]}" if repo else FEEDS[kind]


def root_of(path: str) -> str:
    """The relative way from the page at ``path`` up to the site's root: ``""`` or ``"../../"``."""
    return "../" * path.count("/")


def link(from_path: str, to_path: str) -> str:
    """A relative link from the page at ``from_path`` to the file at ``to_path``."""
    return root_of(from_path) + to_path
