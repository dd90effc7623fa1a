"""The surface changes as evidence: each ``[surface]`` rule of ``rules.toml`` says what a class of them means.

The surface is what the diff declares, so it is read before the message's
words and the paths (RUBRIC.md's order of trust): a changed default is a
behaviour change whatever the title calls it, a raised floor a build change.
Only the first change a rule recognises is cited; the rest add nothing a
reader needs to judge the importance.
"""

from __future__ import annotations

import re

from repodaily.analyzers.heuristic.diff_rules import DependencyRules, SurfaceRule
from repodaily.analyzers.heuristic.evidence import Evidence
from repodaily.analyzers.heuristic.files import Files
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.sentences import code_span
from repodaily.analyzers.heuristic.surface.headers import detail_names
from repodaily.analyzers.heuristic.title import Title
from repodaily.models import FileStatus, Importance, SurfaceAction, SurfaceChange, SurfaceKind

__all__ = ["keeps_working", "weigh_surface"]

_MANIFEST_KINDS = (SurfaceKind.dependency_floor, SurfaceKind.dependency, SurfaceKind.default_feature)
#: What a surface change does that stops existing users' code or configuration working.
_BREAKS = (SurfaceAction.removed, SurfaceAction.renamed, SurfaceAction.now_raises, SurfaceAction.default_changed)
#: How a commit declares a break itself (`feat!:`, a `BREAKING CHANGE:` footer): no diff overrules that.
_DECLARED = ("bang", "footer")


def weigh_surface(evidence: Evidence, surface: list[SurfaceChange], rules: RuleSet, title: Title, facts: Files) -> None:
    """Votes, signals, the user-facing flag and importance floors from the rules the surface changes match."""
    deps = rules.dependencies
    # A floor raised in a test's or an example's requirements, or by a commit its title scopes
    # to development dependencies (`build(deps-dev):`), constrains no user's installation.
    shipped = title.scope.lower() not in deps.dev_scopes
    relevant = [c for c in surface if c.kind not in _MANIFEST_KINDS or (shipped and deps.released(c.path))]
    for name, rule in rules.surface.items():
        change = next(
            (
                c
                for c in relevant
                if rule.reads(c)
                and _binds(rule, c, deps)
                and _arrives_whole(rule, c, facts, rules)
                and (not rule.named_beside or _named_beside(c, title, facts, rules))
            ),
            None,
        )
        if change is None or _denied(rule, title) or (rule.unless_added and _adds(rule, relevant)):
            continue
        evidence.fired.add(f"surface.{name}")
        cite = describe(change)
        # A library's floor raised beside a larger source change is that change's need, not its kind;
        # the floor still binds users (`min_importance`).
        if change.kind != SurfaceKind.dependency_floor or not deps.incidental(
            change.name, facts.source_lines, title.subject
        ):
            evidence.vote(rule.type, rule.weight, cite)
        if rule.type is not None:
            evidence.surface_types.add(rule.type)
        if rule.signal is not None:
            evidence.signal(rule.signal, cite)
        if rule.breaking and "breaking" not in evidence.signals:
            # Inferred from the diff, not declared: the rubric's floor (medium) unless other evidence raises it.
            evidence.signal("breaking", cite)
            evidence.inferred_break = True
        if rule.user_facing is not None:
            evidence.user_facing = rule.user_facing
        if rule.min_importance is not None:
            floor = rule.min_importance
            if change.kind == SurfaceKind.dependency_floor and evidence.narrow and floor == Importance.high:
                # The framework a platform's own manifest pins (`[XPU] upgrade torch`) reaches that platform's
                # users only: the rubric's specific platform.
                floor = Importance.medium
            evidence.floors.append((floor, cite))
    keeps_working(evidence, surface, rules)


