"""The ``heuristic`` analyzer as a plugin: its one setting, and the reader of a repository's conventions."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from repodaily.analyzers.base import Analyzer
from repodaily.analyzers.heuristic.conventions import load_conventions, preset_for, title_tags
from repodaily.hookspecs import Register, hookimpl
from repodaily.plugins import PluginSpec

__all__ = ["HeuristicSettings", "create"]


class HeuristicSettings(BaseModel):
    """The ``[heuristic]`` table."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    processes: int | None = Field(
        default=None,
        ge=0,
        le=256,
        description="Worker processes for a long run (default: one fewer than the CPUs, at most 3; 0: none).",
    )


def create(
    *, settings: HeuristicSettings, language: str, conventions: Mapping[str, Any] | None = None, **_context: object
) -> Analyzer:
    """The offline rules in ``language``, extended by the repository's ``conventions``."""
    from repodaily.analyzers.heuristic import HeuristicAnalyzer

    return HeuristicAnalyzer(language=language, conventions=conventions, processes=settings.processes)


@hookimpl
def register_analyzers(register: Register) -> None:
    register(
        PluginSpec(
            "heuristic",
            create,
            settings=HeuristicSettings,
            description="offline rules; every analysis's fallback",
            ready=lambda _settings: True,
            conventions=load_conventions,
            preset=preset_for,
            title_tags=title_tags,
        )
    )
