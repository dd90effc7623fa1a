"""The heuristic analyzer's rules: a strict model of ``rules.toml``.

The rules are data so that a repository's own conventions (its tags, its
paths, its core, its major dependencies) can be taught to the analyzer from
configuration without touching code. :meth:`RuleSet.load` reads the packaged
table and merges an extension over it; the model rejects unknown keys, bad
regular expressions and unknown placeholders when the rules are loaded, never
halfway through a run. The sections that read a commit are modelled in
:mod:`~repodaily.analyzers.heuristic.message_rules`,
:mod:`~repodaily.analyzers.heuristic.diff_rules` and
:mod:`~repodaily.analyzers.heuristic.idiom_rules`, its sentences in
:mod:`~repodaily.analyzers.heuristic.sentences`, the decision's own sections
here; :func:`~repodaily.analyzers.heuristic.conventions.load_conventions` reads a
repository's ``conventions`` setting into such an extension.
"""

from __future__ import annotations

import json
import tomllib
from collections.abc import Mapping
from functools import cache, cached_property
from importlib import resources
from typing import Any, Literal

from pydantic import Field, ValidationError, field_validator

from repodaily.analyzers.heuristic.base import Strict, normalise_tag
from repodaily.analyzers.heuristic.diff_rules import (
    CoreRules,
    DependencyRules,
    DiffRules,
    MovesRules,
    PathClassRules,
    PlatformPathRules,
    ReleaseRules,
    RemovedDefinitionRules,
    SurfaceRule,
)
from repodaily.analyzers.heuristic.idiom_rules import SecurityIdiom
from repodaily.analyzers.heuristic.message_rules import (
    ChangelogRules,
    ConventionalRules,
    LabelRule,
    MergeRules,
    PatternRule,
    PullRequestRules,
    TagRule,
)
from repodaily.analyzers.heuristic.revision_rules import RevisionPinRules
from repodaily.analyzers.heuristic.sentences import Messages
from repodaily.digests import digest
from repodaily.errors import ConfigError
from repodaily.models import ChangeType, Importance
from repodaily.paths import PathTable, packaged_path_classes
from repodaily.tables import describe, merge

__all__ = ["Audiences", "DecisionRules", "RuleSet"]

RULES_FILE = "rules.toml"

Audience = Literal["users", "operators", "developers"]


class DecisionRules(Strict):
    tie_order: list[ChangeType]
    fallback_type: ChangeType = ChangeType.chore
    secondary_min_weight: float = Field(default=2.0, ge=0)
    user_facing_types: list[ChangeType] = Field(default_factory=list)
    removed_modules_high: int = Field(default=4, ge=1)

    @field_validator("tie_order")
    @classmethod
    def _every_type(cls, value: list[ChangeType]) -> list[ChangeType]:
        missing = [t.value for t in ChangeType if t not in value]
        if missing or len(set(value)) != len(value):
            raise ValueError(f"must list every change type once (missing: {', '.join(missing) or 'none'})")
        return value


class Audiences(Strict):
    breaking: Audience
    security: Audience
    major_dependency: Audience
    default_change: Audience
    build: Audience


