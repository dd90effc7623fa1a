"""Reading the message: the title and body the rules read, and the parts of the title.

Only merge commits differ from their input: a pull-request merge hands over to
the pull request's title, a branch-sync merge's title says nothing. A title
splits into ``[Tag]`` prefixes, a Conventional Commits prefix, the description
and the target of a revert.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repodaily.analyzers.heuristic.prose import body_lines
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.models import AnalysisInput, ChangeType

__all__ = ["Title", "effective_message", "parse_title"]

_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
_LEADING_TAG = re.compile(r"^\s*\[([^\[\]]{1,80})\]\s*[:\-–—]?\s*")
_CONVENTIONAL = re.compile(r"^(?P<word>[A-Za-z][\w-]*)(?:\((?P<scope>[^()]*)\))?(?P<bang>!)?:\s*(?P<rest>.*)$")
_REVERT_QUOTED = re.compile(r'^revert\s*:?\s*"(?P<inner>.*)"\s*$', re.IGNORECASE)
_REVERT_PLAIN = re.compile(r"^revert\b\s*:?\s*(?P<inner>.*)$", re.IGNORECASE)


@dataclass(frozen=True)
class _Message:
    """The title and body the rules read: a pull-request merge hands over to the pull request's title."""

    subject: str
    body: str
    sync_merge: bool = False  # a merge that brings one branch into another: its title says nothing


def effective_message(item: AnalysisInput, rules: RuleSet) -> _Message:
    """The message as the rules should read it; only merge commits (two parents or more) differ from the input."""
    if len(item.parents) < 2:
        return _Message(item.subject, item.body)
    first = item.subject.strip().splitlines()[0].strip() if item.subject.strip() else ""
    merges = rules.merges
    if any(regex.search(first) for regex in merges.pull_request_regexes):
        lines = body_lines(item.body)
        for index, line in enumerate(lines):
            text = line.strip()
            if text and not any(regex.search(text) for regex in merges.not_a_title_regexes):
                return _Message(text, "\n".join(lines[index + 1 :]).strip())
        return _Message(first, "", sync_merge=True)
    if any(regex.search(first) for regex in merges.sync_regexes):
        return _Message(first, "", sync_merge=True)
    return _Message(item.subject, item.body)


@dataclass(frozen=True)
class Title:
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


def parse_title(subject: str, rules: RuleSet, *, bare: bool = False) -> Title:
    """Split a first line into tags, a Conventional Commits prefix, the description and a revert target.

    A ``bare`` title (a branch-sync merge) is kept whole for the texts and carries no evidence.
    """
    lines = subject.strip().splitlines()
    line = _PR_SUFFIX.sub("", lines[0].strip() if lines else "")
    if bare:
        return Title(line)
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
    return Title(line, tuple(tags), conventional, word, scope, bang, rest.strip(), revert_of)


def _revert_target(text: str) -> str | None:
    if match := _REVERT_QUOTED.match(text):
        return _PR_SUFFIX.sub("", match.group("inner").strip())
    if match := _REVERT_PLAIN.match(text):
        return match.group("inner").strip().strip('"').strip()
    return None
