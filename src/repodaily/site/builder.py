"""``repodaily site``: a static site of the stored reports, rebuilt incrementally.

Reads only the store (the reports ``report`` and ``run`` keep) and writes, under
the output directory:

- ``index.html``: the watched repositories, each with its last days' counts by importance;
- ``r/<owner>/<name>/index.html``: a repository's days as a calendar of ISO weeks;
- ``r/<owner>/<name>/days/<date>.html``: a day's report (the ``html`` renderer, framed by the site);
- ``r/<owner>/<name>/weeks/<YYYY-Www>.html``: a week's digest (:mod:`repodaily.weekly`);
- ``search.html`` and ``assets/search-index.js``: search and filters over every day of every repository;
- ``feed.xml`` / ``atom.xml``, per repository and for the whole site (:mod:`repodaily.site.feeds`);
- ``assets/site.css``, ``assets/site.js``: the one stylesheet and script every page shares.

Each page is made from a key (the stored JSON it shows, its neighbours, the
templates' and this release's stamp); a page whose key and bytes are what the
last build left is not rendered again, and a file is written only when its
bytes change (:mod:`repodaily.site.writer`).
"""

from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date
from itertools import groupby
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from repodaily import __version__
from repodaily.errors import ConfigError
from repodaily.models import DailyReport
from repodaily.render.environment import PACKAGED_TEMPLATES
from repodaily.render.html import ASSETS, Link, SitePage, render_html, render_page
from repodaily.render.page_labels import PAGE_LABELS
from repodaily.render.weekly import render_weekly
from repodaily.site import pages, paths
from repodaily.site.feeds import atom_feed, rss_feed
from repodaily.site.search import IndexedDay, search_index_script
from repodaily.site.writer import SiteWriter, WriteSummary
from repodaily.store import Store
from repodaily.weekly import WeekItem, build_weekly, week_of

__all__ = ["SiteSummary", "build_site"]


@dataclass(frozen=True)
class SiteSummary:
    """What a build did: the files written, kept and removed, and what the site holds."""

    files: WriteSummary
    repos: int
    days: int
    weeks: int


def _stamp(templates_dir: Path | None) -> str:
    """What every page also depends on: this release, the packaged templates and assets, the user's templates."""
    digest = hashlib.sha256(__version__.encode())
    folders = [PACKAGED_TEMPLATES, ASSETS, *([templates_dir] if templates_dir else [])]
    for folder in folders:
        for path in sorted(folder.iterdir()):
            if path.is_file():
                digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


class _Build:
    """One build: the writer, the stamp, and the language's words."""

    def __init__(self, outdir: Path, language: str, templates_dir: Path | None, base_url: str | None) -> None:
        self.writer = SiteWriter(outdir)
        self.base_url = base_url
        self.language = language
        self.templates_dir = templates_dir
        self.stamp = _stamp(templates_dir) + (base_url or "")  # pages link to the feeds only with a base URL
        self.words = PAGE_LABELS[language]

    def page(self, path: str, key: Sequence[str], render: Callable[[], str]) -> None:
        """Write ``path`` from ``render()`` unless the last build made it from the same ``key``."""
        digest = hashlib.sha256("\0".join([self.stamp, *key]).encode()).hexdigest()
        if not self.writer.fresh(path, digest):
            self.writer.write(path, render(), digest)

    def site(self, path: str, **fields: Any) -> SitePage:
        """The frame of the page at ``path``: its way up to the root, and ``fields`` of :class:`SitePage`."""
        return SitePage(root=paths.root_of(path), **fields)

    def feeds_of(self, path: str, repo: str | None) -> list[Link]:
        """The feeds a page at ``path`` links to: its repository's, or the site's; none without a base URL."""
        if self.base_url is None:
            return []
        return [
            Link(f"{self.words.feed} ({name})", paths.link(path, paths.feed(repo, kind)), media)
            for kind, name, media in (("rss", "RSS", "application/rss+xml"), ("atom", "Atom", "application/atom+xml"))
        ]

    def feeds(self, repo: str | None, reports: Sequence[DailyReport]) -> None:
        """Write ``repo``'s feeds (the site's when None) of ``reports``, when the site's address is known."""
        if self.base_url is None:
            return
        title = f"{repo} · {self.words.site_title}" if repo else self.words.site_title
        page = paths.timeline(repo) if repo else paths.INDEX
        for kind, make in (("rss", rss_feed), ("atom", atom_feed)):
            path = paths.feed(repo, kind)
            self.writer.write(path, make(self.base_url, title, page, path, reports), "")


