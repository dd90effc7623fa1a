"""The heuristic analyzer's rules: a strict model of ``heuristic_rules.toml``.

The rules are data so that a repository's own conventions (its tags, its
paths, its core, its major dependencies) can be taught to the analyzer from
configuration without touching code. :meth:`RuleSet.load` reads the packaged
table and merges an extension over it; the model rejects unknown keys, bad
regular expressions and unknown placeholders when the rules are loaded, never
halfway through a run. :func:`load_conventions` reads a repository's
``conventions`` setting (a shipped preset under ``conventions/``, a TOML file, or
an inline table) into such an extension.
"""

from __future__ import annotations

import hashlib
import json
import re
import string
import tomllib
from collections.abc import Mapping
from functools import cache, cached_property
from importlib import resources
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from repodaily.errors import ConfigError
from repodaily.models import ChangeType, FileCategory, Importance
from repodaily.tables import describe, merge, read_toml

__all__ = [
    "Audiences",
    "ChangelogRules",
    "ConventionalRules",
    "CoreRules",
    "DecisionRules",
    "DependencyRules",
    "DiffRules",
    "MergeRules",
    "Messages",
    "MovesRules",
    "PathClass",
    "PatternRule",
    "ReleaseRules",
    "RemovedDefinitionRules",
    "RuleSet",
    "SectionRule",
    "Signal",
    "TagRule",
    "available_conventions",
    "load_conventions",
    "normalise_tag",
]

RULES_FILE = "heuristic_rules.toml"
CONVENTIONS_DIR = "conventions"

Signal = Literal["security", "breaking", "default_change", "severe", "narrow", "release", "measured"]
Audience = Literal["users", "operators", "developers"]

_FLAGS = re.IGNORECASE | re.MULTILINE


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


def _compile(pattern: str, *, groups: tuple[str, ...] = ()) -> str:
    """Check a regular expression when the rules load, so a typo is a config error."""
    try:
        compiled = re.compile(pattern, _FLAGS)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
    missing = [name for name in groups if name not in compiled.groupindex]
    if missing:
        raise ValueError(f"regular expression {pattern!r} lacks the named group(s) {', '.join(missing)}")
    return pattern


def normalise_tag(text: str) -> str:
    """``[Bug-Fix]``, ``[bug_fix]`` and ``[BUG FIX]`` are one tag: ``bug fix``."""
    return " ".join(text.lower().replace("-", " ").replace("_", " ").split())


def _glob_regex(glob: str) -> re.Pattern[str]:
    """``*`` stays in one directory, ``**`` spans any; a glob without ``/`` matches the file name."""
    parts: list[str] = []
    index = 0
    while index < len(glob):
        if glob.startswith("**/", index):
            parts.append("(?:.*/)?")
            index += 3
        elif glob.startswith("**", index):
            parts.append(".*")
            index += 2
        elif glob[index] == "*":
            parts.append("[^/]*")
            index += 1
        elif glob[index] == "?":
            parts.append("[^/]")
            index += 1
        else:
            parts.append(re.escape(glob[index]))
            index += 1
    prefix = "" if "/" in glob else "(?:.*/)?"
    return re.compile(prefix + "".join(parts) + r"\Z", re.IGNORECASE)


class TagRule(_Strict):
    """What a ``[Tag]`` in a title (or a Conventional Commits scope) tells."""

    names: list[str] = Field(min_length=1)
    type: ChangeType | None = None
    weight: float = Field(default=3.0, ge=0)
    narrow: bool = False
    max_importance: Importance | None = None
    user_facing: bool | None = None
    security: bool = False


class ConventionalRules(_Strict):
    weight: float = Field(default=4.0, ge=0)
    types: dict[str, ChangeType]
    scope_types: dict[str, ChangeType] = Field(default_factory=dict)


class PatternRule(_Strict):
    """A regular expression over one part of the message and what its match means."""

    pattern: str
    where: Literal["description", "title", "body"] = "description"
    type: ChangeType | None = None
    weight: float = Field(default=1.0, ge=0)
    max_importance: Importance | None = None
    signal: Signal | None = None

    @field_validator("pattern")
    @classmethod
    def _check(cls, value: str) -> str:
        return _compile(value)

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, _FLAGS)


