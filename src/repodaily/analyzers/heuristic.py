"""The offline analyzer: judges a commit against the rubric without a model.

It is the embedded default when no LLM is configured and the per-commit
fallback when one fails, so it reads nothing but the :class:`AnalysisInput`,
does pure CPU work and has no failure mode of its own. What it knows lives in
``heuristic_rules.toml`` (:class:`~repodaily.analyzers.rules.RuleSet`); this
module gathers evidence generically (title tags, Conventional Commits, title
patterns, path classes, dependency versions, removed definitions, changelog
entries, the patch itself), weighs it, and writes the judgement in the report's
language from that table's sentences.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from repodaily.analyzers import Analyzer, register_analyzer
from repodaily.analyzers.rules import Messages, PatternRule, RuleSet, SectionRule, TagRule
from repodaily.errors import ConfigError
from repodaily.models import (
    Analysis,
    AnalysisInput,
    ChangeType,
    ContextFile,
    FileCategory,
    FileStatus,
    Flags,
    Importance,
    Insight,
    Recommendation,
)

__all__ = ["HeuristicAnalyzer"]

_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
_LEADING_TAG = re.compile(r"^\s*\[([^\[\]]{1,80})\]\s*[:\-–—]?\s*")
_CONVENTIONAL = re.compile(r"^(?P<word>[A-Za-z][\w-]*)(?:\((?P<scope>[^()]*)\))?(?P<bang>!)?:\s*(?P<rest>.*)$")
_COMPONENT_LABEL = re.compile(r"^[^\s:][^:]{0,39}:\s+(?=\S)")
_REVERT_QUOTED = re.compile(r'^revert\s*:?\s*"(?P<inner>.*)"\s*$', re.IGNORECASE)
_REVERT_PLAIN = re.compile(r"^revert\b\s*:?\s*(?P<inner>.*)$", re.IGNORECASE)
_TRAILER = re.compile(
    r"^\s*(signed-off-by|co-authored-by|reviewed-by|acked-by|tested-by|reported-by|suggested-by|helped-by"
    r"|cc|change-id):",
    re.IGNORECASE,
)
_BREAKING_FOOTER = re.compile(r"^BREAKING[ -]CHANGE:\s*(?P<text>.*)$")
_NOT_PROSE = ("#", "<", "|", "```", "---", ">", "[", "!", "http")
_BULLET = re.compile(r"^(?:[-*•]|\d{1,2}[.)])\s+")
_SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？]")
_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "no.", "fig."})
_REVERT_BOILERPLATE = re.compile(r"^This reverts commit [0-9a-f]{7,40}\.?\s*", re.IGNORECASE)
_SENTENCE_ENDINGS = (".", "。", "!", "！", "?", "？", "…")
_MAX_QUOTED = 200
_MAX_SCOPE = 4
_MAX_REVERT_DEPTH = 3
_RANK = {category: index for index, category in enumerate(FileCategory)}
# A message key of the rule table and the values its placeholders take.
Reason = tuple[str, dict[str, Any]]
_RST_ROLE = re.compile(r"\s*:[a-z]+:`[^`]*`")
_RST_LITERAL = re.compile(r"``([^`]+)``")
_UNDERLINE = re.compile(r"^\s*([-=~^\"'`*+#])\1{2,}\s*$")


# --------------------------------------------------------------------------- reading the message


@dataclass(frozen=True)
class _Message:
    """The title and body the rules read: a pull-request merge hands over to the pull request's title."""

    subject: str
    body: str
    sync_merge: bool = False  # a merge that brings one branch into another: its title says nothing


def _effective_message(item: AnalysisInput, rules: RuleSet) -> _Message:
    """The message as the rules should read it; only merge commits (two parents or more) differ from the input."""
    if len(item.parents) < 2:
        return _Message(item.subject, item.body)
    first = item.subject.strip().splitlines()[0].strip() if item.subject.strip() else ""
    merges = rules.merges
    if any(regex.search(first) for regex in merges.pull_request_regexes):
        lines = _body_lines(item.body)
        for index, line in enumerate(lines):
            text = line.strip()
            if text and not any(regex.search(text) for regex in merges.not_a_title_regexes):
                return _Message(text, "\n".join(lines[index + 1 :]).strip())
        return _Message(first, "", sync_merge=True)
    if any(regex.search(first) for regex in merges.sync_regexes):
        return _Message(first, "", sync_merge=True)
    return _Message(item.subject, item.body)


@dataclass(frozen=True)
class _Title:
    subject: str
    tags: tuple[str, ...] = ()
    conventional: ChangeType | None = None
    conventional_word: str = ""
    scope: str = ""
    bang: bool = False
    description: str = ""
    revert_of: str | None = None  # None: not a revert; "": reverts something the title does not name

    @property
    def shown(self) -> str:
        """What texts quote: the description, or the whole line when the tags carry the meaning (a revert)."""
        return self.subject if self.revert_of is not None else (self.description or self.subject)


