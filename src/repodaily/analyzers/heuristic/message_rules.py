"""Rule sections that read words: title tags, Conventional Commits, patterns, merge titles, changelogs, PR labels.

Each is a section of the heuristic rule table (``rules.toml``); the whole table
is :class:`~repodaily.analyzers.heuristic.rules.RuleSet`.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Literal

from pydantic import Field, field_validator

from repodaily.analyzers.heuristic.base import FLAGS, Strict, check_regex, check_regexes, normalise_tag
from repodaily.models import ChangeType, Importance

__all__ = [
    "ChangelogRules",
    "ConventionalRules",
    "LabelRule",
    "MergeRules",
    "PatternRule",
    "PullRequestRules",
    "SectionRule",
    "Signal",
    "TagRule",
]

Signal = Literal["security", "breaking", "default_change", "severe", "narrow", "release", "measured"]


class TagRule(Strict):
    """What a ``[Tag]`` in a title (or a Conventional Commits scope) tells."""

    names: list[str] = Field(min_length=1)
    type: ChangeType | None = None
    weight: float = Field(default=3.0, ge=0)
    narrow: bool = False
    max_importance: Importance | None = None
    user_facing: bool | None = None
    security: bool = False


class LabelRule(Strict):
    """What a label on the commit's pull request tells: a maintainer's triage, trusted above the title's words."""

    names: list[str] = Field(min_length=1)
    type: ChangeType | None = None
    weight: float = Field(default=3.5, ge=0)
    signal: Literal["breaking", "security"] | None = None


class PullRequestRules(Strict):
    """How the pull request's own text counts beside the commit's."""

    body_trust: float = Field(
        default=0.5,
        ge=0,
        le=1,
        description="The share of a body pattern's weight the pull request's body casts: templates, checklists.",
    )


class ConventionalRules(Strict):
    weight: float = Field(default=4.0, ge=0)
    types: dict[str, ChangeType]
    scope_types: dict[str, ChangeType] = Field(default_factory=dict)
    #: Capitalised words a project writes before its titles instead of a Conventional type (numpy's `ENH`,
    #: `TST`, `MAINT`), read only in capitals, with or without a colon; capitalised `types` count too.
    upper_words: dict[str, ChangeType] = Field(default_factory=dict)
    #: The emoji a gitmoji title opens with instead of a type word (`✨ Add X`, `:bug: Fix Y`), by emoji and by
    #: shortcode, read as the type it names; before a Conventional prefix the prefix names the type instead.
    gitmoji: dict[str, ChangeType] = Field(default_factory=dict)


class PatternRule(Strict):
    """A regular expression over one part of the message and what its match means."""

    pattern: str
    where: Literal["description", "title", "body"] = "description"
    type: ChangeType | None = None
    weight: float = Field(default=1.0, ge=0)
    max_importance: Importance | None = None
    signal: Signal | None = None
    #: Whether what the match names reaches users whatever the type says (a command's help text is
    #: documentation users read): as a tag's `user_facing`, it overrides the type's default.
    user_facing: bool | None = None
    #: Conventional Commits types whose prefix says what the title's words describe is not the
    #: commit's own doing: under `refactor:`, "`__loader__` is deprecated" is why the code moves.
    unless_conventional: list[ChangeType] = Field(default_factory=list)

    @field_validator("pattern")
    @classmethod
    def _check(cls, value: str) -> str:
        return check_regex(value)

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, FLAGS)


class MergeRules(Strict):
    """Merge commits: which titles hand over to a pull request's title, which only sync branches."""

    pull_request: list[str] = Field(default_factory=list)
    sync: list[str] = Field(default_factory=list)
    not_a_title: list[str] = Field(default_factory=list)
    maintenance: list[str] = Field(default_factory=list)
    maintenance_type: ChangeType = ChangeType.fix
    max_importance: Importance = Importance.medium

    @field_validator("pull_request", "sync", "not_a_title", "maintenance")
    @classmethod
    def _check(cls, value: list[str]) -> list[str]:
        return check_regexes(value)

    @cached_property
    def pull_request_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern, FLAGS) for pattern in self.pull_request]

    @cached_property
    def sync_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern, FLAGS) for pattern in self.sync]

    @cached_property
    def not_a_title_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern, FLAGS) for pattern in self.not_a_title]

    @cached_property
    def maintenance_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern, FLAGS) for pattern in self.maintenance]