class PathClass(_Strict):
    """A class of files by path; when a commit changes only such files, ``type`` decides.

    ``changelog`` files are read for the entries a commit adds (see :class:`ChangelogRules`).
    """

    globs: list[str] = Field(default_factory=list)
    type: ChangeType | None = None
    max_importance: Importance | None = None
    user_facing: bool = False
    ignorable: bool = False
    core: bool = False
    changelog: bool = False

    @cached_property
    def _regexes(self) -> list[re.Pattern[str]]:
        return [_glob_regex(glob) for glob in self.globs]

    def matches(self, path: str) -> bool:
        return any(regex.match(path) for regex in self._regexes)


class CoreRules(_Strict):
    """When a change to core code (path classes with ``core``) is large enough to carry regression risk."""

    min_lines: int = Field(default=500, ge=1)
    types: list[ChangeType] = Field(default_factory=lambda: [ChangeType.refactor, ChangeType.chore])


class DependencyRules(_Strict):
    major: list[str]
    name_filler_words: list[str] = Field(default_factory=list)
    version_line: str
    title: list[str] = Field(default_factory=list)
    major_weight: float = Field(default=4.0, ge=0)
    routine_weight: float = Field(default=2.0, ge=0)
    manifests: list[str] = Field(default_factory=list)
    not_shipped: list[str] = Field(default_factory=list)
    dev_scopes: list[str] = Field(default_factory=list)
    semver_major_importance: Importance = Importance.medium

    @cached_property
    def _manifest_regexes(self) -> list[re.Pattern[str]]:
        return [_glob_regex(glob) for glob in self.manifests]

    @cached_property
    def _not_shipped_regexes(self) -> list[re.Pattern[str]]:
        return [_glob_regex(glob) for glob in self.not_shipped]

    def ships(self, path: str) -> bool:
        """A manifest declaring what users of the released package install (not a website's or a test's)."""
        return any(r.match(path) for r in self._manifest_regexes) and not any(
            r.match(path) for r in self._not_shipped_regexes
        )

    @field_validator("version_line")
    @classmethod
    def _check_line(cls, value: str) -> str:
        return _compile(value, groups=("name", "version"))

    @field_validator("title")
    @classmethod
    def _check_title(cls, value: list[str]) -> list[str]:
        return [_compile(pattern, groups=("name", "new")) for pattern in value]

    @cached_property
    def line_regex(self) -> re.Pattern[str]:
        return re.compile(self.version_line, _FLAGS)

    @cached_property
    def title_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern, _FLAGS) for pattern in self.title]

    def words(self, name: str) -> list[str]:
        return [word for word in re.split(r"[-_./\s]+", name.lower()) if word]

    def is_major(self, name: str) -> bool:
        """``torch`` and ``TORCH_SUPPORTED_VERSION`` are major; ``torch-tensorrt`` is not."""
        words = self.words(name)
        majors = {m.lower() for m in self.major}
        fillers = {w.lower() for w in self.name_filler_words}
        return bool(words) and words[0] in majors and all(w in fillers or w in majors for w in words[1:])

    def is_filler(self, name: str) -> bool:
        """A lock file's bare ``version = ...`` line names no dependency."""
        words = self.words(name)
        return not words or words[0] in {w.lower() for w in self.name_filler_words}


class RemovedDefinitionRules(_Strict):
    patterns: list[str] = Field(default_factory=list)
    type: ChangeType | None = ChangeType.feat
    weight: float = Field(default=5.0, ge=0)

    @field_validator("patterns")
    @classmethod
    def _check(cls, value: list[str]) -> list[str]:
        return [_compile(pattern, groups=("name",)) for pattern in value]

    @cached_property
    def regexes(self) -> list[re.Pattern[str]]:
        # Definitions are case-sensitive: `--Flag` and `--flag` are different flags.
        return [re.compile(pattern) for pattern in self.patterns]


def _compile_all(patterns: list[str], *, groups: tuple[str, ...] = ()) -> list[str]:
    return [_compile(pattern, groups=groups) for pattern in patterns]


