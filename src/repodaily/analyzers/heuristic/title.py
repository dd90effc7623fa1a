"""Reading the message: the title and body the rules read, and the parts of the title.

The source has parsed the message (:mod:`repodaily.sources.message`): the input
carries the title without its pull-request suffix, what it reverts and the prose
of the body. Only merge commits differ from their input: a pull-request merge
hands over to the pull request's title, parsed here the same way, and a
branch-sync merge's title says nothing. A title splits into ``[Tag]`` prefixes,
a Conventional Commits prefix, the description and the target of a revert.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.models import AnalysisInput, ChangeType
from repodaily.sources.message import SubjectParts, parse_subject, reverted_title, split_tags

__all__ = ["Title", "effective_message", "parse_title"]

_CONVENTIONAL = re.compile(r"^(?P<word>[A-Za-z][\w-]*)(?:\((?P<scope>[^()]*)\))?(?P<bang>!)?:\s*(?P<rest>.*)$")
#: A Conventional Commits description that reverts a commit it quotes (`fix: Revert "feat: …"`,
#: `fix: revert, "fix: …"`): the commit is the revert, whatever type the prefix gives it.
_QUOTED_REVERT = re.compile(r'^revert\b[\s,:]*"(?P<title>.+)"\s*$', re.IGNORECASE)
#: A capitalised word before the description, with or without a colon ("ENH Add X", "FIX: Y", "MAINT Z"):
#: numpy's commit prefixes and capitalised Conventional types, read as the type they name
#: (`[conventional.upper_words]`).
_UPPER_WORD = re.compile(r"^(?P<word>[A-Z]{2,8})(?P<colon>:?)\s+(?P<rest>\S.*)$")
#: One that reverts a pull request it names by number only (`fix(context): revert PR #4707`,
#: `docs: reverted #2018`): a revert of a change the title does not show.
_NUMBERED_REVERT = re.compile(r"^revert(?:s|ed)?\s+(?:(?:the\s+)?(?:pr|pull request)\s+)?#\d+\s*$", re.IGNORECASE)
#: The title the rules read is cut here. A forge caps a pull request's title at a few hundred characters; a
#: longer subject is no title a rule was written for, and read whole it would let one hostile line cost
#: each pattern time quadratic in its length.
MAX_TITLE_CHARS = 1000
#: A change landed again after its revert (`Reapply "X"`, as git titles the revert of a revert; `Reland X`,
#: `Re-land: X`): the change it lands again, read as that change's own title would be.
_RELAND = re.compile(r"^(?:reapply|re-apply|reland|re-land)\b[\s:]*(?P<change>\S.*)$", re.IGNORECASE)
#: An emoji, or its `:shortcode:`, that opens a title as gitmoji writes them: before a Conventional Commits
#: prefix ("🐛 fix(config): …", ":sparkles: feat: …") decoration, not part of the type word; alone
#: ("✨ Add X", ":bug: Fix Y") the type it names (`[conventional.gitmoji]`).
_LEADING_EMOJI = re.compile(r"^(?:(?P<emoji>[\u2190-\u2BFF\U0001F000-\U0001FAFF])\ufe0f?|:(?P<code>[a-z0-9_+-]+):)\s*")


@dataclass(frozen=True)
class _Message:
    """The title and body the rules read: a pull-request merge hands over to the pull request's title."""

    title: SubjectParts
    body: str  # prose: no sign-off or other attribution lines
    sync_merge: bool = False  # a merge that brings one branch into another: its title says nothing
    maintenance: bool = False  # a sync merge whose branch is a maintained release line (`stable`, `8.1.x`)