def _parse_title(subject: str, rules: RuleSet, *, bare: bool = False) -> _Title:
    """Split a first line into tags, a Conventional Commits prefix, the description and a revert target.

    A ``bare`` title (a branch-sync merge) is kept whole for the texts and carries no evidence.
    """
    lines = subject.strip().splitlines()
    line = _PR_SUFFIX.sub("", lines[0].strip() if lines else "")
    if bare:
        return _Title(line)
    rest = line
    tags: list[str] = []
    while match := _LEADING_TAG.match(rest):
        tags.append(match.group(1).strip())
        rest = rest[match.end() :]
    revert_of = _revert_target(rest)
    if revert_of is None and any(r.type == ChangeType.revert for t in tags for r in rules.lookup_tag(t)):
        revert_of = rest
    conventional, word, scope, bang = None, "", "", False
    if match := _CONVENTIONAL.match(rest):
        mapped = rules.conventional.types.get(match.group("word").lower())
        if mapped is not None:
            word, scope, bang = match.group("word"), (match.group("scope") or "").strip(), bool(match.group("bang"))
            conventional = rules.conventional.scope_types.get(scope.lower(), mapped)
            rest = match.group("rest").strip()
            if mapped == ChangeType.revert and revert_of is None:
                revert_of = _revert_target(f"revert {rest}") or rest
    return _Title(line, tuple(tags), conventional, word, scope, bang, rest.strip(), revert_of)


def _revert_target(text: str) -> str | None:
    if match := _REVERT_QUOTED.match(text):
        return _PR_SUFFIX.sub("", match.group("inner").strip())
    if match := _REVERT_PLAIN.match(text):
        return match.group("inner").strip().strip('"').strip()
    return None


def _body_lines(body: str) -> list[str]:
    return [line for line in body.splitlines() if not _TRAILER.match(line)]


# --------------------------------------------------------------------------- evidence


@dataclass(frozen=True)
class _DependencyChange:
    name: str
    old: str | None
    new: str
    major: bool  # a major dependency, whatever the version step
    big_step: bool  # the first two version numbers differ (or the old one is unknown)
    semver_major: bool  # an incompatible step by semantic versioning (1.x -> 2.0, 0.11 -> 0.12)


@dataclass
class _Evidence:
    """Everything the message and the diff say, before any decision."""

    votes: dict[ChangeType, float] = field(default_factory=dict)
    cites: dict[ChangeType, list[str]] = field(default_factory=dict)
    caps: list[tuple[Importance, str]] = field(default_factory=list)
    signals: dict[str, str] = field(default_factory=dict)
    user_facing: bool | None = None
    removed_names: list[str] = field(default_factory=list)
    dependencies: list[_DependencyChange] = field(default_factory=list)
    breaking_footer: str = ""
    changelog: list[str] = field(default_factory=list)  # entries the commit adds to a changelog
    # What the patch alone suggests, read only when nothing else names a type.
    fallback: dict[ChangeType, float] = field(default_factory=dict)
    fallback_reasons: dict[ChangeType, Reason] = field(default_factory=dict)
    sync_merge: bool = False
    ships_dependencies: bool = False  # the commit changes a manifest of the released package

    def vote(self, change_type: ChangeType | None, weight: float, cite: str) -> None:
        if change_type is None or weight <= 0:
            return
        self.votes[change_type] = self.votes.get(change_type, 0.0) + weight
        cites = self.cites.setdefault(change_type, [])
        # `[Security]` and the word "Security" in the same title are one piece of evidence to a reader.
        if _bare(cite) not in {_bare(c) for c in cites}:
            cites.append(cite)

    def signal(self, name: str, cite: str) -> None:
        self.signals.setdefault(name, cite)

    @property
    def narrow(self) -> bool:
        return "narrow" in self.signals

    @property
    def says_anything(self) -> bool:
        return bool(self.votes or self.signals or self.caps)


def _bare(cite: str) -> str:
    return "".join(ch for ch in cite.lower() if ch.isalnum())


def _apply_tag(evidence: _Evidence, rule: TagRule, tag: str, cite: str, *, may_flag_security: bool = True) -> None:
    evidence.vote(rule.type, rule.weight, cite)
    if rule.narrow:
        evidence.signal("narrow", tag)
    if rule.max_importance is not None:
        evidence.caps.append((rule.max_importance, cite))
    if rule.user_facing is not None:
        evidence.user_facing = rule.user_facing
    if rule.security and may_flag_security:
        evidence.signal("security", cite)


def _read_message(title: _Title, body: str, rules: RuleSet, quote: str) -> _Evidence:
    """Votes, caps and signals from the title's tags, prefix and patterns and from the body."""
    evidence = _Evidence()
    for tag in title.tags:
        for rule in rules.lookup_tag(tag):
            _apply_tag(evidence, rule, tag, f"[{tag}]")
    if title.conventional is not None:
        cite = f"`{title.conventional_word}{f'({title.scope})' if title.scope else ''}{'!' if title.bang else ''}:`"
        evidence.vote(title.conventional, rules.conventional.weight, cite)
        if title.scope:
            # A scope names an area: `docs(security):` documents it, `fix(security):` may fix a weakness.
            may_flag = title.conventional in rules.decision.user_facing_types
            for rule in rules.lookup_tag(title.scope):
                _apply_tag(evidence, rule, title.scope, cite, may_flag_security=may_flag)
        if title.bang:
            evidence.signal("breaking", "bang")
    stripped = _COMPONENT_LABEL.sub("", title.description, count=1)
    body_text = "\n".join(_body_lines(body))
    texts = {
        "description": [title.description, stripped] if stripped != title.description else [title.description],
        "title": [title.subject],
        "body": [body_text],
    }
    for rule in rules.patterns.values():
        match = next((m for text in texts[rule.where] if (m := rule.regex.search(text))), None)
        if match is not None:
            _apply_pattern(evidence, rule, match, quote)
    for block in _prose_blocks(body):
        if match := _BREAKING_FOOTER.match(block):
            evidence.breaking_footer = _clip(match.group("text").strip(), _MAX_QUOTED)
            break
    return evidence


