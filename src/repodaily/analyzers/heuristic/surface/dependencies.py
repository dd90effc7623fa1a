"""Dependencies a commit raises, adds or drops in the manifests it changes.

A floor is raised when a manifest line's version goes up. A dependency is dropped
when the removed lines of the commit's manifests name it and no added line does
(a requirement moved between files is no change), the line is no exact pin of a
requirements file (an environment's lock losing an entry, as a development
requirements file drops a pin the project's own install now brings) nor a quoted
one of a manifest's list (a group locking the minimum versions a test job installs), the manifest
stays (one retired whole takes its list along), and the commit deletes no import of it: code that
stops using a package takes nothing from users, while a package dropped from the
install but still imported by the project leaves whoever needs it to install it
themselves.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from repodaily.analyzers.heuristic.patch import shipped_lines, signed_lines, version_changes
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.models import ContextFile, FileStatus, SurfaceAction, SurfaceChange, SurfaceKind

__all__ = ["dependency_changes"]


def dependency_changes(
    manifests: Iterable[ContextFile], source: Iterable[ContextFile], rules: RuleSet
) -> list[SurfaceChange]:
    """Raised floors, then added and dropped dependencies, of ``manifests``; ``source`` shows dropped imports.

    A file pip-tools or uv compiled is left out whatever its name (``requirements/dev.txt``): it locks
    one environment from the floors declared elsewhere, and what it raises, adds or drops follows them.
    """
    compiled = rules.dependencies.compiled_regex
    manifests = [file for file in manifests if not compiled.search(file.text)]
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
        for pinned in [_pinned(file, rules)]
        for dep, old, new in version_changes(file, rules).values()
        if _numbers(new) > _numbers(old) and dep.lower() not in pinned
    ]
    # A manifest retired whole (a legacy setup.py beside pyproject.toml) takes its list along:
    # what it named is declared where the project now declares its dependencies.
    kept = [file for file in manifests if file.status != FileStatus.deleted]
    removed, added = _listed(kept, "-", rules), _listed(manifests, "+", rules)
    unpinned = _listed(kept, "-", rules, unpinned=True)
    gone = [key for key in unpinned if key not in added and key not in _still_listed(manifests, rules)]
    dropped_imports = (
        _imports("\n".join(line[1:] for f in source for line in signed_lines(f.text, "-"))) if gone else set()
    )
    for key in gone:
        name, path = unpinned[key]
        if _module(key) not in dropped_imports:
            changes.append(_listed_change(name, SurfaceAction.removed, path))
    for key, (name, path) in added.items():
        if key not in removed:
            changes.append(_listed_change(name, SurfaceAction.added, path))
    return changes


def _pinned(file: ContextFile, rules: RuleSet) -> set[str]:
    """The dependencies a requirements file pins exactly (``pytest==7.2.1``): an environment's lock, not a floor.

    Such a file (a library's development pins, CI's) sets what one environment
    installs; what users' installers must satisfy is declared with a floor.
    """
    deps = rules.dependencies
    if not deps.pins_in(file.path):
        return set()
    return {m.group("name").lower() for line in shipped_lines(file, "+", rules) if (m := deps.pin_regex.match(line))}


def _still_listed(manifests: list[ContextFile], rules: RuleSet) -> set[str]:
    """The dependencies added lines name in any form (``still_listed``: no version, the workspace's), lower case.

    One rewritten in another form (``indoc = "2"`` moved into the workspace's
    table, ``indoc.workspace = true`` in the member) is not dropped.
    """
    regex = rules.dependencies.still_listed_regex
    return {
        m.group("name").lower()
        for file in manifests
        for line in shipped_lines(file, "+", rules)
        if (m := regex.match(line))
    }


def _listed_change(name: str, action: SurfaceAction, path: str) -> SurfaceChange:
    return SurfaceChange(kind=SurfaceKind.dependency, name=name, change=action, path=path)


def _listed(
    manifests: list[ContextFile], sign: str, rules: RuleSet, *, unpinned: bool = False
) -> dict[str, tuple[str, str]]:
    """The dependencies the ``sign`` lines of the manifests declare: lower-case name -> (name, path).

    With ``unpinned``, exact pins are left out: a requirements file's, and a quoted one in any manifest's
    list (``quoted_pin``); they lock one environment.
    """
    deps = rules.dependencies
    found: dict[str, tuple[str, str]] = {}
    for file in manifests:
        pins = unpinned and deps.pins_in(file.path)
        for line in shipped_lines(file, sign, rules):
            if unpinned and ((pins and deps.pin_regex.match(line)) or deps.quoted_pin_regex.match(line)):
                continue
            match = deps.line_regex.match(line)
            name = match.group("name") if match is not None else ""
            if name and not deps.is_filler(name) and not deps.names_setting(name):
                found.setdefault(name.lower(), (name, file.path))
    return found


# How code names a package it uses: Python's `import x` / `from x import`, CommonJS's
# `require('x')`, ES modules' `from 'x'` / `import 'x'`, Rust's `use x::` / `extern crate x`.
_PACKAGE = r"(?:@[\w.-]+/)?[\w.-]+"
_IMPORT = re.compile(
    rf"""^\s*(?:from|import)\s+(?P<python>[A-Za-z_]\w*)
    |\brequire\(\s*['"](?P<required>{_PACKAGE})
    |\b(?:from|import)\s+['"](?P<module>{_PACKAGE})
    |^\s*(?:pub\s+)?use\s+(?P<crate>[A-Za-z_]\w*)::
    |^\s*extern\s+crate\s+(?P<extern>[A-Za-z_]\w*)""",
    re.M | re.X,
)


def _imports(text: str) -> set[str]:
    """The packages ``text`` imports, each as :func:`_module` names it."""
    return {_module(next(name for name in match.groups() if name)) for match in _IMPORT.finditer(text)}


def _module(name: str) -> str:
    """The module a distribution is imported as, by convention (``typing-extensions``: ``typing_extensions``)."""
    return name.lower().replace("-", "_").split(".")[0]


def _numbers(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split(".") if part.isdigit())
