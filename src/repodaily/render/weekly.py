"""Render a :class:`~repodaily.weekly.WeeklyDigest` as Markdown, HTML or JSON, from ``weekly.*.j2``.

The same loader chain as the daily report: a user's ``weekly.md.j2`` or
``weekly.html.j2`` replaces the packaged one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from pathlib import Path
from typing import Any

from repodaily.errors import RenderError
from repodaily.models import Importance
from repodaily.render.base import Artefact
from repodaily.render.environment import create_environment, template_error
from repodaily.render.html import SitePage, render_page
from repodaily.render.labels import IMPORTANCE_EMOJI, LABELS
from repodaily.render.page_labels import WEEK_LABELS
from repodaily.weekly import WeekItem, WeeklyDigest

__all__ = ["WEEKLY_FORMATS", "render_weekly", "weekly_artefacts"]

#: The formats ``digest --format`` takes, and their file suffixes.
WEEKLY_FORMATS = {"md": "md", "html": "html", "json": "json"}
_MEDIA_TYPES = {"md": "text/markdown; charset=utf-8", "html": "text/html; charset=utf-8", "json": "application/json"}


def weekly_artefacts(
    digest: WeeklyDigest, formats: Sequence[str], *, templates_dir: Path | None = None
) -> list[Artefact]:
    """``digest`` in each of ``formats`` as the artefacts a publisher is handed, as a report's are."""
    return [
        Artefact(
            name, WEEKLY_FORMATS[name], _MEDIA_TYPES[name], render_weekly(digest, name, templates_dir=templates_dir)
        )
        for name in formats
    ]


def render_weekly(
    digest: WeeklyDigest,
    format: str,
    *,
    templates_dir: Path | None = None,
    site: SitePage | None = None,
    day_href: Callable[[WeekItem], str] | None = None,
    day_page: Callable[[date], str] | None = None,
) -> str:
    """``digest`` in ``format`` (one of :data:`WEEKLY_FORMATS`); in a site, items link by ``day_href``."""
    if format == "json":
        return digest.model_dump_json(indent=2) + "\n"
    context: dict[str, Any] = {"digest": digest, "week_labels": WEEK_LABELS[digest.language]}
    if format == "html":
        return render_page(
            "weekly.html.j2",
            language=digest.language,
            site=site,
            templates_dir=templates_dir,
            day_href=day_href or (lambda item: item.url or ""),
            day_page=day_page or (lambda day: ""),
            **context,
        )
    if format != "md":
        raise RenderError(f"no weekly digest format {format!r}; use one of {', '.join(WEEKLY_FORMATS)}")
    environment = create_environment(templates_dir)
    try:
        return environment.get_template("weekly.md.j2").render(
            labels=LABELS[digest.language],
            importance_levels=list(Importance),
            importance_emoji=IMPORTANCE_EMOJI,
            commit_index={},
            report=digest,
            **context,
        )
    except Exception as error:  # a user's template can raise anything Python can
        raise template_error(error, "weekly.md.j2") from error