def _apply_pattern(evidence: _Evidence, rule: PatternRule, match: re.Match[str], quote: str) -> None:
    cite = quote.format(text=match.group(0).strip())
    evidence.vote(rule.type, rule.weight, cite)
    if rule.max_importance is not None:
        evidence.caps.append((rule.max_importance, cite))
    if rule.signal is not None:
        evidence.signal(rule.signal, "footer" if rule.where == "body" and rule.signal == "breaking" else cite)


# --------------------------------------------------------------------------- files


@dataclass
class _Files:
    """The commit's files as classes: which count, what they alone decide, whether they only move."""

    files: list[ContextFile]
    classes: list[str]
    counted: list[int]
    only_types: dict[ChangeType, int]
    dominant_class: str
    pure_move: bool
    core_lines: int  # lines changed in files of `core` path classes
    core_path: str  # the core file with the most changed lines


def _read_files(files: list[ContextFile], rules: RuleSet) -> _Files:
    classes = [rules.path_class(f.path, f.category) for f in files]
    counted = [i for i, name in enumerate(classes) if not rules.path_rules(name).ignorable] or list(range(len(files)))
    lines: Counter[str] = Counter()
    for i in counted:
        lines[classes[i]] += max(1, files[i].additions + files[i].deletions)
    only_types: dict[ChangeType, int] = {}
    if counted and all(rules.path_rules(classes[i]).type is not None for i in counted):
        for name, count in lines.items():
            change_type = rules.path_rules(name).type
            assert change_type is not None
            only_types[change_type] = only_types.get(change_type, 0) + count
    dominant = lines.most_common(1)[0][0] if lines else "source"
    core = [files[i] for i in counted if rules.path_rules(classes[i]).core]
    core_lines = sum(f.additions + f.deletions for f in core)
    core_path = max(core, key=lambda f: f.additions + f.deletions).path if core else ""
    return _Files(files, classes, counted, only_types, dominant, _is_pure_move(files, rules), core_lines, core_path)


def _is_pure_move(files: list[ContextFile], rules: RuleSet) -> bool:
    moved = [f for f in files if f.status in (FileStatus.renamed, FileStatus.copied)]
    others = [f for f in files if f.status not in (FileStatus.renamed, FileStatus.copied)]
    return (
        bool(moved)
        and all(f.additions + f.deletions <= rules.moves.max_lines_per_moved_file for f in moved)
        and all(f.additions + f.deletions <= rules.moves.max_lines_per_other_file for f in others)
    )


def _patch_lines(file: ContextFile, sign: str) -> list[str]:
    return [line for line in file.text.splitlines() if line.startswith(sign) and not line.startswith(sign * 3)]


def _read_diff(evidence: _Evidence, title: _Title, facts: _Files, rules: RuleSet) -> None:
    """Add what the patches show: removed public definitions and dependency versions."""
    definitions = rules.removed_definitions
    removed: list[str] = []
    kept: list[str] = []  # every line the commit leaves in place or adds, in any file
    for file, name in zip(facts.files, facts.classes, strict=True):
        kept += [line for line in file.text.splitlines() if not line.startswith("-")]
        if rules.path_rules(name).type not in (None, ChangeType.build):
            continue
        for regex in definitions.regexes:
            removed += [m.group("name") for line in _patch_lines(file, "-") if (m := regex.search(line))]
    # A name still written somewhere (moved, redefined, or read elsewhere in the hunk) is not gone.
    kept_text = "\n".join(kept)
    evidence.removed_names = list(dict.fromkeys(name for name in removed if name not in kept_text))
    if evidence.removed_names:
        evidence.vote(definitions.type, definitions.weight, f"`{evidence.removed_names[0]}`")
        evidence.signal("breaking", "definitions")
    evidence.dependencies = _dependency_changes(title, facts, rules)
    deps = rules.dependencies
    evidence.ships_dependencies = title.scope.lower() not in deps.dev_scopes and any(
        deps.ships(f.path) for f in facts.files
    )
    for change in evidence.dependencies:
        weight = rules.dependencies.major_weight if change.major else rules.dependencies.routine_weight
        evidence.vote(ChangeType.build, weight, f"`{change.name}`")


def _dependency_changes(title: _Title, facts: _Files, rules: RuleSet) -> list[_DependencyChange]:
    deps = rules.dependencies
    found: dict[str, tuple[str, str | None, str]] = {}
    for pattern in deps.title_regexes:
        if match := pattern.search(title.description):
            name = match.group("name")
            found[name.lower()] = (name, match.groupdict().get("old"), match.group("new"))
    for file, name in zip(facts.files, facts.classes, strict=True):
        if rules.path_rules(name).type != ChangeType.build:
            continue
        old = {
            m.group("name").lower(): m.group("version")
            for line in _patch_lines(file, "-")
            if (m := deps.line_regex.match(line))
        }
        for line in _patch_lines(file, "+"):
            match = deps.line_regex.match(line)
            if match is None or deps.is_filler(match.group("name")):
                continue
            key = match.group("name").lower()
            if key in old and old[key] != match.group("version") and (key not in found or found[key][1] is None):
                found[key] = (match.group("name"), old[key], match.group("version"))
    changes: dict[str, _DependencyChange] = {}
    for name, old_version, new_version in found.values():
        big = old_version is None or old_version.split(".")[:2] != new_version.split(".")[:2]
        semver = _semver_major(old_version, new_version)
        change = _DependencyChange(name, old_version, new_version, deps.is_major(name), big, semver)
        # `torch` in the title and `TORCH_SUPPORTED_VERSION` in CMake are one bump; keep the one showing both versions.
        key = deps.words(name)[0] if change.major else name.lower()
        if key not in changes or (changes[key].old is None and old_version is not None):
            changes[key] = change
    return sorted(changes.values(), key=lambda c: (not c.major, c.name.lower()))


