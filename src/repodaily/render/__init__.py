"""Render stage: a :class:`~repodaily.models.DailyReport` becomes Markdown or JSON.

Markdown comes from Jinja2 templates shipped in ``templates/`` and overridable
by the user; every piece of commit or analyzer text passes through the filters
in :mod:`repodaily.render.text`, so no input can add a heading, a link or HTML.
"""

from repodaily.render.anchors import github_slug
from repodaily.render.markdown import render_json, render_markdown

__all__ = ["github_slug", "render_json", "render_markdown"]