def effective_message(item: AnalysisInput, rules: RuleSet) -> _Message:
    """The message as the rules should read it; only merge commits (two parents or more) differ from the input."""
    own = SubjectParts(item.title, item.pr_number, item.revert.title if item.revert else None, item.series)
    if len(item.parents) < 2:
        return _Message(own, item.prose)
    first = item.subject.strip().splitlines()[0].strip() if item.subject.strip() else ""
    merges = rules.merges
    if any(regex.search(first) for regex in merges.pull_request_regexes):
        lines = item.prose.splitlines()
        for index, line in enumerate(lines):
            text = line.strip()
            if text and not any(regex.search(text) for regex in merges.not_a_title_regexes):
                return _Message(parse_subject(text), "\n".join(lines[index + 1 :]).strip())
        return _Message(own, "", sync_merge=True)
    if any(regex.search(first) for regex in merges.sync_regexes):
        return _Message(own, "", sync_merge=True, maintenance=any(r.search(first) for r in merges.maintenance_regexes))
    return _Message(own, item.prose)


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
    bare_word: bool = False  # the type is a capitalised word without a colon ("ENH Add X")

    @property
    def prefix(self) -> str:
        """The type prefix as the title writes it, for texts to quote: `fix(scope)!:`, or `ENH` alone."""
        if self.bare_word:
            return self.conventional_word
        return f"{self.conventional_word}{f'({self.scope})' if self.scope else ''}{'!' if self.bang else ''}:"

    @property
    def shown(self) -> str:
        """What texts quote: the description, or the whole line when the tags carry the meaning (a revert)."""
        return self.subject if self.revert_of is not None else (self.description or self.subject)


def parse_title(parts: SubjectParts, rules: RuleSet, *, bare: bool = False) -> Title:
    """Split a parsed title into tags, a Conventional Commits prefix, the description and a revert target.

    A ``bare`` title (a branch-sync merge) is kept whole for the texts and carries no evidence.
    """
    line = parts.title[:MAX_TITLE_CHARS]
    if bare:
        return Title(line)
    relanded = _RELAND.match(line)
    tags, rest = split_tags(reverted_title(relanded.group("change")) if relanded else line)
    revert_of = parts.reverts
    if revert_of is None and any(r.type == ChangeType.revert for t in tags for r in rules.lookup_tag(t)):
        revert_of = rest
    conventional, word, scope, bang, bare_word = None, "", "", False, False
    emoji = _LEADING_EMOJI.match(rest)
    match = _CONVENTIONAL.match(rest[emoji.end() :] if emoji else rest)
    mapped = rules.conventional.types.get(match.group("word").lower()) if match else None
    if match and mapped is not None:
        word, scope, bang = match.group("word"), (match.group("scope") or "").strip(), bool(match.group("bang"))
        conventional = rules.conventional.scope_types.get(scope.lower(), mapped)
        rest = match.group("rest").strip()
    elif (upper := _UPPER_WORD.match(rest)) and (mapped := _upper_type(upper.group("word"), rules)):
        conventional, word, rest, bare_word = mapped, upper.group("word"), upper.group("rest"), not upper.group("colon")
    elif emoji and (mapped := rules.conventional.gitmoji.get(emoji.group("emoji") or emoji.group("code"))):
        conventional, word, rest, bare_word = mapped, emoji.group().strip(), rest[emoji.end() :], True
    if mapped == ChangeType.revert and revert_of is None:
        # Another word the conventions map to a revert (`undo: "…"`) names its target as `Revert` would.
        revert_of = reverted_title(rest) or rest
    elif mapped is not None and revert_of is None and (quoted := _QUOTED_REVERT.match(rest)):
        revert_of = reverted_title(f'"{quoted.group("title")}"')
    elif mapped is not None and revert_of is None and _NUMBERED_REVERT.match(rest):
        revert_of = ""
    return Title(line, tags, conventional, word, scope, bang, rest.strip(), revert_of, bare_word)


def _upper_type(word: str, rules: RuleSet) -> ChangeType | None:
    """The type a capitalised title word names: an abbreviation of its own (`ENH`, `TST`) or a Conventional type.

    Only words in capitals count: "Fix the parser" is a sentence, "FIX the parser" a prefix.
    """
    lower = word.lower()
    return rules.conventional.upper_words.get(lower) or rules.conventional.types.get(lower)