class MergeRules(_Strict):
    """Merge commits: which titles hand over to a pull request's title, which only sync branches."""

    pull_request: list[str] = Field(default_factory=list)
    sync: list[str] = Field(default_factory=list)
    not_a_title: list[str] = Field(default_factory=list)
    max_importance: Importance = Importance.medium

    @field_validator("pull_request", "sync", "not_a_title")
    @classmethod
    def _check(cls, value: list[str]) -> list[str]:
        return _compile_all(value)

    @cached_property
    def pull_request_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern, _FLAGS) for pattern in self.pull_request]

    @cached_property
    def sync_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern, _FLAGS) for pattern in self.sync]

    @cached_property
    def not_a_title_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern, _FLAGS) for pattern in self.not_a_title]


class SectionRule(_Strict):
    """What a changelog section heading (``### Fixed``) says about the entries under it."""

    names: list[str] = Field(min_length=1)
    type: ChangeType | None = None
    weight: float = Field(default=3.0, ge=0)
    signal: Signal | None = None


class ChangelogRules(_Strict):
    """How the added lines of a changelog (path classes with ``changelog``) are read."""

    entry: str
    heading: str
    sections: dict[str, SectionRule] = Field(default_factory=dict)
    fallback_type: ChangeType = ChangeType.feat
    min_importance: Importance = Importance.medium

    @field_validator("entry")
    @classmethod
    def _check_entry(cls, value: str) -> str:
        return _compile(value, groups=("text",))

    @field_validator("heading")
    @classmethod
    def _check_heading(cls, value: str) -> str:
        return _compile(value, groups=("name",))

    @cached_property
    def entry_regex(self) -> re.Pattern[str]:
        return re.compile(self.entry, _FLAGS)

    @cached_property
    def heading_regex(self) -> re.Pattern[str]:
        return re.compile(self.heading, _FLAGS)

    @cached_property
    def _section_index(self) -> dict[str, SectionRule]:
        return {normalise_tag(name): rule for rule in self.sections.values() for name in rule.names}

    def section(self, heading: str) -> SectionRule | None:
        """The rule of a heading, read without emoji, numbering or punctuation (``### 🐛 Bug Fixes``)."""
        return self._section_index.get(normalise_tag(re.sub(r"[^\w\s-]", " ", heading)))


class ReleaseRules(_Strict):
    """A release chore may touch source files only to write the version (``__version__ = "3.1.0"``)."""

    max_source_lines: int = Field(default=6, ge=0)


class DiffRules(_Strict):
    """What the patch says about the type when the message says nothing.

    ``new_names`` find public names a commit defines (named group ``name``); a
    name the commit also removes was moved, not added, and names count only when
    the source grows by ``new_names_min_growth`` added lines per removed one. ``conditions`` find
    control-flow lines; a commit that changes them (removed and added) and adds
    a test (``test_definitions``) corrects behaviour.
    """

    new_names: list[str] = Field(default_factory=list)
    new_names_type: ChangeType = ChangeType.feat
    new_names_weight: float = Field(default=1.5, ge=0)
    new_names_min_growth: float = Field(default=2.0, ge=0)
    conditions: str = r"(?!)"
    test_definitions: list[str] = Field(default_factory=list)
    condition_type: ChangeType = ChangeType.fix
    condition_weight: float = Field(default=1.0, ge=0)

    @field_validator("new_names")
    @classmethod
    def _check_names(cls, value: list[str]) -> list[str]:
        return _compile_all(value, groups=("name",))

    @field_validator("conditions")
    @classmethod
    def _check_conditions(cls, value: str) -> str:
        return _compile(value)

    @field_validator("test_definitions")
    @classmethod
    def _check_tests(cls, value: list[str]) -> list[str]:
        return _compile_all(value)

    @cached_property
    def name_regexes(self) -> list[re.Pattern[str]]:
        # Definitions are case-sensitive, like removed ones.
        return [re.compile(pattern) for pattern in self.new_names]

    @cached_property
    def condition_regex(self) -> re.Pattern[str]:
        return re.compile(self.conditions)

    @cached_property
    def test_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern) for pattern in self.test_definitions]


