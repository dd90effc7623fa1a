"""Render a :class:`DailyReport` as an HTML page: the same sections, order and anchors as the Markdown.

Links between the formats agree: a commit's section has the id ``c-<short sha>``
(:func:`~repodaily.render.anchors.commit_anchor`) and every heading the id
GitHub gives the same heading in the Markdown report
(:func:`~repodaily.render.markdown.importance_groups`, :func:`heading_slugs`),
so ``2026-02-09.md#c-1a2b3c4`` and ``2026-02-09.html#c-1a2b3c4`` land on the
same commit.

Every piece of commit, pull-request and analyzer text is printed bare into a
template rendered with autoescape on: the engine escapes it, and no template
marks foreign text safe. Pages carry a strict Content-Security-Policy: styles
and scripts come only from files (a site's ``assets/``); a page rendered alone
(``--format html``) carries its stylesheet in one ``<style>`` element allowed
by its hash, and no script.

Importance, type and flags are ``data-`` attributes of each commit's section,
for the site's filters.
"""

from __future__ import annotations

import base64
import functools
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from markupsafe import Markup

from repodaily.errors import RenderError
from repodaily.models import DailyReport, Importance
from repodaily.render.environment import create_environment, template_error
from repodaily.render.labels import IMPORTANCE_EMOJI, LABELS
from repodaily.render.markdown import commit_title, heading_slugs, importance_groups, pull_title
from repodaily.render.page_labels import PAGE_LABELS

__all__ = ["ASSETS", "Link", "SitePage", "render_html", "render_page"]

REPORT_TEMPLATE = "report.html.j2"
#: The stylesheet and script every page of a site shares (copied to its ``assets/``).
ASSETS = Path(__file__).parent / "assets"


@dataclass(frozen=True)
class Link:
    """A link a page shows or declares: its text and its address relative to the page."""

    text: str
    href: str
    type: str = ""


@dataclass(frozen=True)
class SitePage:
    """Where a page sits in a site: the relative way up to the site's root and its links there.

    Relative links only, so a site works from ``file://`` and under any sub-path.
    """

    root: str
    crumbs: Sequence[Link] = ()
    pager: Sequence[Link | None] = ()
    feeds: Sequence[Link] = ()
    scripts: Sequence[str] = ("assets/site.js",)
    filters: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


_SITE_POLICY = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'"
)


@functools.lru_cache(maxsize=1)
def _inline_style() -> tuple[Markup, str]:
    """The packaged stylesheet for a page rendered alone, and the CSP source that allows exactly it."""
    css = (ASSETS / "site.css").read_text(encoding="utf-8")
    digest = base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()
    return Markup(css), f"'sha256-{digest}'"  # our own file, not foreign text


def render_page(
    template_name: str,
    *,
    language: str,
    site: SitePage | None,
    templates_dir: Path | None = None,
    **context: Any,
) -> str:
    """One HTML page from ``template_name`` (which extends ``page.html.j2``), in a site or alone."""
    css, css_source = _inline_style()
    policy = _SITE_POLICY if site else f"default-src 'none'; style-src {css_source}; img-src 'self'; base-uri 'none'"
    environment = create_environment(templates_dir, html=True)
    try:
        template = environment.get_template(template_name)
        return template.render(
            language=language,
            site=site,
            csp=policy,
            inline_css=css,
            page_labels=PAGE_LABELS[language],
            labels=LABELS[language],
            importance_levels=list(Importance),
            importance_emoji=IMPORTANCE_EMOJI,
            **context,
        )
    except Exception as error:  # a user's template can raise anything Python can
        raise template_error(error, template_name) from error


def render_html(report: DailyReport, *, templates_dir: Path | None = None, site: SitePage | None = None) -> str:
    """The report as an HTML page, from ``report.html.j2`` (the user's if ``templates_dir`` has one)."""
    try:
        ZoneInfo(report.timezone)
    except (ZoneInfoNotFoundError, ValueError, OSError) as error:
        raise RenderError(f"unknown timezone {report.timezone!r} in report for {report.repo}") from error
    labels = LABELS[report.language]
    return render_page(
        REPORT_TEMPLATE,
        language=report.language,
        site=site,
        templates_dir=templates_dir,
        report=report,
        groups=importance_groups(report, labels),
        slugs=heading_slugs(report, labels),
        table_header=[part.strip() for part in labels.table_header.strip().strip("|").split("|")],
        commit_index={commit.short_sha: commit for commit in report.commits},
        commit_title=commit_title,
        pull_title=pull_title,
    )
