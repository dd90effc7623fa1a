"""Render stage: a :class:`~repodaily.models.DailyReport` becomes artefacts (:mod:`.base`).

Markdown comes from Jinja2 templates shipped in ``templates/`` and overridable
by the user; every piece of commit or analyzer text passes through the filters
in :mod:`repodaily.render.text`, so no input can add a heading, a link or HTML.
The functions below are imported on first use (PEP 562): loading the plugin
registry, which reads :mod:`.plugin`, costs no template engine.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {"github_slug": "anchors", "render_json": "markdown", "render_markdown": "markdown"}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