class MovesRules(_Strict):
    max_lines_per_moved_file: int = Field(default=20, ge=0)
    max_lines_per_other_file: int = Field(default=4, ge=0)


class DecisionRules(_Strict):
    tie_order: list[ChangeType]
    fallback_type: ChangeType = ChangeType.chore
    secondary_min_weight: float = Field(default=2.0, ge=0)
    user_facing_types: list[ChangeType] = Field(default_factory=list)

    @field_validator("tie_order")
    @classmethod
    def _every_type(cls, value: list[ChangeType]) -> list[ChangeType]:
        missing = [t.value for t in ChangeType if t not in value]
        if missing or len(set(value)) != len(value):
            raise ValueError(f"must list every change type once (missing: {', '.join(missing) or 'none'})")
        return value


class Audiences(_Strict):
    breaking: Audience
    security: Audience
    major_dependency: Audience
    default_change: Audience
    revert: Audience
    feat: Audience
    fix: Audience
    perf: Audience
    build: Audience
    other: Audience


# Every placeholder a message template may use; anything else is a typo.
_PLACEHOLDERS = frozenset(
    [
        "text",
        "title",
        "path",
        "count",
        "additions",
        "deletions",
        "old",
        "new",
        "paths",
        "total",
        "rest",
        "names",
        "changes",
        "name",
        "match",
        "evidence",
        "quoted",
        "area",
        "label",
        "scope",
    ]
)


class Messages(_Strict):
    """The sentences of one language; the analyzer fills their placeholders."""

    sentence_end: str
    list_sep: str
    clause_sep: str
    quote: str
    more_files: str
    more_items: str
    change_none: str
    change_one: str
    change_many: str
    move_one: str
    move_many: str
    move_refs: str
    files_added: str
    files_modified: str
    files_deleted: str
    files_moved: str
    lines: str
    removed_definitions: str
    dependency_changes: str
    dependency_change: str
    dependency_new: str
    breaking_footer: str
    changelog_line: str
    body_line: str
    reason_security: str
    reason_security_docs: str
    reason_breaking: str
    reason_major_dependency: str
    reason_dependency: str
    reason_default_change: str
    reason_severe: str
    reason_measured: str
    reason_revert: str
    reason_revert_unknown: str
    reason_moves: str
    reason_only_class: str
    reason_narrow: str
    reason_core: str
    reason_cap: str
    reason_source: str
    reason_source_no_evidence: str
    reason_diff_names: str
    reason_diff_fix: str
    reason_changelog: str
    reason_release: str
    reason_sync_merge: str
    evidence_breaking_footer: str
    evidence_bang: str
    evidence_match: str
    rec_breaking_names: str
    rec_breaking: str
    rec_security: str
    rec_major_dependency: str
    rec_default_change: str
    rec_revert: str
    rec_feat: str
    rec_fix: str
    rec_perf: str
    rec_build: str
    rec_other: str
    insight_security: str
    insight_breaking: str
    insight_dependency: str
    risk_breaking: str
    risk_dependency: str
    path_labels: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_placeholders(self) -> Messages:
        for key, template in self:
            if not isinstance(template, str):
                continue
            try:
                fields = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
            except ValueError as exc:
                raise ValueError(f"{key}: malformed template: {exc}") from None
            unknown = sorted(name for name in fields if name not in _PLACEHOLDERS)
            if unknown:
                raise ValueError(f"{key}: unknown placeholder(s) {', '.join(unknown)}")
        return self

    def render(self, key: str, **values: object) -> str:
        template: str = getattr(self, key)
        return template.format(**values)


