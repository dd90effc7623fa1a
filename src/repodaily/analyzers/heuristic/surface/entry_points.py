"""Entry points a JavaScript package offers by subpath, and those a commit adds or drops.

A package's ``exports`` map (``package.json``, JSR's ``jsr.json``, Deno's
``deno.json``) is the whole list of modules its users may import
(``import { x } from "pkg/sub"``): a subpath added there is a new public module,
whatever source it points at; one dropped or renamed makes every import of it
fail, the rubric's removed public API. Only subpath keys (``"./sub": ...``)
are read: conditions (``"import"``, ``"types"``) name no module, and the
``typesVersions`` table, spelled without ``./``, only mirrors the map for old
compilers. Keys are compared over every side of every hunk of the file, so an
entry moved or reformatted is no change.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from repodaily.analyzers.heuristic.surface.sides import sides
from repodaily.models import ContextFile, SurfaceAction, SurfaceChange, SurfaceKind

__all__ = ["entry_point_changes"]

#: The manifests whose ``exports`` map lists a package's importable subpaths.
_MANIFESTS = frozenset({"package.json", "jsr.json", "jsr.jsonc", "deno.json", "deno.jsonc"})
#: A subpath key at the start of a line: ``"./request": "./src/request.ts"`` or ``"./jwk": {``.
_SUBPATH_KEY = re.compile(r'^\s*"(?P<name>\./[^"]+)"\s*:', re.M)


def entry_point_changes(files: Iterable[ContextFile]) -> list[SurfaceChange]:
    """The subpath entry points each JavaScript package manifest adds or drops."""
    changes: list[SurfaceChange] = []
    for file in files:
        if file.path.rsplit("/", 1)[-1] not in _MANIFESTS or '"./' not in file.text:
            continue
        before: set[str] = set()
        after: set[str] = set()
        for side in sides(file.path, file.text):
            (before if side.before else after).update(key.group("name") for key in _SUBPATH_KEY.finditer(side.text))
        changes += [_change(name, SurfaceAction.removed, file.path) for name in sorted(before - after)]
        changes += [_change(name, SurfaceAction.added, file.path) for name in sorted(after - before)]
    return changes


def _change(name: str, action: SurfaceAction, path: str) -> SurfaceChange:
    return SurfaceChange(kind=SurfaceKind.public_api, name=name, change=action, path=path)