def _semver_major(old: str | None, new: str) -> bool:
    """The versions differ up to the first non-zero number of the old one (``0.11 -> 0.12``, ``1.4 -> 2.0``)."""
    if old is None:
        return False
    old_parts, new_parts = old.split("."), new.split(".")
    leading = next((i for i, part in enumerate(old_parts) if part.strip("0")), len(old_parts) - 1)
    return old_parts[: leading + 1] != new_parts[: leading + 1]


# --------------------------------------------------------------------------- changelog and patch fallback


@dataclass(frozen=True)
class _Entry:
    text: str
    section: SectionRule | None


def _changelog_entries(file: ContextFile, rules: RuleSet) -> list[_Entry]:
    """The entries a changelog patch adds, each under the section heading it sits in.

    An entry is an added bullet with its indented continuation lines joined. One
    whose words all appear among the removed lines only rewrites an existing entry
    (markup, wrapping, a move to a release section) and is not new.
    """
    changelog = rules.changelog
    entries: list[_Entry] = []
    removed: list[str] = []
    section: SectionRule | None = None
    current: list[str] = []
    previous = ""
    in_hunk = False

    def close() -> None:
        if current:
            entries.append(_Entry(" ".join(" ".join(current).split()), section))
            current.clear()

    for line in file.text.splitlines():
        if line.startswith("@@"):
            close()
            section, previous, in_hunk = None, "", True
            continue
        sign, content = line[:1], line[1:]
        if not in_hunk:
            continue
        if sign == "-":
            removed.append(_bare(content))
            continue
        if sign not in ("+", " "):
            continue
        if heading := changelog.heading_regex.match(content):
            close()
            section = changelog.section(heading.group("name"))
        elif _UNDERLINE.match(content) and previous.strip():
            close()
            section = changelog.section(previous)
        elif sign == "+" and (entry := changelog.entry_regex.match(content)):
            close()
            current.append(entry.group("text"))
        elif sign == "+" and current and content[:1].isspace() and content.strip():
            current.append(content.strip())
        else:
            close()
        previous = content
    close()
    removed_text = "".join(removed)
    return [entry for entry in entries if (bare := _bare(entry.text)) and bare not in removed_text]


def _plain_entry(text: str) -> str:
    """An entry as a report quotes it: reStructuredText literals as code spans, cross-reference roles dropped."""
    text = _RST_ROLE.sub("", text)
    return _RST_LITERAL.sub(r"`\1`", text).strip()


def _read_changelog(evidence: _Evidence, facts: _Files, rules: RuleSet, quote: str) -> None:
    """Votes, caps and signals from the entries the commit adds to a changelog, read like titles.

    Patterns that would hold a change below the changelog's floor (logging, warnings) are skipped:
    an entry's very presence says its users should know.
    """
    floor = rules.changelog.min_importance
    entries = [
        entry
        for file, name in zip(facts.files, facts.classes, strict=True)
        if rules.path_rules(name).changelog
        for entry in _changelog_entries(file, rules)
    ]
    read: set[str] = set()
    for entry in entries:
        for key, rule in rules.patterns.items():
            below_floor = rule.max_importance is not None and rule.max_importance.rank > floor.rank
            if key in read or rule.where == "body" or below_floor or (match := rule.regex.search(entry.text)) is None:
                continue
            read.add(key)
            _apply_pattern(evidence, rule, match, quote)
        if entry.section is not None:
            cite = quote.format(text=entry.section.names[0].title())
            evidence.vote(entry.section.type, entry.section.weight, cite)
            if entry.section.signal is not None:
                evidence.signal(entry.section.signal, cite)
    evidence.changelog = [_plain_entry(entry.text) for entry in entries]
    if entries:
        evidence.user_facing = True


def _read_patch_fallback(evidence: _Evidence, facts: _Files, rules: RuleSet) -> None:
    """What the patch suggests when nothing names a type.

    New public names suggest a feature; changed conditions with a new test, a fix.
    """
    diff = rules.diff
    source = [f for f, name in zip(facts.files, facts.classes, strict=True) if rules.path_rules(name).type is None]
    tests = [
        f for f, name in zip(facts.files, facts.classes, strict=True) if rules.path_rules(name).type == ChangeType.test
    ]
    removed_text = "\n".join(line for f in facts.files for line in _patch_lines(f, "-"))
    names = [
        m.group("name")
        for file in source
        for line in _patch_lines(file, "+")
        for regex in diff.name_regexes
        if (m := regex.search(line))
    ]
    # A name the commit also removes was moved or renamed, not added; test helpers add nothing users see.
    new = list(dict.fromkeys(n for n in names if n not in removed_text and not n.lower().startswith("test")))
    added, deleted = sum(f.additions for f in source), sum(f.deletions for f in source)
    if new and added >= diff.new_names_min_growth * deleted:
        evidence.fallback[diff.new_names_type] = diff.new_names_weight
        evidence.fallback_reasons[diff.new_names_type] = ("reason_diff_names", {"names": new})
    adds_test = any(regex.search(line) for f in tests for line in _patch_lines(f, "+") for regex in diff.test_regexes)
    changed = [
        f
        for f in source
        if any(diff.condition_regex.search(line) for line in _patch_lines(f, "-"))
        and any(diff.condition_regex.search(line) for line in _patch_lines(f, "+"))
    ]
    if adds_test and changed:
        weight = max(diff.condition_weight, evidence.fallback.get(diff.condition_type, 0.0))
        evidence.fallback[diff.condition_type] = weight
        evidence.fallback_reasons[diff.condition_type] = ("reason_diff_fix", {"path": changed[0].path})


