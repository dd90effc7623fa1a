"""The entries a commit adds to a changelog, read like titles.

A project that records a change for its users says more about it than a modest
title does; the entries vote through the same patterns as titles, their section
headings (``### Fixed``) vote for a type, and the first entry is quoted.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repodaily.analyzers.heuristic.evidence import Evidence, apply_pattern
from repodaily.analyzers.heuristic.files import Files
from repodaily.analyzers.heuristic.message_rules import SectionRule
from repodaily.analyzers.heuristic.prose import MAX_QUOTED, bare_text, clip, link_targets_dropped
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.title import MAX_TITLE_CHARS
from repodaily.models import ContextFile, FileStatus

__all__ = ["read_changelog", "read_gathered_fragments", "read_release_notes"]

_RST_ROLE = re.compile(r"\s*:[a-z]+:`[^`]*`")
_RST_LITERAL = re.compile(r"``([^`]+)``")
#: Who wrote the change, closing an entry: "- by :user:`name`", "by @name in #123", "(thanks to @a and @b)".
#: Started only where a run of blanks starts (`(?<!\s)`), the blanks and dashes before "by" taken whole
#: (`(?>...)`, at most 8 dashes): a line of many blanks or dashes costs linear time, not quadratic.
_PERSON = r"(?::[a-z]+:`[^`]+`|@[\w-]+)"
_ATTRIBUTION = re.compile(
    rf"(?<!\s)(?>\s*[-–—,(]{{0,8}}\s*)\b(?:(?:contributed|patch|reported|fixed|implemented)\s+by|by|thanks\s+to)\s+{_PERSON}"
    rf"(?:\s*(?:,|and|&)\s*{_PERSON})*(?:\s+in\s+\S+)?\s*\)?(?=\.?\s*$)",
    re.IGNORECASE,
)
#: A word of an entry, lower case, as :func:`_reworded` compares them.
_WORD = re.compile(r"\w+")
#: An issue or pull request an entry cites, or the person it credits: ``#4652``, ``gh-12``, ``@bitraid``.
_REFERENCE = re.compile(r"(?<![\w&])(#|gh-)\d+\b|(?<!\w)@[\w-]+")
_UNDERLINE = re.compile(r"^\s*([-=~^\"'`*+#])\1{2,}\s*$")
# A bullet that is only a label (`* remove:`, `- **Fixed:**`): the heading of the bullets nested below it.
_LABEL_ONLY = re.compile(r"(\*\*|__)?(?P<name>[A-Za-z][\w -]{1,30}?)(\*\*|__)?:(\*\*|__)?\s*")


@dataclass(frozen=True)
class _Entry:
    text: str
    section: SectionRule | None


def _entries(file: ContextFile, rules: RuleSet) -> list[_Entry]:
    """The entries a changelog file's patch adds: a changeset's or a news fragment's one, or a changelog's new
    bullets."""
    fragment = _changeset_entry(file, rules)
    if fragment is None:
        fragment = _fragment_entry(file, rules)
    return _changelog_entries(file, rules) if fragment is None else fragment


def _changelog_entries(file: ContextFile, rules: RuleSet) -> list[_Entry]:
    """The entries a changelog patch adds, each under the section heading it sits in.

    An entry is an added bullet with its indented continuation lines joined. One
    whose words all appear among the removed lines only rewrites an existing entry
    (markup, wrapping, a move to a release section) and is not new. A bullet that
    is only a label (``* remove:``, ``- Bug fixes``) is no entry: the bullets indented below it are
    entries of the section it names.
    """
    changelog = rules.changelog
    entries: list[_Entry] = []
    removed: list[str] = []
    removed_lines: list[str] = []
    section: SectionRule | None = None
    # The section a label bullet opened, and how deep that bullet sits: it holds the deeper bullets only.
    labelled: tuple[SectionRule | None, int] | None = None
    current: list[str] = []
    previous = ""
    in_hunk = False

    def close() -> None:
        if current:
            text = " ".join(" ".join(current).split())
            label = changelog.label_regex.match(text)
            own = changelog.section(label.group("name")) if label else None
            under = labelled[0] if labelled is not None and labelled[0] is not None else section
            entries.append(_Entry(label.group("text"), own) if label and own else _Entry(text, under))
            current.clear()

    for line in file.text.splitlines():
        if line.startswith("@@"):
            close()
            section, labelled, previous, in_hunk = None, None, "", True
            continue
        sign, content = line[:1], line[1:]
        if not in_hunk:
            continue
        if sign == "-":
            removed.append(bare_text(content))
            removed_lines.append(content.lower())
            continue
        if sign not in ("+", " "):
            continue
        bullet = changelog.entry_regex.match(content)
        depth = len(content) - len(content.lstrip())
        if bullet is not None and labelled is not None and depth <= labelled[1]:
            close()
            labelled = None  # a bullet beside the label's, not below it
        if heading := changelog.heading_regex.match(content):
            close()
            section, labelled = changelog.section(heading.group("name")), None
        elif _UNDERLINE.match(content) and previous.strip():
            close()
            section, labelled = changelog.section(previous), None
        elif bullet is not None and (name := _label_name(bullet.group("text"), rules)) is not None:
            close()
            labelled = (changelog.section(name), depth)
        elif sign == "+" and bullet is not None:
            close()
            current.append(bullet.group("text"))
        elif sign == "+" and current and content[:1].isspace() and content.strip():
            current.append(content.strip())
        else:
            close()
        previous = content
    close()
    removed_text = "".join(removed)
    removed_words = set(_WORD.findall(" ".join(removed_lines)))
    return [
        entry
        for entry in entries
        if (bare := bare_text(entry.text))
        and bare not in removed_text
        and not _reworded(entry.text, removed_words, changelog.reworded_share)
    ]


def _label_name(text: str, rules: RuleSet) -> str | None:
    """The section a bullet that is only a label names, or None when it is an entry.

    A label ends in a colon (``* remove:``, ``- **Fixed:**``), or is a section's
    name alone (``- Bug fixes``, ``- Improvements``): projects that group a
    release's bullets under plain bullets write no colon, and an entry says what
    changed, never only its kind.
    """
    label = _LABEL_ONLY.fullmatch(text)
    if label is not None:
        return label.group("name")
    return text if rules.changelog.section(text) is not None else None


def _reworded(text: str, removed_words: set[str], share: float) -> bool:
    """All but ``share`` of the entry's words stand on the removed lines: an old entry reworded, not a new one.

    The references a release adds to its entries (``(#4652)``, ``@author``) are no words of them.
    """
    words = _WORD.findall(_REFERENCE.sub(" ", text.lower()))
    return bool(words) and sum(word not in removed_words for word in words) <= share * len(words)


def _fragment_entry(file: ContextFile, rules: RuleSet) -> list[_Entry] | None:
    """A news fragment's text as one entry in the section its file name gives; None when it is no fragment.

    A fragment of a silent kind (``trivial``, ``misc``: the changelog shows no
    text for it) is no entry. Nor is one removed or only edited: the change it
    records is an earlier commit's. A kind no section names (``change``) is an
    entry of no section, read by its words.
    """
    named = rules.changelog.fragment_regex.search(file.path)
    if named is None:
        return None
    kind = named.group("name").lower()
    if kind in rules.changelog.silent_fragments or file.status != FileStatus.added:
        return []
    section = rules.changelog.section(kind)
    lines = [line[1:].strip() for line in file.text.splitlines() if line.startswith("+")]
    text = " ".join(" ".join(line for line in lines if line and not _UNDERLINE.match(line)).split())
    return [_Entry(text, section)] if text else []


#: The version bumps a changeset may name, the largest first.
_BUMPS = ("major", "minor", "patch")


def _changeset_entry(file: ContextFile, rules: RuleSet) -> list[_Entry] | None:
    """A changeset's summary as one entry; None when the file is no changeset.

    Changesets, the release tool of many npm packages, keep a file per change: a
    front matter between ``---`` lines naming each package and its semantic version
    bump (``"zustand": minor``), then the summary the release gathers into the
    changelog under "Major Changes", "Minor Changes" or "Patch Changes", the
    section the entry is read in for the largest bump. An empty changeset (no
    package: nothing to release) is no entry, nor is one removed or only edited.
    """
    changelog = rules.changelog
    if changelog.changeset_regex.search(file.path) is None:
        return None
    if file.status != FileStatus.added:
        return []
    lines = [line[1:].strip() for line in file.text.splitlines() if line.startswith("+") and line[1:3] != "++"]
    fences = [index for index, line in enumerate(lines) if line == "---"][:2]
    if len(fences) < 2:
        return []
    named = {
        m.group("name").lower()
        for line in lines[fences[0] + 1 : fences[1]]
        if (m := changelog.changeset_bump_regex.match(line))
    }
    bump = next((level for level in _BUMPS if level in named), None)
    text = " ".join(" ".join(lines[fences[1] + 1 :]).split())
    return [_Entry(text, changelog.section(f"{bump} changes"))] if bump and text else []


def _silent_fragment(facts: Files, rules: RuleSet) -> str | None:
    """The name of a news fragment of a silent kind the commit adds (``changelog/590.trivial.rst``), if any."""
    changelog = rules.changelog
    for file in facts.files:
        named = changelog.fragment_regex.search(file.path) if file.status == FileStatus.added else None
        if named is not None and named.group("name").lower() in changelog.silent_fragments:
            return file.path.rpartition("/")[2]
    return None


def read_gathered_fragments(evidence: Evidence, facts: Files, rules: RuleSet, quote: str) -> None:
    """A release signal from the release tool's own step: news fragments deleted, the changelog given their entries.

    Towncrier (and its kin, changesets' version step) builds a release's notes by gathering the fragments
    into the changelog and deleting them, whatever the commit's title says ("Prepare release version
    8.3.4", a merge of the release branch, a cherry-pick of it). The cite is the heading the
    notes gain (``pytest 8.3.4 (2024-12-01)``), else the changelog's path.
    """
    one_change = rules.changelog.records_one_change
    records = [rules.path_rules(name).changelog for name in facts.classes]
    changelogs = [file for file, record in zip(facts.files, records, strict=True) if record]
    if not any(file.status == FileStatus.deleted and one_change(file.path) for file in changelogs):
        return
    gaining = [f for f in changelogs if f.additions and f.status != FileStatus.deleted and not one_change(f.path)]
    if not gaining:
        return
    evidence.signal("release", quote.format(text=_new_heading(gaining[0]) or gaining[0].path))
    evidence.fired.add("changelog.gathered_fragments")


#: A version as a release's title and its notes write it: ``1.8.2``, ``v2.6.0``, ``0.3``.
_VERSION = re.compile(r"(?<![\w.])v?(\d+(?:\.\d+)+)(?![\w.]*\d)")


def read_release_notes(evidence: Evidence, facts: Files, rules: RuleSet, title: str, quote: str) -> None:
    """A release signal from a commit of only release notes whose new section the version its title names heads.

    Projects that write their notes by hand publish a release with a commit of the changelog alone, often
    with the credits list beside it ("Update NEWS.md and AUTHORS for 1.8.2", "Changes: Document release
    2.6.0"): a release chore, as the commit that bumps the version is, whose entries list fixes earlier
    commits made. The version must stand on an added line outside the entries (a heading, a release's
    opening sentence): an entry that names a version (a dependency raised to it) opens no release, and a
    title that names an old release ("remove a duplicate line of 8.3.0") edits its notes.
    """
    if "release" in evidence.signals or not all(rules.path_rules(facts.classes[i]).changelog for i in facts.counted):
        return
    named = _VERSION.search(title)
    if named is None:
        return
    number = named.group(1)
    version = re.compile(rf"(?<![\w.])v?{re.escape(number)}(?![\w.]*\d)")
    entry = rules.changelog.entry_regex
    for i in facts.counted:
        for line in facts.files[i].text.splitlines():
            content = line[1:]
            added = line[:1] == "+" and content[:1] not in ("+", " ", "\t") and number in content
            if added and not entry.match(content) and version.search(content):
                evidence.signal("release", quote.format(text=clip(content.strip(" #=*"), MAX_QUOTED)))
                evidence.fired.add("changelog.release_notes")
                return


def _new_heading(file: ContextFile) -> str | None:
    """The first heading a changelog patch adds: an added line that an added underline follows."""
    previous = ""
    for line in file.text.splitlines():
        if line.startswith("+") and _UNDERLINE.match(line[1:]) and previous.strip():
            return previous.strip()
        previous = line[1:] if line.startswith("+") and not line.startswith("+++") else ""
    return None


def _plain_entry(text: str) -> str:
    """An entry as a report quotes it: reStructuredText literals as code spans, cross-reference roles and the
    closing credit to its author dropped."""
    text = _RST_ROLE.sub("", _ATTRIBUTION.sub("", text))
    return _RST_LITERAL.sub(r"`\1`", text).strip()


def read_changelog(evidence: Evidence, facts: Files, rules: RuleSet, quote: str) -> None:
    """Votes, caps and signals from the entries the commit adds to a changelog, read like titles.

    Patterns that would hold a change below the changelog's floor (logging, warnings) are skipped:
    an entry's very presence says its users should know. So are the verbs of restructuring
    (``unseen_patterns``): an entry that begins "Replace ``UNSET`` by ``None`` ..." tells what users
    now get, not how the code was rearranged. They read the
    entry's words, not the addresses it links (`…/api/docs/models/…` says nothing about the change).
    """
    floor = rules.changelog.min_importance
    records = [rules.path_rules(name).changelog for name in facts.classes]
    entries = [
        entry for file, record in zip(facts.files, records, strict=True) if record for entry in _entries(file, rules)
    ]
    evidence.changelog = [_plain_entry(entry.text) for entry in entries]
    silent_cap = rules.changelog.silent_max_importance
    if not entries and silent_cap is not None and (silent := _silent_fragment(facts, rules)):
        # Filed as internal by the project itself, below anything its words would claim.
        cite = quote.format(text=silent)
        evidence.caps.append((silent_cap, cite))
        evidence.cap_reasons[cite] = "reason_silent_fragment"
    if all(records[i] for i in facts.counted):
        # A commit that changes nothing but the changelog (and the credits beside it) records changes other
        # commits made: its entries are quoted, and judge nothing (a note on an old security fix fixes nothing
        # today).
        return
    read: set[str] = set()
    # A section votes once, as a pattern does: a release's roll-up of earlier fixes, added beside the
    # commit's own feature, is one "Bug fixes" list, however many entries it holds.
    sections: set[str] = set()
    for entry in entries:
        words = link_targets_dropped(entry.text)[:MAX_TITLE_CHARS]
        for key, rule in rules.patterns.items():
            below_floor = rule.max_importance is not None and rule.max_importance.rank > floor.rank
            unseen = key in rules.changelog.unseen_patterns
            if (
                key in read
                or rule.where == "body"
                or below_floor
                or unseen
                or (match := rule.regex.search(words)) is None
            ):
                continue
            read.add(key)
            apply_pattern(evidence, rule, match, quote)
        if entry.section is not None and entry.section.names[0] not in sections:
            sections.add(entry.section.names[0])
            cite = quote.format(text=entry.section.names[0].title())
            evidence.vote(entry.section.type, entry.section.weight, cite)
            if entry.section.signal is not None:
                evidence.signal(entry.section.signal, cite)
            if entry.section.max_importance is not None:
                evidence.caps.append((entry.section.max_importance, cite))
    if entries:
        evidence.user_facing = True
