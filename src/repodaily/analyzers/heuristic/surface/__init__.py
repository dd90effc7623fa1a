"""The user-visible surface a commit changes, read from its diff: options, variables, routes, registries, floors.

Extractors (:mod:`.extractors`) read what each side of each hunk declares
(:mod:`.sides`); this module compares the two sides over the whole commit, so a
declaration that only moves (to another hunk or file) is no change:

- only after: ``added``; only before: ``removed`` (with the replacement a
  deprecation message names), or ``renamed`` when one hunk removes one option,
  variable, key, route or architecture and adds one;
- on both sides with other values: ``default_changed``;
- a deprecation that starts warning is ``deprecated``, one that starts raising
  ``now_raises``, one whose warning goes with nothing left a ``removal``;
- a dependency version raised in a manifest: ``raised_floor``; a dependency the
  manifests add or drop (:mod:`.dependencies`): ``added`` or ``removed``;
- a feature a Cargo manifest adds to or drops from its default set
  (:mod:`.features`): ``added`` or ``removed``;
- a subpath a JavaScript package's ``exports`` map adds or drops
  (:mod:`.entry_points`; not a test's, an example's or the website's package):
  ``added`` or ``removed``;
- the public types and members of a Java or Kotlin library (:mod:`.jvm`), named
  by signature so that a member moved is no change: ``added`` or ``removed``,
  and ``deprecated`` when ``@Deprecated`` starts marking one;
- a backend that arrives as a folder of new modules with a Dockerfile named for
  it (:mod:`.trees`): ``added``.

Only source files are read for declarations (tests, docs and CI declare nothing
users rely on), and only the manifests of the build class for floors.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from repodaily.analyzers.heuristic.files import Files
from repodaily.analyzers.heuristic.patch import signed_lines
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.surface.dependencies import dependency_changes
from repodaily.analyzers.heuristic.surface.entry_points import entry_point_changes
from repodaily.analyzers.heuristic.surface.extractors import EXTRACTORS, RESTATED, Found, package_root
from repodaily.analyzers.heuristic.surface.features import default_feature_changes
from repodaily.analyzers.heuristic.surface.jvm import JVM_API
from repodaily.analyzers.heuristic.surface.registrations import REGISTRATIONS
from repodaily.analyzers.heuristic.surface.sides import sides
from repodaily.analyzers.heuristic.surface.trees import backend_trees
from repodaily.models import ChangeType, ContextFile, SurfaceAction, SurfaceChange, SurfaceKind

__all__ = ["read_surface"]

#: Kinds whose removal and addition in one hunk is one thing renamed.
_RENAMEABLE = (
    SurfaceKind.cli_option,
    SurfaceKind.env_var,
    SurfaceKind.config_key,
    SurfaceKind.http_route,
    SurfaceKind.model_arch,
)
#: A refactor can redefine hundreds of names; a reader needs the first few of each kind.
MAX_CHANGES = 40


@dataclass(frozen=True)
class _Seen:
    found: Found
    path: str
    hunk: int


def read_surface(facts: Files, rules: RuleSet) -> list[SurfaceChange]:
    """What the commit changes of the project's surface, most telling kinds first."""
    before: dict[tuple[SurfaceKind, str], list[_Seen]] = defaultdict(list)
    after: dict[tuple[SurfaceKind, str], list[_Seen]] = defaultdict(list)
    manifests: list[ContextFile] = []
    source: list[ContextFile] = []
    for file, name in zip(facts.files, facts.classes, strict=True):
        kind = rules.path_rules(name).type
        if kind == ChangeType.build:
            manifests.append(file)
        if kind is not None:
            continue
        source.append(file)
        extractors = [e.read for e in (*EXTRACTORS, *REGISTRATIONS, JVM_API) if e.wanted(file.path, file.text)]
        for side in sides(file.path, file.text) if extractors else ():
            seen = before if side.before else after
            for extract in extractors:
                for found in extract(side):
                    seen[(found.kind, found.name)].append(_Seen(found, side.path, side.hunk))
    changes = [
        *dependency_changes(manifests, source, rules),
        *default_feature_changes(manifests),
        *entry_point_changes(file for file in facts.files if rules.dependencies.released(file.path)),
        *_still_named(_compare(before, after), source),
    ]
    order = list(SurfaceKind)
    # A major framework's floor is what a reader must see first among floors (`torch` before a kernel tag).
    major = rules.dependencies.is_major
    ranked = sorted(changes, key=lambda c: (order.index(c.kind), not major(c.name), c.name))
    # A whole backend's tree declares dozens of options of its own: the backend is what must not be cut.
    return [*backend_trees(manifests, source), *ranked][:MAX_CHANGES]


