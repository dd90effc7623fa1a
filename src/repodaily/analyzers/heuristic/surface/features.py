"""Features a Cargo manifest turns on by default, and those a commit adds to or drops from that set.

A crate's ``[features] default = [...]`` list is what every dependent gets
without asking: a feature dropped from it stops compiling, or silently loses,
whatever code used it until the dependent opts in (``features = ["x"]``), the
rubric's breaking change; one added is merely more by default. The list is read
on both sides of every hunk, so one reformatted across lines, or moved, is no
change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from repodaily.analyzers.heuristic.surface.sides import sides
from repodaily.models import ContextFile, SurfaceAction, SurfaceChange, SurfaceKind

__all__ = ["default_feature_changes"]

_DEFAULT_LIST = re.compile(r"^\s*default\s*=\s*\[(?P<items>[^\]]*)\]", re.M)
_ITEM = re.compile(r"""["'](?P<name>[^"']+)["']""")


def default_feature_changes(manifests: Iterable[ContextFile]) -> list[SurfaceChange]:
    """The features each Cargo manifest adds to or drops from its default set."""
    changes: list[SurfaceChange] = []
    for file in manifests:
        if file.path.rsplit("/", 1)[-1] != "Cargo.toml" or "default" not in file.text:
            continue
        before, after = _defaults(file, before=True), _defaults(file, before=False)
        if before is None or after is None:
            continue  # a list the hunks show on one side only: its other side is out of sight
        changes += [_change(name, SurfaceAction.removed, file.path) for name in sorted(before - after)]
        changes += [_change(name, SurfaceAction.added, file.path) for name in sorted(after - before)]
    return changes


def _defaults(file: ContextFile, *, before: bool) -> set[str] | None:
    """The default features one side of ``file``'s hunks lists, or None when no hunk shows the list."""
    found: set[str] | None = None
    for side in sides(file.path, file.text):
        if side.before != before:
            continue
        for listed in _DEFAULT_LIST.finditer(side.text):
            found = (found or set()) | {item.group("name") for item in _ITEM.finditer(listed.group("items"))}
    return found


def _change(name: str, action: SurfaceAction, path: str) -> SurfaceChange:
    return SurfaceChange(kind=SurfaceKind.default_feature, name=name, change=action, path=path)