def _is_release(evidence: _Evidence, facts: _Files, rules: RuleSet) -> bool:
    """A release chore by its message, bumping no major dependency and changing no more source than a version."""
    if "release" not in evidence.signals or any(change.major for change in evidence.dependencies):
        return False
    source_lines = sum(
        f.additions + f.deletions
        for f, name in zip(facts.files, facts.classes, strict=True)
        if rules.path_rules(name).type is None
    )
    return source_lines <= rules.release.max_source_lines


# --------------------------------------------------------------------------- judgement


@dataclass
class _Judgement:
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
            self.reasons.insert(0, reason)

    def at_most(self, level: Importance, reason: Reason) -> None:
        if level.rank > self.level.rank:
            self.level = level
            self.reasons.insert(0, reason)


def _best(pool: dict[ChangeType, float], rules: RuleSet) -> ChangeType:
    order = rules.decision.tie_order
    return max(pool, key=lambda t: (pool[t], -order.index(t)))


def _primary(title: _Title, evidence: _Evidence, facts: _Files, rules: RuleSet) -> tuple[ChangeType, str]:
    """Rubric order: a revert is a revert; a release chore is a chore; files alone can decide; a pure
    move is a refactor; then the votes; then what the patch suggests; then a changelog entry's default."""
    if title.revert_of is not None:
        return ChangeType.revert, "revert"
    if _is_release(evidence, facts, rules):
        return ChangeType.chore, "release"
    if facts.only_types:
        voted = {t: evidence.votes[t] for t in facts.only_types if evidence.votes.get(t, 0) > 0}
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


def _judge(title: _Title, evidence: _Evidence, facts: _Files, rules: RuleSet, quote: str, depth: int = 0) -> _Judgement:
    primary, basis = _primary(title, evidence, facts, rules)
    secondary = [
        t
        for t in sorted(evidence.votes, key=lambda t: -evidence.votes[t])
        if t != primary and evidence.votes[t] >= rules.decision.secondary_min_weight
    ][:2]
    # Rubric: security is high "unless it only touches tests/docs"; CI is no more a release than those.
    only_prose = primary in (ChangeType.test, ChangeType.docs, ChangeType.ci)
    security = "security" in evidence.signals
    explicit_break = evidence.signals.get("breaking") in ("bang", "footer", "definitions")
    # Docs or tests that mention a break do not make one; an explicit marker or a removed definition does.
    breaking = "breaking" in evidence.signals and (
        explicit_break or basis != "paths" or ChangeType.build in facts.only_types
    )
    ladder, reverted = _start(title, basis, primary, evidence, facts, rules, quote, depth)
    for level, cite in evidence.caps:
        ladder.at_most(level, ("reason_cap", {"match": cite}))
    path_caps = [rules.path_rules(facts.classes[i]).max_importance for i in facts.counted]
    if path_caps and all(path_caps):
        loosest = min((c for c in path_caps if c is not None), key=lambda c: c.rank)
        ladder.at_most(loosest, ("reason_only_class", {"label": facts.dominant_class}))
    if basis == "revert" and facts.only_types:
        # Reverting a change to tests or docs is no more important than making it.
        loosest = min((rules.importance[t] for t in facts.only_types), key=lambda c: c.rank)
        ladder.at_most(loosest, ("reason_only_class", {"label": facts.dominant_class}))
    if evidence.changelog and basis == "source" and primary in rules.decision.user_facing_types:
        # The project itself recorded the change for its users; a title's modesty does not outweigh that.
        quoted = _clip(_first_sentence(evidence.changelog[0]), _MAX_QUOTED)
        ladder.at_least(rules.changelog.min_importance, ("reason_changelog", {"quoted": quoted}))
    if basis == "source" and not evidence.caps and not evidence.narrow:
        if "severe" in evidence.signals and primary == ChangeType.fix:
            ladder.at_least(Importance.high, ("reason_severe", {"match": evidence.signals["severe"]}))
        if "measured" in evidence.signals and primary == ChangeType.perf:
            ladder.at_least(Importance.high, ("reason_measured", {"match": evidence.signals["measured"]}))
        if "default_change" in evidence.signals and primary in (ChangeType.feat, ChangeType.fix, ChangeType.perf):
            ladder.at_least(Importance.high, ("reason_default_change", {"match": evidence.signals["default_change"]}))
    large_core_change = facts.core_lines >= rules.core.min_lines and primary in rules.core.types
    if basis == "source" and not evidence.caps and large_core_change:
        ladder.at_least(Importance.medium, ("reason_core", {"count": facts.core_lines, "path": facts.core_path}))
    for change in evidence.dependencies:
        if change.major:
            level = Importance.high if change.big_step else Importance.medium
            key = "reason_major_dependency" if change.big_step else "reason_dependency"
            ladder.at_least(level, (key, {"changes": change}))
        elif change.semver_major and evidence.ships_dependencies:
            ladder.at_least(rules.dependencies.semver_major_importance, ("reason_dependency", {"changes": change}))
    counted_user_facing = any(rules.path_rules(facts.classes[i]).user_facing for i in facts.counted)
    if breaking:
        ladder.at_least(
            _breaking_level(evidence, counted_user_facing),
            ("reason_breaking", {"evidence": evidence.signals["breaking"]}),
        )
    if security:
        key = "reason_security_docs" if only_prose else "reason_security"
        # A message that limits its own impact ("... warnings") keeps the "at least medium" floor.
        level = Importance.medium if only_prose or evidence.caps else Importance.high
        ladder.at_least(level, (key, {"match": evidence.signals["security"]}))
    if evidence.sync_merge:
        ladder.at_most(rules.merges.max_importance, ("reason_sync_merge", {}))
        if ladder.reasons[0][0] != "reason_sync_merge":
            ladder.reasons.insert(0, ("reason_sync_merge", {}))
    user_facing = counted_user_facing and (
        primary in rules.decision.user_facing_types or breaking or security or evidence.user_facing is True
    )
    return _Judgement(
        primary, secondary, ladder.level, ladder.reasons, security, breaking, user_facing, basis, reverted
    )