def _repo_pages(build: _Build, repo: str, texts: dict[date, str], reports: list[DailyReport]) -> int:
    """Every page of one repository; how many weeks it has."""
    timeline = paths.timeline(repo)
    days = [report.date for report in reports]
    for position, report in enumerate(reports):
        path = paths.day_page(repo, report.date)
        before = days[position - 1] if position else None
        after = days[position + 1] if position + 1 < len(days) else None
        week = week_of(report.date)
        site = build.site(
            path,
            crumbs=[Link(repo, paths.link(path, timeline)), Link(week, paths.link(path, paths.week_page(repo, week)))],
            pager=[
                Link(build.words.previous_day, paths.link(path, paths.day_page(repo, before))) if before else None,
                Link(build.words.next_day, paths.link(path, paths.day_page(repo, after))) if after else None,
            ],
            feeds=build.feeds_of(path, repo),
            filters=True,
        )
        key = [texts[report.date], str(before), str(after)]
        build.page(path, key, functools.partial(render_html, report, templates_dir=build.templates_dir, site=site))
    weeks = [(week, list(group)) for week, group in groupby(reports, key=lambda r: week_of(r.date))]
    for week, members in weeks:
        path = paths.week_page(repo, week)

        def render_week(path: str = path, week: str = week, members: list[DailyReport] = members) -> str:
            def day_href(item: WeekItem) -> str:
                return f"{paths.link(path, paths.day_page(repo, item.day))}#{item.anchor}"

            return render_weekly(
                build_weekly(members, week),
                "html",
                templates_dir=build.templates_dir,
                site=build.site(
                    path, crumbs=[Link(repo, paths.link(path, timeline))], feeds=build.feeds_of(path, repo)
                ),
                day_href=day_href,
                day_page=lambda day: paths.link(path, paths.day_page(repo, day)),
            )

        build.page(path, [texts[r.date] for r in members], render_week)
    build.page(
        timeline,
        [repo, *(f"{r.date}:{r.stats.model_dump_json()}" for r in reports)],
        lambda: render_page(
            "site_repo.html.j2",
            language=build.language,
            site=build.site(timeline, crumbs=[Link(repo, "index.html")], feeds=build.feeds_of(timeline, repo)),
            templates_dir=build.templates_dir,
            repo=repo,
            weeks=pages.calendar(repo, reports, timeline),
        ),
    )
    build.feeds(repo, reports)
    return len(weeks)


def _check_base_url(base_url: str) -> None:
    """Refuse an address every feed link and page link would carry broken: not http(s), no host,
    white space or control characters in it, or a query or fragment the page paths would follow;
    and one carrying a user or password, which every feed of a public site would publish."""
    shown = _USER_INFO.sub("//[redacted]@", base_url)  # the error line must not publish it either
    try:
        parts = urlsplit(base_url)
        port = parts.port
    except ValueError:
        raise ConfigError(f"--base-url {shown!r} is not an http(s) address") from None
    if not base_url.startswith(("https://", "http://")) or port == 0:
        raise ConfigError(f"--base-url {shown!r} is not an http(s) address")
    if "@" in parts.netloc:
        raise ConfigError(f"--base-url {shown!r}: the site's public address takes no user or password")
    if not parts.hostname or any(char.isspace() or not char.isprintable() for char in base_url):
        raise ConfigError(f"--base-url {shown!r}: an address needs a host and no spaces or control characters")
    if parts.query or parts.fragment or "?" in base_url or "#" in base_url:
        raise ConfigError(f"--base-url {shown!r}: the site's address takes no query or fragment")


# The user and password of an address, up to the last "@" before its path.
_USER_INFO = re.compile(r"//[^/?#]*@")


def build_site(
    store: Store,
    repos: Sequence[str],
    language: str,
    outdir: Path,
    *,
    templates_dir: Path | None = None,
    base_url: str | None = None,
) -> SiteSummary:
    """Build (or bring up to date) the site of ``repos``' stored reports in ``language`` under ``outdir``.

    ``base_url`` is the site's public address (``https://org.github.io/reports/``):
    feeds need absolute links and are written only when it is given.
    """
    if base_url is not None:
        _check_base_url(base_url)
    build = _Build(outdir, language, templates_dir, base_url.rstrip("/") + "/" if base_url else None)
    for asset in sorted(ASSETS.iterdir()):
        build.writer.write(f"assets/{asset.name}", asset.read_bytes(), "")
    indexed: list[IndexedDay] = []
    everything: list[DailyReport] = []
    summaries = []
    weeks = 0
    for position, repo in enumerate(repos):
        texts = store.report_texts(repo, language)
        reports = store.reports(repo, language)
        texts = {report.date: texts[report.date] for report in reports}  # the unreadable left out of both
        weeks += _repo_pages(build, repo, texts, reports)
        indexed += [IndexedDay(position, report, paths.day_page(repo, report.date)) for report in reports]
        summaries.append(pages.summary(repo, reports))
        everything += reports
    build.writer.write(paths.SEARCH_INDEX, search_index_script(repos, indexed), "")
    build.page(
        paths.SEARCH,
        [],
        lambda: render_page(
            "site_search.html.j2",
            language=language,
            site=build.site(
                paths.SEARCH, scripts=(paths.SEARCH_INDEX, "assets/site.js"), feeds=build.feeds_of(paths.SEARCH, None)
            ),
            templates_dir=templates_dir,
        ),
    )
    build.page(
        paths.INDEX,
        [repr(summaries)],
        lambda: render_page(
            "site_home.html.j2",
            language=language,
            site=build.site(paths.INDEX, feeds=build.feeds_of(paths.INDEX, None)),
            templates_dir=templates_dir,
            repos=summaries,
        ),
    )
    build.feeds(None, everything)
    return SiteSummary(build.writer.finish(), len(repos), len(indexed), weeks)
