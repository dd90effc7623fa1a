"""The judgement: primary and secondary types, the importance with its reasons, the flags.

The rubric's order decides the type (a revert is a revert, a release chore a
chore, files alone can decide, a pure move is a refactor, then the votes); its
overrides (security, breaking, major dependencies) move the importance, and
every move is kept as a reason for the texts to write out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repodaily.analyzers.heuristic.evidence import Evidence, Reason, read_message
from repodaily.analyzers.heuristic.files import Files
from repodaily.analyzers.heuristic.prose import MAX_QUOTED, clip, first_sentence
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.title import Title, parse_title
from repodaily.models import ChangeType, FileStatus, Importance
from repodaily.sources.message import parse_subject

__all__ = ["Judgement", "is_release", "judge"]

_MAX_REVERT_DEPTH = 3


def is_release(evidence: Evidence, facts: Files, rules: RuleSet) -> bool:
    """A release chore by its message, bumping no major dependency and changing no more source than a version.

    A title that names a package at a version (``cookie@0.7.0``) releases that package,
    unless it is a dependency the commit raises: then it is the dependency's update.
    """
    signal = evidence.signals.get("release", "")
    if not signal or any(change.major or _names(signal, change.name) for change in evidence.dependencies):
        return False
    source_lines = sum(
        f.additions + f.deletions
        for f, name in zip(facts.files, facts.classes, strict=True)
        if rules.path_rules(name).type is None
    )
    return source_lines <= rules.release.max_source_lines


def _names(title: str, dependency: str) -> bool:
    """Whether ``title`` names ``dependency`` at a version (``cookie@0.7.0``, not ``create-vite@9.0.5`` for vite)."""
    return re.search(rf"(?<![\w.-]){re.escape(dependency)}@", title, re.I) is not None


def _opens_major_line(facts: Files, rules: RuleSet) -> bool:
    """A release that sets the package's own version to the first of a major line (5.0.0, 10.0.0; a crate's 0.3.0).

    Users choose to move to a new major version and read what it changes first: it is
    news to them, unlike a patch or minor release. Only manifests users install from
    and source files (a ``__version__``) are read: a lock file lists its packages' versions.
    """
    # Case-sensitive like the other patch patterns: `VERSION` and `version` are both spelled out.
    release = rules.release
    regex, zero = re.compile(release.major_version, re.M), re.compile(release.zero_major_version, re.M)
    return any(
        regex.search(file.text) is not None
        or (release.files["zero_major_manifests"].matches(file.path) and zero.search(file.text) is not None)
        for file, name in zip(facts.files, facts.classes, strict=True)
        if rules.dependencies.ships(file.path) or rules.path_rules(name).type is None
    )


@dataclass
class Judgement:
    type: ChangeType
    secondary: list[ChangeType]
    importance: Importance
    reasons: list[Reason]
    security: bool
    breaking: bool
    user_facing: bool
    basis: str  # "revert", "release", "paths", "moves" or "source"
    reverted: str | None = None


class _Ladder:
    """The importance as the rubric's steps move it, with the reason of every move."""

    def __init__(self, level: Importance, reason: Reason) -> None:
        self.level = level
        self.reasons = [reason]

    def at_least(self, level: Importance, reason: Reason) -> None:
        if level.rank < self.level.rank:
            self.level = level
            self._first(reason)

    def at_most(self, level: Importance, reason: Reason) -> None:
        if level.rank > self.level.rank:
            self.level = level
            self._first(reason)

    def _first(self, reason: Reason) -> None:
        """Put ``reason`` first; a reason the ladder already gives (its start, capping it) is said once."""
        if reason in self.reasons:
            self.reasons.remove(reason)
        self.reasons.insert(0, reason)


def _best(pool: dict[ChangeType, float], rules: RuleSet) -> ChangeType:
    order = rules.decision.tie_order
    return max(pool, key=lambda t: (pool[t], -order.index(t)))