class RuleSet(Strict):
    """All rules of the heuristic analyzer; build it with :meth:`load`."""

    importance: dict[ChangeType, Importance]
    decision: DecisionRules
    moves: MovesRules = Field(default_factory=MovesRules)
    platform_paths: PlatformPathRules = Field(default_factory=PlatformPathRules)
    model_paths: PlatformPathRules = Field(default_factory=PlatformPathRules)
    tags: dict[str, TagRule] = Field(default_factory=dict)
    conventional: ConventionalRules
    patterns: dict[str, PatternRule] = Field(default_factory=dict)
    labels: dict[str, LabelRule] = Field(default_factory=dict)
    pull_request: PullRequestRules = Field(default_factory=PullRequestRules)
    paths: dict[str, PathClassRules] = Field(default_factory=dict)
    core: CoreRules = Field(default_factory=CoreRules)
    dependencies: DependencyRules
    removed_definitions: RemovedDefinitionRules = Field(default_factory=RemovedDefinitionRules)
    merges: MergeRules = Field(default_factory=MergeRules)
    changelog: ChangelogRules
    release: ReleaseRules = Field(default_factory=ReleaseRules)
    diff: DiffRules = Field(default_factory=DiffRules)
    surface: dict[str, SurfaceRule] = Field(default_factory=dict)
    security_idioms: dict[str, SecurityIdiom] = Field(default_factory=dict)
    revision_pins: RevisionPinRules = Field(default_factory=RevisionPinRules)
    audiences: Audiences
    messages: dict[str, Messages] = Field(min_length=1)

    @field_validator("importance")
    @classmethod
    def _every_type(cls, value: dict[ChangeType, Importance]) -> dict[ChangeType, Importance]:
        missing = [t.value for t in ChangeType if t not in value]
        if missing:
            raise ValueError(f"no importance for {', '.join(missing)}")
        return value

    @classmethod
    def load(cls, extra: Mapping[str, Any] | None = None, *, source: str | None = None) -> RuleSet:
        """The packaged rules with ``extra`` merged over them.

        ``extra`` has the shape of ``rules.toml`` (for instance a
        repository's conventions): tables merge key by key, so
        ``{"tags": {"kv": {"names": ["kv cache"], "narrow": True}}}`` adds one
        tag; any other value replaces the default one, so a list given here is
        the whole new list. Raises :class:`~repodaily.errors.ConfigError` naming
        the offending key and ``source``, where ``extra`` came from.
        """
        data = _packaged_rules()
        if extra:
            data = merge(data, extra)
            source = source or "heuristic rules (with extension)"
        else:
            source = f"packaged heuristic {RULES_FILE}"
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(describe(exc, source)) from None

    @cached_property
    def fingerprint(self) -> str:
        """Short hash of the merged table: the packaged rules and path classes, and any conventions over them.

        It hashes what the rules *are* once loaded, so a conventions file or inline
        table counts as much as ``rules.toml``; the code that applies them is
        hashed beside it (:mod:`~repodaily.analyzers.heuristic.source`).
        """
        return digest({"rules": json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)})

    @cached_property
    def _tag_index(self) -> dict[str, TagRule]:
        # Later tables win, so an extension can take a name over from a default tag.
        return {normalise_tag(name): rule for rule in self.tags.values() for name in rule.names}

    def tag_name(self, rule: TagRule) -> str:
        """The name of ``rule``'s table under ``[tags]``, found by identity (an id would not survive a copy)."""
        return next(name for name, candidate in self.tags.items() if candidate is rule)

    def lookup_tag(self, text: str) -> list[TagRule]:
        """Rules for one tag: by its whole name, else word by word (``[CPU Backend]``)."""
        key = normalise_tag(text)
        if key in self._tag_index:
            return [self._tag_index[key]]
        found: list[TagRule] = []
        for word in key.split():
            rule = self._tag_index.get(word)
            if rule is not None and rule not in found:
                found.append(rule)
        return found

    @cached_property
    def _label_index(self) -> dict[str, tuple[str, LabelRule]]:
        # Later tables win, as for tags: a repository's row can take a label over from a packaged one.
        return {normalise_tag(name): (key, rule) for key, rule in self.labels.items() for name in rule.names}

    def lookup_label(self, label: str) -> tuple[str, LabelRule] | None:
        """The ``[labels]`` row (its key, its rule) naming a pull-request label, read as a tag is read."""
        return self._label_index.get(normalise_tag(label))

    @cached_property
    def idiom_hints(self) -> dict[str, frozenset[str]]:
        """For each kind of file the ``[security_idioms]`` read, the hints of the rules that read it.

        A commit's changed lines are searched for each hint once; gathered here, once per rule set.
        """
        kinds = {kind for rule in self.security_idioms.values() for kind in rule.files}
        return {
            kind: frozenset(hint for rule in self.security_idioms.values() if kind in rule.files for hint in rule.hints)
            for kind in kinds
        }

    @cached_property
    def path_table(self) -> PathTable:
        """The package's path classes as this rule set extends them, for the analyzer and the context stage."""
        return PathTable(self.paths)

    def path_rules(self, name: str) -> PathClassRules:
        return self.paths.get(name) or PathClassRules(user_facing=True)


@cache
def _packaged_rules() -> dict[str, Any]:
    """``rules.toml`` over the package's path table, whose classes its ``[paths]`` tables describe.

    Parsed once; `merge` copies what it changes, so the cached table is never modified.
    """
    text = resources.files("repodaily.analyzers.heuristic").joinpath(RULES_FILE).read_text(encoding="utf-8")
    return merge({"paths": packaged_path_classes()}, tomllib.loads(text))
