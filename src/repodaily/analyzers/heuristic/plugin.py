"""The ``heuristic`` analyzer as a plugin: no settings, and the reader of a repository's conventions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from repodaily.analyzers.base import Analyzer
from repodaily.analyzers.heuristic.conventions import load_conventions, preset_for, title_tags
from repodaily.hookspecs import Register, hookimpl
from repodaily.plugins import NoSettings, PluginSpec

__all__ = ["create"]


def create(
    *, settings: NoSettings, language: str, conventions: Mapping[str, Any] | None = None, **_context: object
) -> Analyzer:
    """The offline rules in ``language``, extended by the repository's ``conventions``."""
    from repodaily.analyzers.heuristic import HeuristicAnalyzer

    return HeuristicAnalyzer(language=language, conventions=conventions)


@hookimpl
def register_analyzers(register: Register) -> None:
    register(
        PluginSpec(
            "heuristic",
            create,
            description="offline rules; every analysis's fallback",
            ready=lambda _settings: True,
            conventions=load_conventions,
            preset=preset_for,
            title_tags=title_tags,
        )
    )
