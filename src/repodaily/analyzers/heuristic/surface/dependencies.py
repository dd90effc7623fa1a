"""Dependencies a commit raises, adds or drops in the manifests it changes.

A floor is raised when a manifest line's version goes up. A dependency is dropped
when the removed lines of the commit's manifests name it and no added line does
(a requirement moved between files is no change), and the commit deletes no
import of it: code that stops using a package takes nothing from users, while a
package dropped from the install but still imported by the project leaves
whoever needs it to install it themselves.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from repodaily.analyzers.heuristic.patch import signed_lines, version_changes
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.models import ContextFile, SurfaceAction, SurfaceChange, SurfaceKind

__all__ = ["dependency_changes"]


def dependency_changes(
    manifests: Iterable[ContextFile], source: Iterable[ContextFile], rules: RuleSet
) -> list[SurfaceChange]:
    """Raised floors, then added and dropped dependencies, of ``manifests``; ``source`` shows dropped imports."""
    manifests = list(manifests)
    changes = [
        SurfaceChange(
            kind=SurfaceKind.dependency_floor,
            name=dep,
            change=SurfaceAction.raised_floor,
            old=old,
            new=new,
            path=file.path,
        )
        for file in manifests
        for dep, old, new in version_changes(file, rules).values()
        if _numbers(new) > _numbers(old)
    ]
    removed, added = _listed(manifests, "-", rules), _listed(manifests, "+", rules)
    gone = [key for key in removed if key not in added]
    dropped_imports = (
        _imports("\n".join(line[1:] for f in source for line in signed_lines(f.text, "-"))) if gone else set()
    )
    for key in gone:
        name, path = removed[key]
        if _module(key) not in dropped_imports:
            changes.append(_listed_change(name, SurfaceAction.removed, path))
    for key, (name, path) in added.items():
        if key not in removed:
            changes.append(_listed_change(name, SurfaceAction.added, path))
    return changes


def _listed_change(name: str, action: SurfaceAction, path: str) -> SurfaceChange:
    return SurfaceChange(kind=SurfaceKind.dependency, name=name, change=action, path=path)


def _listed(manifests: list[ContextFile], sign: str, rules: RuleSet) -> dict[str, tuple[str, str]]:
    """The dependencies the ``sign`` lines of the manifests declare: lower-case name -> (name, path)."""
    deps = rules.dependencies
    found: dict[str, tuple[str, str]] = {}
    for file in manifests:
        for line in signed_lines(file.text, sign):
            match = deps.line_regex.match(line)
            if match is not None and not deps.is_filler(match.group("name")):
                found.setdefault(match.group("name").lower(), (match.group("name"), file.path))
    return found


_IMPORT = re.compile(r"^\s*(?:from|import)\s+(?P<module>[A-Za-z_]\w*)", re.M)


def _imports(text: str) -> set[str]:
    return {match.group("module").lower() for match in _IMPORT.finditer(text)}


def _module(name: str) -> str:
    """The module a distribution is imported as, by convention (``typing-extensions``: ``typing_extensions``)."""
    return name.lower().replace("-", "_").split(".")[0]


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())