def _primary(title: Title, evidence: Evidence, facts: Files, rules: RuleSet) -> tuple[ChangeType, str]:
    """Rubric order: a revert is a revert; a release chore is a chore; files alone can decide, unless they
    declare a surface whose type their classes do not have (an entry point added to a package's `exports` map,
    which is configuration); a pure move is a refactor; then the votes; then what the patch suggests; then a
    changelog entry's default."""
    if title.revert_of is not None:
        return ChangeType.revert, "revert"
    if is_release(evidence, facts, rules):
        return ChangeType.chore, "release"
    if facts.only_types and evidence.surface_types <= facts.only_types.keys():
        eligible = [*facts.only_types, *facts.may_be]
        voted = {t: evidence.votes[t] for t in eligible if evidence.votes.get(t, 0) > 0}
        return _best(voted or {t: float(n) for t, n in facts.only_types.items()}, rules), "paths"
    if facts.pure_move:
        return ChangeType.refactor, "moves"
    if evidence.votes:
        return _best(evidence.votes, rules), "source"
    if evidence.fallback:
        return _best(evidence.fallback, rules), "source"
    if evidence.changelog:
        return rules.changelog.fallback_type, "source"
    return rules.decision.fallback_type, "source"


def judge(title: Title, evidence: Evidence, facts: Files, rules: RuleSet, quote: str, depth: int = 0) -> Judgement:
    primary, basis = _primary(title, evidence, facts, rules)
    secondary = [
        t
        for t in sorted(evidence.votes, key=lambda t: -evidence.votes[t])
        if t != primary and evidence.votes[t] >= rules.decision.secondary_min_weight
    ][:2]
    # Rubric: security is high "unless it only touches tests/docs"; CI is no more a release than those.
    only_prose = primary in (ChangeType.test, ChangeType.docs, ChangeType.ci)
    security = "security" in evidence.signals
    explicit_break = evidence.inferred_break or evidence.signals.get("breaking") in ("bang", "footer", "definitions")
    # Docs or tests that mention a break do not make one; an explicit marker or a removed definition does.
    breaking = "breaking" in evidence.signals and (
        explicit_break or basis != "paths" or ChangeType.build in facts.only_types
    )
    ladder, reverted = _start(title, basis, primary, evidence, facts, rules, quote, depth)
    for level, cite in evidence.caps:
        ladder.at_most(level, (evidence.cap_reasons.get(cite, "reason_cap"), {"match": cite}))
    # Prose and tests beside capped files keep their cap: a benchmark script, its README and its test are
    # still tooling.
    beside = (ChangeType.docs, ChangeType.test)
    capping = [facts.classes[i] for i in facts.counted if rules.path_rules(facts.classes[i]).type not in beside]
    capping = capping or [facts.classes[i] for i in facts.counted]
    path_caps = [rules.path_rules(name).max_importance for name in capping]
    if path_caps and all(path_caps):
        loosest = min((c for c in path_caps if c is not None), key=lambda c: c.rank)
        label = facts.dominant_class if facts.dominant_class in capping else capping[0]
        ladder.at_most(loosest, ("reason_only_class", {"label": label}))
    dominant_cap = rules.path_rules(facts.dominant_class).max_importance
    if basis == "paths" and primary in facts.may_be and dominant_cap is not None:
        # The message names the type; the files still say how far it reaches (a fix to an example is low).
        ladder.at_most(dominant_cap, ("reason_only_class", {"label": facts.dominant_class}))
    shipped_fix = rules.path_rules(facts.dominant_class).fix_importance
    if basis == "paths" and shipped_fix is not None and ChangeType.fix in evidence.votes:
        # The words say it fixes something, and the files are what users install (a compiled kernel's
        # architectures, a vendored library's revision): as far-reaching as a fix in the source.
        ladder.at_least(shipped_fix, ("reason_shipped_fix", {"label": facts.dominant_class}))
    if basis == "revert" and facts.only_types:
        # Reverting a change to tests or docs is no more important than making it.
        loosest = min((rules.importance[t] for t in facts.only_types), key=lambda c: c.rank)
        ladder.at_most(loosest, ("reason_only_class", {"label": facts.dominant_class}))
    if evidence.changelog and basis == "source" and primary in rules.decision.user_facing_types:
        # The project itself recorded the change for its users; a title's modesty does not outweigh that.
        quoted = clip(first_sentence(evidence.changelog[0]), MAX_QUOTED)
        ladder.at_least(rules.changelog.min_importance, ("reason_changelog", {"quoted": quoted}))
    if basis == "source" and not evidence.caps and not evidence.narrow:
        if "severe" in evidence.signals and primary == ChangeType.fix:
            ladder.at_least(Importance.high, ("reason_severe", {"match": evidence.signals["severe"]}))
        if "measured" in evidence.signals and primary == ChangeType.perf:
            ladder.at_least(Importance.high, ("reason_measured", {"match": evidence.signals["measured"]}))
        if "default_change" in evidence.signals and primary in (ChangeType.feat, ChangeType.fix, ChangeType.perf):
            ladder.at_least(Importance.high, ("reason_default_change", {"match": evidence.signals["default_change"]}))
    core_change = _large_core_change(title, facts, rules) if primary in rules.core.types else None
    if basis == "source" and not evidence.caps and core_change is not None:
        ladder.at_least(Importance.medium, ("reason_core", {"count": core_change[0], "path": core_change[1]}))
    for change in evidence.dependencies:
        if change.major:
            # A platform's own build of the framework ("[XPU] upgrade torch 2.8", ROCm in the ROCm image)
            # reaches that platform's users only: the rubric's specific platform, medium.
            level = Importance.high if change.big_step and not evidence.narrow else Importance.medium
            key = "reason_major_dependency" if change.big_step else "reason_dependency"
            ladder.at_least(level, (key, {"changes": change}))
        elif change.semver_major and evidence.ships_dependencies:
            ladder.at_least(rules.dependencies.semver_major_importance, ("reason_dependency", {"changes": change}))
    for level, cite in evidence.floors:
        ladder.at_least(level, ("reason_surface", {"match": cite}))
    counted_user_facing = any(rules.path_rules(facts.classes[i]).user_facing for i in facts.counted)
    if breaking:
        ladder.at_least(
            _breaking_level(
                evidence, counted_user_facing, _removed_modules(facts, rules) >= rules.decision.removed_modules_high
            ),
            ("reason_breaking", {"evidence": evidence.signals["breaking"]}),
        )
    if security:
        key = "reason_security_code" if evidence.security_in_code else "reason_security"
        key = "reason_security_docs" if only_prose else key
        # A message that limits its own impact ("... warnings") keeps the "at least medium" floor.
        level = Importance.medium if only_prose or evidence.caps else Importance.high
        ladder.at_least(level, (key, {"match": evidence.signals["security"]}))
    if evidence.sync_merge:
        # A stable branch merged back brings its security release along: the rubric's
        # "security => high" outranks the doubt a title that says nothing leaves.
        if not security:
            ladder.at_most(rules.merges.max_importance, ("reason_sync_merge", {}))
        if ladder.reasons[0][0] != "reason_sync_merge":
            ladder.reasons.insert(0, ("reason_sync_merge", {}))
    user_facing = counted_user_facing and (
        primary in rules.decision.user_facing_types
        or breaking
        or security
        or evidence.user_facing is True
        # Documentation installed with the release (manual pages) is part of what its users read.
        or (primary == ChangeType.docs and basis == "paths" and rules.path_rules(facts.dominant_class).user_facing)
    )
    return Judgement(primary, secondary, ladder.level, ladder.reasons, security, breaking, user_facing, basis, reverted)