class SectionRule(Strict):
    """What a changelog section heading (``### Fixed``) says about the entries under it."""

    names: list[str] = Field(min_length=1)
    type: ChangeType | None = None
    weight: float = Field(default=3.0, ge=0)
    signal: Signal | None = None
    max_importance: Importance | None = None


class ChangelogRules(Strict):
    """How the added lines of a changelog (path classes with ``changelog``) are read.

    An entry sits in the section of the heading above it, unless it opens with a
    ``label`` of its own (``- **breaking:** ...``) that names a section. A news
    fragment (a file of its own per change, whose name says its kind:
    ``changelog/1234.bugfix.rst``) is one entry in the section its name gives, and
    a changeset (``.changeset/brave-lions-sing.md``) one in the section of the
    largest version bump its front matter names (``"pkg": minor``: "Minor Changes").
    """

    entry: str
    heading: str
    label: str = r"(?!)"
    fragment: str = r"(?!)"
    changeset: str = r"(?!)"
    changeset_bump: str = r"(?!)"
    silent_fragments: list[str] = Field(default_factory=list)
    silent_max_importance: Importance | None = None
    sections: dict[str, SectionRule] = Field(default_factory=dict)
    fallback_type: ChangeType = ChangeType.feat
    min_importance: Importance = Importance.medium
    unseen_patterns: list[str] = Field(default_factory=list)
    reworded_share: float = Field(default=0.0, ge=0, lt=1)

    @field_validator("entry")
    @classmethod
    def _check_entry(cls, value: str) -> str:
        return check_regex(value, groups=("text",))

    @field_validator("heading")
    @classmethod
    def _check_heading(cls, value: str) -> str:
        return check_regex(value, groups=("name",))

    @field_validator("label")
    @classmethod
    def _check_label(cls, value: str) -> str:
        return check_regex(value, groups=("name", "text"))

    @field_validator("fragment")
    @classmethod
    def _check_fragment(cls, value: str) -> str:
        return check_regex(value, groups=("name",))

    @field_validator("changeset")
    @classmethod
    def _check_changeset(cls, value: str) -> str:
        return check_regex(value)

    @field_validator("changeset_bump")
    @classmethod
    def _check_changeset_bump(cls, value: str) -> str:
        return check_regex(value, groups=("name",))

    @cached_property
    def fragment_regex(self) -> re.Pattern[str]:
        return re.compile(self.fragment, FLAGS)

    @cached_property
    def changeset_regex(self) -> re.Pattern[str]:
        return re.compile(self.changeset, FLAGS)

    @cached_property
    def changeset_bump_regex(self) -> re.Pattern[str]:
        return re.compile(self.changeset_bump, FLAGS)

    def records_one_change(self, path: str) -> bool:
        """A file of one change that a release gathers into the changelog: a news fragment or a changeset."""
        return self.fragment_regex.search(path) is not None or self.changeset_regex.search(path) is not None

    @cached_property
    def entry_regex(self) -> re.Pattern[str]:
        return re.compile(self.entry, FLAGS)

    @cached_property
    def label_regex(self) -> re.Pattern[str]:
        return re.compile(self.label, FLAGS)

    @cached_property
    def heading_regex(self) -> re.Pattern[str]:
        return re.compile(self.heading, FLAGS)

    @cached_property
    def _section_index(self) -> dict[str, SectionRule]:
        return {normalise_tag(name): rule for rule in self.sections.values() for name in rule.names}

    def section(self, heading: str) -> SectionRule | None:
        """The rule of a heading, read without emoji, numbering or punctuation (``### 🐛 Bug Fixes``)."""
        return self._section_index.get(normalise_tag(re.sub(r"[^\w\s-]", " ", heading)))
