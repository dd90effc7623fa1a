"""What the message says, before any decision: votes, caps and signals.

Title tags, a Conventional Commits prefix and scope, the title patterns and the
body each cast weighted votes for a change type, cap the importance or raise a
signal. :class:`Evidence` also collects what the patches show later
(:mod:`~repodaily.analyzers.heuristic.patch`,
:mod:`~repodaily.analyzers.heuristic.changelog`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from repodaily.analyzers.heuristic.message_rules import PatternRule, TagRule
from repodaily.analyzers.heuristic.prose import (
    BREAKING_FOOTER,
    MAX_QUOTED,
    bare_text,
    clip,
    link_targets_dropped,
    prose_blocks,
)
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.title import Title
from repodaily.models import ChangeType, Importance

__all__ = ["DependencyChange", "Evidence", "Reason", "apply_pattern", "read_message"]

_COMPONENT_LABEL = re.compile(r"^[^\s:][^:]{0,39}:\s+(?=\S)")
#: A leading reference to the issue a commit closes, GitHub's closing keyword and the number ("Fix #1123: rename X",
#: "Fixes #12 - add Y", "Fix #1438"): it links the issue, whatever its kind, so the words after it say what the
#: commit does. Many projects title every commit so, features and refactors too.
_ISSUE_REFERENCE = re.compile(r"^(?:fix(?:e[sd])?|close[sd]?|resolve[sd]?)\s+#\d+(?:\s*:\s*|\s+-\s+|\s*$)", re.I)
#: A trailing reference to the issues a commit closes or relates to ("--stop-after option, closes #561",
#: "Use uv in the Justfile, refs #674", "X; fixes #3 and #4"): the words before it are the title, and a
#: pattern that reads how a title ends ("... support") reads them.
_TRAILING_ISSUE_REFERENCE = re.compile(
    # Started only where a run of blanks starts (`(?<!\s)`), the run taken whole (`(?>...)`): tried inside
    # the run, or given back a blank at a time, a title of many blanks would cost time quadratic in their number.
    r"(?<!\s)(?>\s*[,;:]?\s+)(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?|refs?|references|see)\s+#\d+"
    r"(?:\s*(?:,|and)\s*#\d+)*\s*$",
    re.I,
)
# A message key of the rule table and the values its placeholders take.
Reason = tuple[str, dict[str, Any]]


@dataclass(frozen=True)
class DependencyChange:
    name: str
    old: str | None
    new: str
    major: bool  # a major dependency, whatever the version step
    big_step: bool  # the first two version numbers differ (or the old one is unknown)
    semver_major: bool  # an incompatible step by semantic versioning (1.x -> 2.0, 0.11 -> 0.12)


@dataclass
class Evidence:
    """Everything the message and the diff say, before any decision."""

    votes: dict[ChangeType, float] = field(default_factory=dict)
    cites: dict[ChangeType, list[str]] = field(default_factory=dict)
    caps: list[tuple[Importance, str]] = field(default_factory=list)
    # The message key that explains a cap, by its cite, when not the title's words (`reason_cap`).
    cap_reasons: dict[str, str] = field(default_factory=dict)
    signals: dict[str, str] = field(default_factory=dict)
    user_facing: bool | None = None
    removed_names: list[str] = field(default_factory=list)
    dependencies: list[DependencyChange] = field(default_factory=list)
    breaking_footer: str = ""
    changelog: list[str] = field(default_factory=list)  # entries the commit adds to a changelog
    # What the patch alone suggests, read only when nothing else names a type.
    fallback: dict[ChangeType, float] = field(default_factory=dict)
    fallback_reasons: dict[ChangeType, Reason] = field(default_factory=dict)
    # Importance the surface changes ask for at least, with their cite (:mod:`.surface.weigh`).
    floors: list[tuple[Importance, str]] = field(default_factory=list)
    # Types the surface changes vote for: a surface whose type the files' classes lack leaves the decision to the
    # votes (an entry point added to a package's `exports` map is a feature, though the map is configuration).
    surface_types: set[ChangeType] = field(default_factory=set)
    # The break is read from the diff's surface, not declared by the message: at least medium, not high by itself.
    inferred_break: bool = False
    # The security flag comes from a code idiom of the diff (:mod:`.idioms`), not from the message's words.
    security_in_code: bool = False
    # The rules that matched (`tags.bugfix`, `patterns.severe`, `surface.raised_floor`), for measuring them.
    fired: set[str] = field(default_factory=set)
    sync_merge: bool = False
    ships_dependencies: bool = False  # the commit changes a manifest of the released package whose steps bind users

    def vote(self, change_type: ChangeType | None, weight: float, cite: str) -> None:
        if change_type is None or weight <= 0:
            return
        self.votes[change_type] = self.votes.get(change_type, 0.0) + weight
        cites = self.cites.setdefault(change_type, [])
        # `[Security]` and the word "Security" in the same title are one piece of evidence to a reader.
        if bare_text(cite) not in {bare_text(c) for c in cites}:
            cites.append(cite)

    def signal(self, name: str, cite: str) -> None:
        self.signals.setdefault(name, cite)

    @property
    def narrow(self) -> bool:
        return "narrow" in self.signals

    @property
    def says_anything(self) -> bool:
        return bool(self.votes or self.signals or self.caps)


def _apply_tag(
    evidence: Evidence, rules: RuleSet, rule: TagRule, tag: str, cite: str, *, may_flag_security: bool = True
) -> None:
    evidence.fired.add(f"tags.{rules.tag_name(rule)}")
    evidence.vote(rule.type, rule.weight, cite)
    if rule.narrow:
        evidence.signal("narrow", tag)
    if rule.max_importance is not None:
        evidence.caps.append((rule.max_importance, cite))
    if rule.user_facing is not None:
        evidence.user_facing = rule.user_facing
    if rule.security and may_flag_security:
        evidence.signal("security", cite)


def read_message(title: Title, body: str, rules: RuleSet, quote: str) -> Evidence:
    """Votes, caps and signals from the title's tags, prefix and patterns and from the body's prose."""
    evidence = Evidence()
    for tag in title.tags:
        for rule in rules.lookup_tag(tag):
            _apply_tag(evidence, rules, rule, tag, f"[{tag}]")
    if title.conventional is not None:
        cite = f"`{title.prefix}`"
        evidence.vote(title.conventional, rules.conventional.weight, cite)
        if title.scope:
            # A scope names an area: `docs(security):` documents it, `fix(security):` may fix a weakness.
            may_flag = title.conventional in rules.decision.user_facing_types
            for rule in rules.lookup_tag(title.scope):
                _apply_tag(evidence, rules, rule, title.scope, cite, may_flag_security=may_flag)
        if title.bang:
            evidence.signal("breaking", "bang")
    description = _TRAILING_ISSUE_REFERENCE.sub("", _ISSUE_REFERENCE.sub("", title.description, count=1), count=1)
    stripped = _COMPONENT_LABEL.sub("", description, count=1)
    texts = {
        "description": [description, stripped] if stripped != description else [description],
        "title": [title.subject],
        "body": [link_targets_dropped(body)],
    }
    for name, pattern in rules.patterns.items():
        if pattern.where != "body" and title.conventional in pattern.unless_conventional:
            continue
        for text in texts[pattern.where]:
            if match := pattern.regex.search(text):
                evidence.fired.add(f"patterns.{name}")
                apply_pattern(evidence, pattern, match, quote)
                break
    for block in prose_blocks(body):
        if match := BREAKING_FOOTER.match(block):
            evidence.breaking_footer = clip(match.group("text").strip(), MAX_QUOTED)
            break
    return evidence


def apply_pattern(evidence: Evidence, rule: PatternRule, match: re.Match[str], quote: str, trust: float = 1.0) -> None:
    """Cast ``rule``'s vote, cap and signal for ``match``; the vote weighs ``trust`` of the rule's weight.

    A match may span a body's wrapped lines; it is quoted as one line, clipped.
    """
    cite = quote.format(text=clip(" ".join(match.group(0).split()), MAX_QUOTED))
    evidence.vote(rule.type, rule.weight * trust, cite)
    if rule.max_importance is not None:
        evidence.caps.append((rule.max_importance, cite))
    if rule.user_facing is not None:
        evidence.user_facing = rule.user_facing
    if rule.signal is not None:
        evidence.signal(rule.signal, "footer" if rule.where == "body" and rule.signal == "breaking" else cite)
