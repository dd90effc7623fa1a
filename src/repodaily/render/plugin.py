"""The built-in renderers as plugins: ``md`` and ``html`` (Jinja2 templates), ``json`` (the public report format)."""

from __future__ import annotations

from pathlib import Path

from repodaily.hookspecs import Register, hookimpl
from repodaily.models import DailyReport
from repodaily.plugins import NoSettings, PluginSpec
from repodaily.render.base import Artefact

__all__ = ["HtmlRenderer", "JsonRenderer", "MarkdownRenderer"]


class MarkdownRenderer:
    """The report for people: packaged templates, or the user's in ``templates_dir``."""

    def __init__(self, *, templates_dir: Path | None = None, **_context: object) -> None:
        self.templates_dir = templates_dir

    def render(self, report: DailyReport) -> list[Artefact]:
        from repodaily.render.markdown import render_markdown

        text = render_markdown(report, templates_dir=self.templates_dir)
        return [Artefact(format="md", suffix="md", media_type="text/markdown; charset=utf-8", text=text)]


class HtmlRenderer:
    """The report as one self-contained HTML page (the site's day pages are the same, framed by the site)."""

    def __init__(self, *, templates_dir: Path | None = None, **_context: object) -> None:
        self.templates_dir = templates_dir

    def render(self, report: DailyReport) -> list[Artefact]:
        from repodaily.render.html import render_html

        text = render_html(report, templates_dir=self.templates_dir)
        return [Artefact(format="html", suffix="html", media_type="text/html; charset=utf-8", text=text)]


class JsonRenderer:
    """The report for programs: the :class:`~repodaily.models.DailyReport` schema (``repodaily schema``)."""

    def __init__(self, **_context: object) -> None:
        pass

    def render(self, report: DailyReport) -> list[Artefact]:
        from repodaily.render.markdown import render_json

        return [Artefact(format="json", suffix="json", media_type="application/json", text=render_json(report))]


@hookimpl
def register_renderers(register: Register) -> None:
    register(PluginSpec("md", MarkdownRenderer, settings=NoSettings, description="Markdown, for people"))
    register(PluginSpec("html", HtmlRenderer, settings=NoSettings, description="HTML, one page for browsers"))
    register(PluginSpec("json", JsonRenderer, settings=NoSettings, description="JSON, for programs"))