class RuleSet(_Strict):
    """All rules of the heuristic analyzer; build it with :meth:`load`."""

    version: str
    importance: dict[ChangeType, Importance]
    decision: DecisionRules
    moves: MovesRules = Field(default_factory=MovesRules)
    tags: dict[str, TagRule] = Field(default_factory=dict)
    conventional: ConventionalRules
    patterns: dict[str, PatternRule] = Field(default_factory=dict)
    paths: dict[str, PathClass] = Field(default_factory=dict)
    core: CoreRules = Field(default_factory=CoreRules)
    dependencies: DependencyRules
    removed_definitions: RemovedDefinitionRules = Field(default_factory=RemovedDefinitionRules)
    merges: MergeRules = Field(default_factory=MergeRules)
    changelog: ChangelogRules
    release: ReleaseRules = Field(default_factory=ReleaseRules)
    diff: DiffRules = Field(default_factory=DiffRules)
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

        ``extra`` has the shape of ``heuristic_rules.toml`` (for instance a
        repository's conventions): tables merge key by key, so
        ``{"tags": {"kv": {"names": ["kv cache"], "narrow": True}}}`` adds one
        tag; any other value replaces the default one, so a list given here is
        the whole new list. Raises :class:`~repodaily.errors.ConfigError` naming
        the offending key and ``source``, where ``extra`` came from.
        """
        data = _packaged_table()
        if extra:
            data = merge(data, extra)
            source = source or "heuristic rules (with extension)"
        else:
            source = f"packaged {RULES_FILE}"
        try:
            return cls.model_validate(data)
        except ValidationError as exc:
            raise ConfigError(describe(exc, source)) from None

    @cached_property
    def fingerprint(self) -> str:
        """``<version>-<hash>``: changes with any rule, so cached analyses are redone."""
        canonical = json.dumps(self.model_dump(mode="json"), sort_keys=True, ensure_ascii=False)
        return f"{self.version}-{hashlib.sha256(canonical.encode()).hexdigest()[:10]}"

    @cached_property
    def _tag_index(self) -> dict[str, TagRule]:
        # Later tables win, so an extension can take a name over from a default tag.
        return {normalise_tag(name): rule for rule in self.tags.values() for name in rule.names}

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

    def path_class(self, path: str, category: FileCategory) -> str:
        """The name of the class a file belongs to (see the ``[paths]`` tables)."""
        for name, path_class in self.paths.items():
            if path_class.matches(path):
                return name
        return category.value if category.value in self.paths else "source"

    def path_rules(self, name: str) -> PathClass:
        return self.paths.get(name) or PathClass(user_facing=True)


@cache
def _packaged_table() -> dict[str, Any]:
    # Parsed once; `_merge` copies what it changes, so the cached table is never modified.
    text = resources.files("repodaily.analyzers").joinpath(RULES_FILE).read_text(encoding="utf-8")
    return tomllib.loads(text)


def available_conventions() -> list[str]:
    """Names of the shipped conventions presets, e.g. ``["vllm"]``."""
    folder = resources.files("repodaily.analyzers").joinpath(CONVENTIONS_DIR)
    return sorted(entry.name.removesuffix(".toml") for entry in folder.iterdir() if entry.name.endswith(".toml"))


def load_conventions(spec: str | Mapping[str, Any]) -> dict[str, Any]:
    """The rule-table extension a repository's ``conventions`` setting stands for, checked.

    A name of :func:`available_conventions` is that shipped preset; another
    string containing ``/`` or ending in ``.toml`` is a TOML file, relative to the
    working directory; a table is the extension itself. The result has been
    merged and validated once, so a mistake is a :class:`~repodaily.errors.ConfigError`
    naming the preset, file or inline table and the key, before any commit is read.
    """
    table, source = _conventions_table(spec)
    RuleSet.load(table, source=source)
    return table


def _conventions_table(spec: str | Mapping[str, Any]) -> tuple[dict[str, Any], str]:
    if isinstance(spec, Mapping):
        return dict(spec), "inline conventions"
    presets = available_conventions()
    if spec in presets:
        path = f"{CONVENTIONS_DIR}/{spec}.toml"
        text = resources.files("repodaily.analyzers").joinpath(path).read_text(encoding="utf-8")
        return tomllib.loads(text), f"conventions preset {spec!r} ({path})"
    if "/" not in spec and "\\" not in spec and not spec.endswith(".toml"):
        known = ", ".join(presets) or "none"
        raise ConfigError(f"unknown conventions preset {spec!r} (shipped: {known}; or give a path to a .toml file)")
    source = f"conventions file {spec}"
    return read_toml(Path(spec), source), source