def _large_core_change(title: Title, facts: Files, rules: RuleSet) -> tuple[int, str] | None:
    """The lines and the busiest file of a change to core code large enough to carry regression risk, if it is.

    Core code is what the path classes call core, or, in a project whose layout
    names none, a change that reaches across `min_source_files` source modules:
    a refactor of how every method or layer is built touches them all.
    """
    core = rules.core
    if facts.core_lines >= core.min_lines:
        return facts.core_lines, facts.core_path
    if not core.min_source_files or (core.unless_title_regex and core.unless_title_regex.search(title.subject)):
        return None
    source = [facts.files[i] for i in facts.counted if rules.path_rules(facts.classes[i]).type is None]
    lines = sum(f.additions + f.deletions for f in source)
    if len(source) < core.min_source_files or lines < core.min_lines:
        return None
    return lines, max(source, key=lambda f: f.additions + f.deletions).path


def _breaking_level(evidence: Evidence, user_facing: bool, removes_modules: bool) -> Importance:
    """Rubric: a breaking change is high, "breaking => at least medium" being only the floor.

    The floor holds when the break is confined to a platform, model or option, lies in files
    no user runs, is capped by the message (a deprecation keeps working through its transition
    period), or is only inferred from the diff (a removed definition) without the message declaring
    it, unless the commit deletes whole modules with it: what it removes is more than a name.
    """
    declared = (evidence.signals["breaking"] != "definitions" and not evidence.inferred_break) or removes_modules
    if declared and user_facing and not evidence.narrow and not evidence.caps:
        return Importance.high
    return Importance.medium