def _compare(
    before: dict[tuple[SurfaceKind, str], list[_Seen]], after: dict[tuple[SurfaceKind, str], list[_Seen]]
) -> list[SurfaceChange]:
    replacements = {
        seen.found.name: seen.found.replacement
        for side in (before, after)
        for (kind, _), found in side.items()
        if kind == SurfaceKind.deprecation
        for seen in found
        if seen.found.replacement
    }
    notices = _notices(before), _notices(after)
    changes: list[SurfaceChange] = []
    for key in sorted(before.keys() | after.keys()):
        kind, name = key
        old, new = before.get(key, []), after.get(key, [])
        if kind == SurfaceKind.deprecation:
            changes += _deprecation(name, old, new, notices)
            continue
        where = _shown_path(new or old)
        if all(seen.found.value == RESTATED for seen in old or new) and not (old and new):
            continue  # an override alone is neither added nor removed
        if not old:
            changes.append(SurfaceChange(kind=kind, name=name, change=SurfaceAction.added, path=where))
        elif not new:
            action = SurfaceAction.removed
            changes.append(
                SurfaceChange(kind=kind, name=name, change=action, replacement=replacements.get(name), path=where)
            )
        else:
            gone = sorted({s.found.value for s in old if s.found.value} - {s.found.value for s in new if s.found.value})
            came = sorted({s.found.value for s in new if s.found.value} - {s.found.value for s in old if s.found.value})
            if gone and came:
                changes.append(
                    SurfaceChange(
                        kind=kind, name=name, change=SurfaceAction.default_changed, old=gone[0], new=came[0], path=where
                    )
                )
    return _renames(changes, before, after)


def _shown_path(seen: list[_Seen]) -> str:
    """Where a change is shown: the package's root module when it exports the name, else the first file.

    A new public class is usually defined in its own module and exported from
    the root in the same commit; the root export is what users import, and the
    rules on root exports (`surface.new_export`) must see it there.
    """
    return next((s.path for s in seen if package_root(s.path)), seen[0].path)


def _still_named(changes: list[SurfaceChange], source: list[ContextFile]) -> list[SurfaceChange]:
    """``changes`` less the options removed whose name an added line still quotes.

    A declaration that now takes its name from a constant (``BoolP(helpFlagName, ...)``
    beside ``helpFlagName = "help"``) keeps the option; the extractors read
    literals only, so without this it would look removed.
    """
    removed = [c for c in changes if c.kind == SurfaceKind.cli_option and c.change == SurfaceAction.removed]
    if not removed:
        return changes
    added = "\n".join(line for file in source for line in signed_lines(file.text, "+"))
    kept = {c.name for c in removed if re.search(rf"""["']{re.escape(c.name.lstrip("-"))}["']""", added)}
    return [
        c
        for c in changes
        if not (c.name in kept and c.kind == SurfaceKind.cli_option and c.change == SurfaceAction.removed)
    ]


def _notice(seen: _Seen) -> tuple[str, str | None, str | None]:
    """A deprecation notice as a commit keeps it or not: its file, its line, whether it warns or raises."""
    return seen.path, seen.found.notice, seen.found.value


def _notices(side: dict[tuple[SurfaceKind, str], list[_Seen]]) -> set[tuple[str, str | None, str | None]]:
    """The deprecation notices one side holds."""
    return {_notice(seen) for (kind, _), found in side.items() if kind == SurfaceKind.deprecation for seen in found}


def _deprecation(
    name: str, old: list[_Seen], new: list[_Seen], notices: tuple[set[tuple[str, str | None, str | None]], ...]
) -> list[SurfaceChange]:
    """How the deprecation of ``name`` changes, if it does.

    A notice the other side holds too, in the same file, warning or raising as before, is
    no change, whatever name the lines the commit edits around it now lend it (a warning
    kept while the next statement reads another setting). Only a message's line is such a
    notice: an annotation (Java's ``@Deprecated``) is known by the member it marks.
    """
    before, after = notices
    read = [*old, *new]
    kept = all(_notice(seen) in after for seen in old) and all(_notice(seen) in before for seen in new)
    if kept and all(seen.found.notice for seen in read):
        return []
    was = {seen.found.value for seen in old}
    now = {seen.found.value for seen in new}
    seen = (new or old)[0]
    replacement = next((s.found.replacement for s in read if s.found.replacement), None)
    if "raises" in now and "raises" not in was:
        action, kind = SurfaceAction.now_raises, SurfaceKind.deprecation
    elif "warns" in now and not was:
        action, kind = SurfaceAction.deprecated, SurfaceKind.deprecation
    elif "warns" in was and not now:
        action, kind = SurfaceAction.removed, SurfaceKind.removal
    else:
        return []
    return [SurfaceChange(kind=kind, name=name, change=action, replacement=replacement, path=seen.path)]


def _renames(
    changes: list[SurfaceChange],
    before: dict[tuple[SurfaceKind, str], list[_Seen]],
    after: dict[tuple[SurfaceKind, str], list[_Seen]],
) -> list[SurfaceChange]:
    """One option, variable, key, route or architecture removed and one added in the same hunk: one renamed."""
    groups: dict[tuple[SurfaceKind, str, int], dict[SurfaceAction, list[SurfaceChange]]] = defaultdict(
        lambda: defaultdict(list)
    )
    for change in changes:
        if change.kind in _RENAMEABLE and change.change in (SurfaceAction.added, SurfaceAction.removed):
            side = after if change.change == SurfaceAction.added else before
            hunk = side[(change.kind, change.name)][0].hunk
            groups[(change.kind, change.path, hunk)][change.change].append(change)
    for group in groups.values():
        removed, added = group[SurfaceAction.removed], group[SurfaceAction.added]
        if len(removed) == 1 and len(added) == 1:
            gone, came = removed[0], added[0]
            changes.remove(gone)
            index = changes.index(came)
            changes[index] = came.model_copy(
                update={"change": SurfaceAction.renamed, "old": gone.name, "new": came.name}
            )
    return changes
