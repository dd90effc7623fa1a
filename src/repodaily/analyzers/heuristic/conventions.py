"""A repository's conventions: the rule-table extension its ``conventions`` setting stands for.

:func:`load_conventions` reads the setting (a shipped preset under
``presets/``, a TOML file, or an inline table) into an extension of
:class:`~repodaily.analyzers.heuristic.rules.RuleSet` and checks it once, when
the configuration loads.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.errors import ConfigError
from repodaily.tables import read_toml

__all__ = ["available_conventions", "load_conventions"]

PRESETS_DIR = "presets"


def available_conventions() -> list[str]:
    """Names of the shipped conventions presets, e.g. ``["vllm"]``."""
    folder = resources.files("repodaily.analyzers.heuristic").joinpath(PRESETS_DIR)
    return sorted(entry.name.removesuffix(".toml") for entry in folder.iterdir() if entry.name.endswith(".toml"))


def load_conventions(spec: str | Mapping[str, Any]) -> dict[str, Any]:
    """The rule-table extension a repository's ``conventions`` setting stands for, checked.

    A name of :func:`available_conventions` is that shipped preset; another
    string containing ``/`` or ending in ``.toml`` is a TOML file, relative to the
    working directory; a table is the extension itself. The result has been
    merged and validated once, so a mistake is a :class:`~repodaily.errors.ConfigError`
    naming the preset, file or inline table and the key, before any commit is read.
    """
    table, source = _conventions_table(spec)
    RuleSet.load(table, source=source)
    return table


def _conventions_table(spec: str | Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    if isinstance(spec, Mapping):
        return dict(spec), "inline conventions"
    presets = available_conventions()
    if spec in presets:
        path = f"{PRESETS_DIR}/{spec}.toml"
        text = resources.files("repodaily.analyzers.heuristic").joinpath(path).read_text(encoding="utf-8")
        return tomllib.loads(text), f"conventions preset {spec!r} ({path})"
    if "/" not in spec and "\\" not in spec and not spec.endswith(".toml"):
        known = ", ".join(presets) or "none"
        raise ConfigError(f"unknown conventions preset {spec!r} (shipped: {known}; or give a path to a .toml file)")
    source = f"conventions file {spec}"
    return read_toml(Path(spec), source), source