def _removed_modules(facts: Files, rules: RuleSet) -> int:
    """How many source modules (neither tests, docs nor tooling) the commit deletes whole."""
    return sum(
        1
        for file, name in zip(facts.files, facts.classes, strict=True)
        if file.status == FileStatus.deleted and rules.path_rules(name).type is None
    )


def _start(
    title: Title,
    basis: str,
    primary: ChangeType,
    evidence: Evidence,
    facts: Files,
    rules: RuleSet,
    quote: str,
    depth: int,
) -> tuple[_Ladder, str | None]:
    """The importance a commit starts from, and why; a revert inherits what it reverts."""
    if basis == "revert":
        inner = parse_title(parse_subject(title.revert_of or ""), rules)
        inner_evidence = read_message(inner, "", rules, quote)
        if title.revert_of and depth < _MAX_REVERT_DEPTH and inner_evidence.says_anything:
            judged = judge(inner, inner_evidence, facts, rules, quote, depth + 1)
            return _Ladder(judged.importance, ("reason_revert", {"quoted": title.revert_of})), title.revert_of
        return _Ladder(Importance.medium, ("reason_revert_unknown", {})), title.revert_of or None
    if basis == "release":
        match = {"match": evidence.signals["release"]}
        major = rules.release.major
        if _opens_major_line(facts, rules) or (major is not None and major.regex.search(title.description)):
            return _Ladder(rules.release.major_importance, ("reason_major_release", match)), None
        return _Ladder(Importance.low, ("reason_release", match)), None
    level = rules.importance[primary]
    if basis == "paths":
        return _Ladder(level, ("reason_only_class", {"label": facts.dominant_class})), None
    if basis == "moves":
        return _Ladder(Importance.low, ("reason_moves", {})), None
    cites = evidence.cites.get(primary, [])
    count = len(facts.counted)
    reason: Reason = ("reason_source", {"count": count, "evidence": cites[:2]})
    if not cites and primary in evidence.fallback_reasons and primary not in evidence.votes:
        key, values = evidence.fallback_reasons[primary]
        reason = (key, {"count": count, **values})
    elif not cites and evidence.changelog:
        reason = ("reason_changelog", {"quoted": clip(first_sentence(evidence.changelog[0]), MAX_QUOTED)})
    elif not cites:
        reason = ("reason_source_no_evidence", {"count": count})
    ladder = _Ladder(level, reason)
    if evidence.narrow:
        ladder.reasons.insert(0, ("reason_narrow", {"area": evidence.signals["narrow"]}))
    return ladder, None