def keeps_working(evidence: Evidence, surface: list[SurfaceChange], rules: RuleSet) -> None:
    """A deprecation the diff shows still declaring what it deprecates, and nothing gone: no break yet.

    A title's "Deprecate X" is read as breaking, since what it deprecates often
    goes in the same commit, and so is a changelog entry under a heading or
    fragment kind that holds deprecations and removals alike (towncrier's
    ``removal`` kind is titled "Deprecations and Removals"); when the surface shows X only starting to warn (or
    marked ``@Deprecated``) and nothing removed, renamed or changed, users'
    code keeps working through the transition period (RUBRIC.md: a deprecation
    is medium, not breaking). A break the commit or its maintainers declare
    (``feat!:``, a footer, a pull-request label) stands.
    """
    deprecates = any(c.change == SurfaceAction.deprecated for c in surface)
    labelled = any(
        rules.labels[fired.removeprefix("labels.")].signal == "breaking"
        for fired in evidence.fired
        if fired.startswith("labels.")
    )
    declared = labelled or evidence.signals.get("breaking") in _DECLARED
    if deprecates and not declared and not any(c.change in _BREAKS for c in surface):
        evidence.signals.pop("breaking", None)


def _binds(rule: SurfaceRule, change: SurfaceChange, deps: DependencyRules) -> bool:
    """Whether ``change`` is a step the rule counts: any, or only those that bind or break users."""
    if rule.steps == "binding":
        return deps.binds_users(change.name, change.old, change.new, change.path)
    return rule.steps == "any" or deps.breaks_users(change.name)


def _arrives_whole(rule: SurfaceRule, change: SurfaceChange, facts: Files, rules: RuleSet) -> bool:
    """Whether the commit adds the rule's least number of new source modules beside the file declaring ``change``.

    A registry names what it maps; the modules a commit adds next to it are what
    arrives with the name. One new module may be a whole family or a variant of
    one; a model and its companions (a multimodal wrapper, a multi-token-prediction
    draft) arriving together are a family. A registry that names a package
    (Go's blank import of ``.../models/nemotronh``) has the package's modules
    arrive in the folder of that name: when the commit adds modules there, only
    those count.
    """
    if not rule.min_new_modules:
        return True
    added = [
        file.path
        for file, name in zip(facts.files, facts.classes, strict=True)
        if file.status == FileStatus.added and rules.path_rules(name).type is None and file.path != change.path
    ]
    package = [path for path in added if f"/{path.rpartition('/')[0]}".endswith(f"/{change.name}")]
    folder = change.path.rpartition("/")[0]
    new = package or [path for path in added if path.rpartition("/")[0] == folder]
    return len(new) >= rule.min_new_modules


def _named_beside(change: SurfaceChange, title: Title, facts: Files, rules: RuleSet) -> bool:
    """Whether the title, or a file of the commit that is no source (a test, a doc, an example), names ``change``.

    A C or C++ header may keep its details in a namespace of their own, out of the
    hunk's sight; what users' code calls, and so what tests, docs and examples
    name, is the public part. A test that calls it through that namespace
    (``fmt::detail::const_check``) says it is a detail.
    """
    beside = [
        file.text
        for file, name in zip(facts.files, facts.classes, strict=True)
        if rules.path_rules(name).type is not None and change.name in file.text
    ]
    if any(change.name in detail_names(text) for text in beside):
        return False
    named = re.compile(rf"\b{re.escape(change.name)}\b")
    return named.search(title.subject) is not None or any(named.search(text) for text in beside)


def _denied(rule: SurfaceRule, title: Title) -> bool:
    """Whether the title says what the diff cannot show and the rule guesses: "Remove unused X"."""
    return rule.unless_title_regex is not None and rule.unless_title_regex.search(title.subject) is not None


def _adds(rule: SurfaceRule, surface: list[SurfaceChange]) -> bool:
    """Whether the commit adds something of ``rule``'s kinds."""
    return any(c.kind in rule.kinds and c.change == SurfaceAction.added for c in surface)


def describe(change: SurfaceChange) -> str:
    """A change as evidence cites it: its name as code, and the old and new values when both are known."""
    name = code_span(change.name)
    return f"{name}: {change.old} → {change.new}" if change.old and change.new else name
