"""A repository's conventions: the rule-table extension its ``conventions`` setting stands for.

:func:`load_conventions` reads the setting (a shipped preset under
``presets/``, a TOML file, or an inline table) into an extension of
:class:`~repodaily.analyzers.heuristic.rules.RuleSet` and checks it once, when
the configuration loads. :func:`title_tags` tells what its title tags mean, for
the repository context every analyzer is given.
"""

from __future__ import annotations

import copy
import functools
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.errors import ConfigError
from repodaily.models import TitleTag
from repodaily.tables import read_toml

__all__ = ["available_conventions", "load_conventions", "preset_for", "title_tags"]

PRESETS_DIR = "presets"
#: The key of a conventions table that names the repositories it was written for (``owner/name``).
DECLARES = "repositories"


def available_conventions() -> list[str]:
    """Names of the shipped conventions presets, e.g. ``["vllm"]``."""
    folder = resources.files("repodaily.analyzers.heuristic").joinpath(PRESETS_DIR)
    return sorted(entry.name.removesuffix(".toml") for entry in folder.iterdir() if entry.name.endswith(".toml"))


def preset_for(repo: str) -> str | None:
    """The shipped preset whose ``repositories`` list ``repo`` (``owner/name``, any case), if one does.

    A preset describes one project's conventions; it applies to that project
    unless its configuration names other conventions.
    """
    wanted = repo.lower()
    for name in available_conventions():
        declared = _preset_table(name).get(DECLARES, [])
        if wanted in (str(entry).lower() for entry in declared):
            return name
    return None


@functools.cache
def _preset_table(name: str) -> dict[str, Any]:
    path = f"{PRESETS_DIR}/{name}.toml"
    return tomllib.loads(resources.files("repodaily.analyzers.heuristic").joinpath(path).read_text(encoding="utf-8"))


def load_conventions(spec: str | Mapping[str, Any]) -> dict[str, Any]:
    """The rule-table extension a repository's ``conventions`` setting stands for, checked.

    A name of :func:`available_conventions` is that shipped preset; another
    string containing ``/`` or ending in ``.toml`` is a TOML file, relative to the
    working directory; a table is the extension itself. The result has been
    merged and validated once, so a mistake is a :class:`~repodaily.errors.ConfigError`
    naming the preset, file or inline table and the key, before any commit is read.
    """
    table, source = _conventions_table(spec)
    declared = table.pop(DECLARES, [])
    if not isinstance(declared, list) or not all(isinstance(entry, str) for entry in declared):
        raise ConfigError(f"{source}: {DECLARES}: expected a list of owner/name strings")
    RuleSet.load(table, source=source)
    return table


def title_tags(table: Mapping[str, Any]) -> list[TitleTag]:
    """The title tags ``table`` (as :func:`load_conventions` returned it) defines or redefines, in its order.

    Each is read as the rules merged with the table read it, so a row that only
    adds names to a packaged tag keeps that tag's type. A rule's weight is how the
    heuristic counts its vote, nothing the tag means, and is left out.
    """
    tags = table.get("tags", {})
    if not tags:
        return []
    merged = RuleSet.load(table).tags
    return [TitleTag(**merged[key].model_dump(exclude={"weight"})) for key in tags]


def _conventions_table(spec: str | Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    if isinstance(spec, Mapping):
        return dict(spec), "inline conventions"
    presets = available_conventions()
    if spec in presets:
        return copy.deepcopy(_preset_table(spec)), f"conventions preset {spec!r} ({PRESETS_DIR}/{spec}.toml)"
    if "/" not in spec and "\\" not in spec and not spec.endswith(".toml"):
        known = ", ".join(presets) or "none"
        raise ConfigError(f"unknown conventions preset {spec!r} (shipped: {known}; or give a path to a .toml file)")
    source = f"conventions file {spec}"
    return read_toml(Path(spec), source), source
