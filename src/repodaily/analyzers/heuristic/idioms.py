"""Security from code idioms: the shape of a hunk that hardens a trust boundary, whatever the message says.

Words find the fixes that call themselves security fixes; many do not ("Guard
IPC update-info pickle deserialization behind a flag", "add API key
authorization to /v2 endpoints"). Their diffs do: a guard added beside a
``pickle.loads``, a hard-coded ``trust_remote_code=True`` replaced by the
user's setting. Each ``[security_idioms]`` rule of ``rules.toml`` names such a
shape (:class:`~repodaily.analyzers.heuristic.idiom_rules.SecurityIdiom`); all
of its conditions must hold in one hunk, so a single common word never flags a
commit, and a line the commit only moves (removed in one place, added in
another) counts as neither added nor removed. Tests, docs, examples and CI
are not read, nor a hunk git places inside a test a source file holds (Rust's
``mod tests``): a test that calls ``pickle.loads`` hardens nothing.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from repodaily.analyzers.heuristic.evidence import Evidence
from repodaily.analyzers.heuristic.files import Files
from repodaily.analyzers.heuristic.idiom_rules import SecurityIdiom
from repodaily.analyzers.heuristic.patch import signed_lines
from repodaily.analyzers.heuristic.prose import clip
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.sentences import code_span
from repodaily.analyzers.heuristic.surface.sides import hunks
from repodaily.models import ChangeType, ContextFile, FileStatus

__all__ = ["IdiomHit", "find_idioms", "weigh_idioms"]

#: A quoted line is evidence, not the whole statement: a reader needs its start.
_MAX_QUOTED_CODE = 60
# A hunk inside a test written in a source file — Rust's `mod tests`, a test function or class —
# guards nothing, as a test file does not.
_TEST_SCOPE = re.compile(
    r"^\s*(?:pub(?:\([^)]*\))?\s+)?mod\s+tests?\b|^\s*(?:async\s+)?(?:def|fn)\s+test_|^\s*class\s+Test|^func\s+Test"
)


@dataclass(frozen=True)
class IdiomHit:
    """A rule that a hunk of ``path`` matched, and the cite the evidence quotes."""

    rule: str
    path: str
    cite: str


@dataclass(frozen=True)
class _Hunk:
    added: tuple[str, ...]
    removed: tuple[str, ...]
    moved: frozenset[str]  # its lines that the commit both adds and removes (stripped)
    before: str  # context and removed lines: the hunk as it read before the commit
    after: str  # context and added lines: the hunk as it reads after the commit


def weigh_idioms(evidence: Evidence, facts: Files, rules: RuleSet) -> None:
    """Raise the ``security`` signal with the first idiom the commit's own code matches (words keep theirs).

    Every idiom matched is recorded as fired, so a history's rule rates count each.
    """
    for hit in find_idioms(facts, rules):
        if "security" not in evidence.signals:
            evidence.security_in_code = True
        evidence.signal("security", hit.cite)
        if rules.security_idioms[hit.rule].breaking and "breaking" not in evidence.signals:
            evidence.signal("breaking", hit.cite)
            evidence.inferred_break = True
        evidence.fired.add(f"security_idioms.{hit.rule}")


def find_idioms(facts: Files, rules: RuleSet) -> Iterator[IdiomHit]:
    """Every rule a hunk of the commit's source or build files matches, at most once per rule."""
    if not rules.security_idioms:
        return
    kinds = {"source": None, "build": ChangeType.build, "ci": ChangeType.ci, "config": ChangeType.chore}
    kind_of_type = {wanted: kind for kind, wanted in kinds.items()}
    # A source file, workflow or setting the commit creates hardens nothing that was there
    # (a new release pipeline written safely from the start fixes nothing); a new manifest may still pin one.
    read = [
        (f, kind)
        for f, name in zip(facts.files, facts.classes, strict=True)
        if f.text and (kind := kind_of_type.get(rules.path_rules(name).type, ""))
        if kind == "build" or f.status != FileStatus.added
    ]
    # One scan of all a kind's added and removed lines rules out most rules before any hunk is built.
    lines = {kind: tuple(_changed_text([f for f, k in read if k == kind], sign) for sign in "+-") for kind in kinds}
    # Each kind's text is searched only for the hints of the rules that read that kind.
    present = {
        kind: _present(rules.idiom_hints.get(kind, frozenset()), "\n".join(texts).lower())
        for kind, texts in lines.items()
    }
    candidates = {
        name: rule
        for name, rule in rules.security_idioms.items()
        if any(_hinted(rule, present[kind]) and _may_match(rule, *lines[kind]) for kind in rule.files)
    }
    if not candidates:
        return
    added = {line.strip() for f in facts.files for line in _signed(f.text, "+")}
    removed = {line.strip() for f in facts.files for line in _signed(f.text, "-")}
    hunks = {(f.path, kind): _hunks(f.text, added, removed) for f, kind in read}
    for name, rule in candidates.items():
        for (path, kind), file_hunks in hunks.items():
            if kind not in rule.files:
                continue
            cite = next((c for hunk in file_hunks if (c := _match(rule, hunk)) is not None), None)
            if cite is not None:
                yield IdiomHit(name, path, cite)
                break