def _breaking_level(evidence: _Evidence, user_facing: bool) -> Importance:
    """Rubric: a breaking change is high, "breaking => at least medium" being only the floor.

    The floor holds when the break is confined to a platform, model or option, lies in files
    no user runs, is capped by the message (a deprecation keeps working through its transition
    period), or is only inferred from the diff (a removed definition) without the message declaring it.
    """
    declared = evidence.signals["breaking"] != "definitions"
    if declared and user_facing and not evidence.narrow and not evidence.caps:
        return Importance.high
    return Importance.medium


def _start(
    title: _Title,
    basis: str,
    primary: ChangeType,
    evidence: _Evidence,
    facts: _Files,
    rules: RuleSet,
    quote: str,
    depth: int,
) -> tuple[_Ladder, str | None]:
    """The importance a commit starts from, and why; a revert inherits what it reverts."""
    if basis == "revert":
        inner = _parse_title(title.revert_of or "", rules)
        inner_evidence = _read_message(inner, "", rules, quote)
        if title.revert_of and depth < _MAX_REVERT_DEPTH and inner_evidence.says_anything:
            judged = _judge(inner, inner_evidence, facts, rules, quote, depth + 1)
            return _Ladder(judged.importance, ("reason_revert", {"quoted": title.revert_of})), title.revert_of
        return _Ladder(Importance.medium, ("reason_revert_unknown", {})), title.revert_of or None
    if basis == "release":
        return _Ladder(Importance.low, ("reason_release", {"match": evidence.signals["release"]})), None
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
        reason = ("reason_changelog", {"quoted": _clip(_first_sentence(evidence.changelog[0]), _MAX_QUOTED)})
    elif not cites:
        reason = ("reason_source_no_evidence", {"count": count})
    ladder = _Ladder(level, reason)
    if evidence.narrow:
        ladder.reasons.insert(0, ("reason_narrow", {"area": evidence.signals["narrow"]}))
    return ladder, None


# --------------------------------------------------------------------------- writing


def _ranked(files: list[ContextFile], moves_first: bool = False) -> list[ContextFile]:
    """Source before build, tests and docs, larger changes first; in a pure move the moved files lead."""

    def key(file: ContextFile) -> tuple[bool, int, int, str]:
        moved = file.status in (FileStatus.renamed, FileStatus.copied)
        return (moves_first and not moved, _RANK[file.category], -(file.additions + file.deletions), file.path)

    return sorted(files, key=key)


def _impact_scope(files: list[ContextFile], moves_first: bool) -> list[str]:
    """The paths that matter most, most important first, with crowded directories folded."""
    ranked = _ranked(files, moves_first)
    if len(ranked) <= _MAX_SCOPE:
        return [f.path for f in ranked]
    crowd = Counter(f.path.rpartition("/")[0] for f in files)
    entries: list[str] = []
    for file in ranked:
        folder = file.path.rpartition("/")[0]
        moved = moves_first and file.status in (FileStatus.renamed, FileStatus.copied)
        entry = f"{folder}/" if folder and crowd[folder] > 1 and not moved else file.path
        if entry not in entries:
            entries.append(entry)
        if len(entries) == _MAX_SCOPE:
            break
    return entries


def _prose_blocks(body: str) -> list[str]:
    """The body's paragraphs and list items, each with its line wraps joined into one line."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for raw in [*_body_lines(body), ""]:
        line = raw.strip()
        if not line or _BULLET.match(line):
            if current:
                blocks.append(current)
            current = [_BULLET.sub("", line)] if line else []
        else:
            current.append(line)
    return [" ".join(block) for block in blocks]


def _first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence (not the one in ``e.g.`` or ``v1.2``)."""
    for match in _SENTENCE_END.finditer(text):
        words = text[: match.start()].split()
        if match.group() == "." and words and f"{words[-1].lower()}." in _ABBREVIATIONS:
            continue
        return text[: match.end()]
    return text


def _clip(text: str, limit: int) -> str:
    """``text`` whole, or cut at the last word boundary before ``limit`` with ``…``; never inside a code span."""
    if len(text) <= limit:
        return text
    cut = text[: limit + 1].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    if cut.count("`") % 2:
        cut = cut[: cut.rindex("`")]
    return cut.rstrip(" ,;:—-") + "…"


def _body_sentence(body: str) -> str | None:
    """The first sentence of the body's first prose paragraph, line wraps joined, never a fragment."""
    for block in _prose_blocks(body):
        block = _REVERT_BOILERPLATE.sub("", block)
        if block.startswith(_NOT_PROSE) or _BREAKING_FOOTER.match(block):
            continue
        sentence = _first_sentence(block)
        if len(sentence) >= 20:
            return _clip(sentence, _MAX_QUOTED)
    return None


