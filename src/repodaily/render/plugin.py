"""The built-in renderers as plugins: ``md`` (the Jinja2 templates) and ``json`` (the public report format)."""

from __future__ import annotations

from pathlib import Path

from repodaily.hookspecs import Register, hookimpl
from repodaily.models import DailyReport
from repodaily.plugins import NoSettings, PluginSpec
from repodaily.render.base import Artefact

__all__ = ["JsonRenderer", "MarkdownRenderer"]


class MarkdownRenderer:
    """The report for people: packaged templates, or the user's in ``templates_dir``."""

    def __init__(self, *, templates_dir: Path | None = None, **_context: object) -> None:
        self.templates_dir = templates_dir

    def render(self, report: DailyReport) -> list[Artefact]:
        from repodaily.render.markdown import render_markdown

        text = render_markdown(report, templates_dir=self.templates_dir)
        return [Artefact(format="md", suffix="md", media_type="text/markdown; charset=utf-8", text=text)]


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
    register(PluginSpec("json", JsonRenderer, settings=NoSettings, description="JSON, for programs"))