#: Below this size a text is searched as it is: its distinct words would save little.
_WORDS_FROM = 4096


def _present(hints: frozenset[str], changed: str) -> frozenset[str]:
    """The hints ``changed`` holds: each looked for once, however many rules share it.

    A hint without whitespace lies within one whitespace-separated word, so it is
    looked for in the text's distinct words, each once, joined by line breaks (which
    no such hint holds): about a third of a large commit's text, where most hints
    are looked for in vain.
    """
    if not changed:
        return frozenset()
    words = "\n".join(set(changed.split())) if len(changed) >= _WORDS_FROM else changed
    within, spaced = _by_spacing(hints)
    return frozenset([hint for hint in within if hint in words] + [hint for hint in spaced if hint in changed])


@functools.lru_cache(maxsize=16)  # one set of hints per kind of file and rule set
def _by_spacing(hints: frozenset[str]) -> tuple[list[str], list[str]]:
    """``hints`` without whitespace (as :meth:`str.split` splits at), and those with some, which may span words."""
    spaced = [hint for hint in hints if len(hint.split()) != 1 or hint.strip() != hint]
    return [hint for hint in hints if hint not in spaced], spaced


def _hinted(rule: SecurityIdiom, present: frozenset[str]) -> bool:
    return not rule.hints or not present.isdisjoint(rule.hints)


def _may_match(rule: SecurityIdiom, added: str, removed: str) -> bool:
    """Whether every ``added`` and ``removed`` pattern of ``rule`` matches some line of the commit at all.

    The shorter side is searched first: most commits fail there, and sooner.
    """
    sides = [(rule.first_scan["added"], added), (rule.first_scan["removed"], removed)]
    if len(removed) < len(added):
        sides.reverse()
    return all(regex.search(text) for regexes, text in sides for regex in regexes)


def _match(rule: SecurityIdiom, hunk: _Hunk) -> str | None:
    """The rule's cite when every condition holds in ``hunk``."""
    checks: dict[str, Callable[[re.Pattern[str]], re.Match[str] | None]] = {
        "added": lambda regex: _changed(regex, hunk.added, hunk.removed, hunk.moved),
        "removed": lambda regex: _changed(regex, hunk.removed, hunk.added, hunk.moved),
        "before": lambda regex: regex.search(hunk.before),
        "after": lambda regex: regex.search(hunk.after),
    }
    found: dict[str, str] = {}
    for condition, check in checks.items():
        for regex in rule.regexes[condition]:
            match = check(regex)
            if match is None:
                return None
            found.setdefault(condition, code_span(clip(match.group(0).strip(), _MAX_QUOTED_CODE)))
    only, not_added = rule.regexes["only"], rule.regexes["not_added"]
    if only and not all(any(regex.search(line) for regex in only) for line in hunk.added if line.strip()):
        return None
    if any(regex.search(line) for regex in not_added for line in hunk.added):
        return None
    return rule.cite.format(**found)


def _changed(
    regex: re.Pattern[str], lines: tuple[str, ...], other_side: tuple[str, ...], moved: frozenset[str]
) -> re.Match[str] | None:
    """A match on one of ``lines`` that neither moves nor stands on the hunk's other side (a reformatted line)."""
    for line in lines:
        match = regex.search(line)
        if match and line.strip() not in moved and not any(match.group(0).strip() in other for other in other_side):
            return match
    return None


def _signed(text: str, sign: str) -> Iterator[str]:
    return (line[1:] for line in signed_lines(text, sign))


def _changed_text(files: list[ContextFile], sign: str) -> str:
    """The lines of ``files`` that ``sign`` begins, without it, one text: :func:`_signed`'s lines joined.

    Every "\\n" of the joined lines stands between two of them, each starting with ``sign``,
    so one replace takes the signs off every line at once.
    """
    joined = "\n".join("\n".join(lines) for f in files if (lines := signed_lines(f.text, sign)))
    return joined[1:].replace("\n" + sign, "\n")


def _hunks(text: str, added: set[str], removed: set[str]) -> list[_Hunk]:
    """The hunks of a patch: the lines each adds and removes, those the commit only moves, and its two sides.

    A hunk git places inside a test (its header names ``mod tests``, a ``test_``
    function or a ``Test`` class) is left out, as test files are.
    """
    found: list[_Hunk] = []
    for context, lines in hunks(text):
        if _TEST_SCOPE.match(context):
            continue
        plus = tuple(line[1:] for line in lines if line.startswith("+"))
        minus = tuple(line[1:] for line in lines if line.startswith("-"))
        found.append(
            _Hunk(
                added=plus,
                removed=minus,
                moved=frozenset(line.strip() for line in plus if line.strip() in removed)
                | frozenset(line.strip() for line in minus if line.strip() in added),
                before="\n".join(line[1:] for line in lines if not line.startswith("+")),
                after="\n".join(line[1:] for line in lines if not line.startswith("-")),
            )
        )
    return found