class _Writer:
    """Puts a judgement into the sentences of one language."""

    def __init__(self, messages: Messages, rules: RuleSet) -> None:
        self.m = messages
        self.rules = rules

    def quote(self, text: str) -> str:
        return self.m.render("quote", text=text)

    def _sentence(self, text: str) -> str:
        """Close ``text`` with the language's full stop, unless it already ends in punctuation of its own."""
        text = text.rstrip()
        return text if not text or text.endswith(_SENTENCE_ENDINGS) else text + self.m.sentence_end

    def _names(self, names: list[str], limit: int = 3, more: str = "more_items") -> str:
        shown = self.m.list_sep.join(f"`{n}`" for n in names[:limit])
        if len(names) > limit:
            shown += " " + self.m.render(more, total=len(names), rest=len(names) - limit)
        return shown

    def _dependencies(self, changes: list[_DependencyChange]) -> str:
        parts = [
            self.m.render("dependency_change", name=c.name, old=c.old, new=c.new)
            if c.old
            else self.m.render("dependency_new", name=c.name, new=c.new)
            for c in changes[:3]
        ]
        return self.m.list_sep.join(parts)

    def one_line(self, item: AnalysisInput, title: _Title, facts: _Files, scope: list[str]) -> str:
        shown = self.quote(title.shown or item.sha[:7])
        moved = [f for f in item.files if f.status in (FileStatus.renamed, FileStatus.copied)]
        if facts.pure_move and moved:
            first = moved[0]
            if len(moved) == 1:
                text = self.m.render("move_one", old=first.old_path or first.path, new=first.path)
            else:
                text = self.m.render("move_many", count=len(moved), old=first.old_path or first.path, new=first.path)
            others = len(item.files) - len(moved)
            return self._sentence(text + (self.m.render("move_refs", count=others) if others else ""))
        additions, deletions = _totals(item)
        if not item.files:
            return self._sentence(self.m.render("change_none", title=shown))
        key = "change_one" if len(item.files) == 1 else "change_many"
        text = self.m.render(
            key, title=shown, path=scope[0], count=len(item.files), additions=additions, deletions=deletions
        )
        return self._sentence(text)

    def summary(self, item: AnalysisInput, body: str, evidence: _Evidence) -> list[str]:
        bullets = []
        groups = {
            "files_added": [FileStatus.added],
            "files_modified": [FileStatus.modified],
            "files_deleted": [FileStatus.deleted],
            "files_moved": [FileStatus.renamed, FileStatus.copied],
        }
        ranked = _ranked(item.files)
        clauses = [
            self.m.render(key, paths=self._names([f.path for f in ranked if f.status in statuses], 2, "more_files"))
            for key, statuses in groups.items()
            if any(f.status in statuses for f in ranked)
        ]
        if clauses:
            additions, deletions = _totals(item)
            lines = self.m.render("lines", additions=additions, deletions=deletions)
            text = self.m.clause_sep.join(clauses) + lines
            bullets.append(self._sentence(text[:1].upper() + text[1:]))
        detail = self._detail(body, evidence)
        if detail:
            bullets.append(self._sentence(detail))
        return bullets

    def _detail(self, body: str, evidence: _Evidence) -> str | None:
        if evidence.breaking_footer:
            return self.m.render("breaking_footer", text=evidence.breaking_footer)
        if evidence.removed_names:
            return self.m.render("removed_definitions", names=self._names(evidence.removed_names))
        if evidence.dependencies:
            return self.m.render("dependency_changes", changes=self._dependencies(evidence.dependencies))
        if evidence.changelog:
            return self.m.render("changelog_line", text=_clip(_first_sentence(evidence.changelog[0]), _MAX_QUOTED))
        sentence = _body_sentence(body)
        return self.m.render("body_line", text=sentence) if sentence else None

    def breaking_evidence(self, evidence: _Evidence) -> str:
        """What breaks: the removed names when the diff shows them, else what said it breaks."""
        cite = evidence.signals.get("breaking", "")
        if evidence.removed_names:
            return self._names(evidence.removed_names)
        if cite == "bang":
            return self.m.evidence_bang
        if cite == "footer":
            return self.m.evidence_breaking_footer
        return self.m.render("evidence_match", match=cite)

    def reason(self, judgement: _Judgement, evidence: _Evidence) -> str:
        texts = []
        for key, params in judgement.reasons[:2]:
            values = dict(params)
            if "evidence" in values and isinstance(values["evidence"], list):
                values["evidence"] = self.m.list_sep.join(values["evidence"])
            if key == "reason_breaking":
                values["evidence"] = self.breaking_evidence(evidence)
            if "changes" in values:
                values["changes"] = self._dependencies([values["changes"]])
            if isinstance(values.get("names"), list):
                values["names"] = self._names(values["names"])
            if "label" in values:
                values["label"] = self.m.path_labels.get(values["label"], values["label"])
            if "quoted" in values:
                values["quoted"] = self.quote(values["quoted"])
            texts.append(self.m.render(key, **values))
        return self.m.clause_sep.join(texts)

    def recommendation(
        self, judgement: _Judgement, evidence: _Evidence, title: _Title, scope: list[str]
    ) -> Recommendation:
        audiences = self.rules.audiences
        where = f"`{scope[0]}`" if scope else self.quote(title.shown)
        majors = [c for c in evidence.dependencies if c.major]
        if judgement.breaking and evidence.removed_names:
            pick = ("breaking", "rec_breaking_names", {"names": self._names(evidence.removed_names)})
        elif judgement.breaking:
            pick = ("breaking", "rec_breaking", {"quoted": self.quote(title.shown)})
        elif judgement.security:
            pick = ("security", "rec_security", {})
        elif majors:
            pick = ("major_dependency", "rec_major_dependency", {"changes": self._dependencies(majors)})
        elif any(key == "reason_default_change" for key, _ in judgement.reasons):
            pick = ("default_change", "rec_default_change", {})
        elif judgement.type == ChangeType.revert:
            pick = ("revert", "rec_revert", {"quoted": self.quote(judgement.reverted or title.shown)})
        elif judgement.type in (ChangeType.feat, ChangeType.fix, ChangeType.perf, ChangeType.build):
            key = judgement.type.value
            pick = (key, f"rec_{key}", {"quoted": self.quote(title.shown), "scope": where})
        else:
            pick = ("other", "rec_other", {"scope": where})
        audience_key, message_key, values = pick
        return Recommendation(
            audience=getattr(audiences, audience_key), text=self._sentence(self.m.render(message_key, **values))
        )

    def insights_and_risks(self, judgement: _Judgement, evidence: _Evidence) -> tuple[list[Insight], list[str]]:
        insights: list[Insight] = []
        risks: list[str] = []
        if judgement.security:
            text = self.m.render("insight_security", match=evidence.signals["security"])
            insights.append(Insight(aspect="security", text=self._sentence(text)))
        if judgement.breaking:
            text = self.m.render("insight_breaking", evidence=self.breaking_evidence(evidence))
            insights.append(Insight(aspect="compatibility", text=self._sentence(text)))
            risks.append(self._sentence(self.m.risk_breaking))
        majors = [c for c in evidence.dependencies if c.major]
        if majors:
            text = self.m.render("insight_dependency", changes=self._dependencies(majors))
            insights.append(Insight(aspect="compatibility", text=self._sentence(text)))
            risks.append(self._sentence(self.m.risk_dependency))
        return insights, risks


def _totals(item: AnalysisInput) -> tuple[int, int]:
    """The commit's line counts: the input's totals, or the files' sums when the totals are missing."""
    if item.total_additions or item.total_deletions or not item.files:
        return item.total_additions, item.total_deletions
    return sum(f.additions for f in item.files), sum(f.deletions for f in item.files)


# --------------------------------------------------------------------------- the analyzer


@register_analyzer("heuristic")
class HeuristicAnalyzer(Analyzer):
    """Rules over title tags, Conventional Commits, paths, keywords and versions; no model, no network."""

    name = "heuristic"

    def __init__(
        self,
        *,
        language: str = "zh",
        rules: RuleSet | None = None,
        conventions: Mapping[str, Any] | None = None,
        **_ignored: object,
    ) -> None:
        """Judge in ``language`` by the packaged rules, extended by a repository's ``conventions``.

        ``conventions`` is a rule-table extension (see :func:`~repodaily.analyzers.rules.load_conventions`);
        ``rules``, a complete rule set, takes the place of both.
        """
        self.rules = rules or RuleSet.load(conventions, source="repository conventions")
        if language not in self.rules.messages:
            known = ", ".join(sorted(self.rules.messages))
            raise ConfigError(f"heuristic analyzer: no messages for language {language!r} (available: {known})")
        self.language = language
        self._writer = _Writer(self.rules.messages[language], self.rules)

    @property
    def fingerprint(self) -> str:
        return f"heuristic/{self.rules.fingerprint}/{self.language}"

    async def analyze(self, item: AnalysisInput) -> Analysis:
        return self.analyze_sync(item)

    def analyze_sync(self, item: AnalysisInput) -> Analysis:
        """Judge one commit; pure CPU work on the input alone."""
        writer = self._writer
        quote = writer.m.quote
        message = _effective_message(item, self.rules)
        title = _parse_title(message.subject, self.rules, bare=message.sync_merge)
        facts = _read_files(item.files, self.rules)
        # A branch-sync merge's title and body say nothing about what it brings: only its content counts.
        evidence = (
            _Evidence(sync_merge=True) if message.sync_merge else _read_message(title, message.body, self.rules, quote)
        )
        _read_diff(evidence, title, facts, self.rules)
        if not _is_release(evidence, facts, self.rules):
            # A release's changelog entries are a roll-up of commits already reported.
            _read_changelog(evidence, facts, self.rules, quote)
        if not evidence.votes:
            _read_patch_fallback(evidence, facts, self.rules)
        judgement = _judge(title, evidence, facts, self.rules, quote)
        scope = _impact_scope(item.files, moves_first=facts.pure_move)
        deep = judgement.importance != Importance.low
        insights, risks = (
            writer.insights_and_risks(judgement, evidence) if judgement.importance == Importance.high else ([], [])
        )
        return Analysis(
            type=judgement.type,
            secondary_types=judgement.secondary,
            importance=judgement.importance,
            importance_reason=writer.reason(judgement, evidence),
            flags=Flags(security=judgement.security, breaking=judgement.breaking, user_facing=judgement.user_facing),
            summary=writer.summary(item, message.body, evidence) if deep else [],
            one_line=writer.one_line(item, title, facts, scope),
            impact_scope=scope,
            insights=insights,
            risks=risks,
            recommendations=[writer.recommendation(judgement, evidence, title, scope)] if deep else [],
            coverage=item.receipt,
            analyzer=self.fingerprint,
        )
