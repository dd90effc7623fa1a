"""Rule sections that read files and patches: path classes, core code, dependencies, definitions, moves, surface.

Each is a section of the heuristic rule table (``rules.toml``); the whole table
is :class:`~repodaily.analyzers.heuristic.rules.RuleSet`.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from repodaily.analyzers.heuristic.base import FLAGS, Strict, check_regex, check_regexes
from repodaily.analyzers.heuristic.message_rules import PatternRule
from repodaily.models import ChangeType, Importance, SurfaceAction, SurfaceChange, SurfaceKind
from repodaily.paths import Globs, PathClass, check_globs

__all__ = [
    "CoreRules",
    "DependencyRules",
    "DiffRules",
    "MovesRules",
    "PathClassRules",
    "PlatformPathRules",
    "ReleaseRules",
    "RemovedDefinitionRules",
    "RepeatedEdit",
    "SurfaceRule",
    "TestsTitle",
    "UnlessTitle",
]


class PathClassRules(PathClass):
    """What a class of files means for a commit; when a commit changes only such files, ``type`` decides.

    The class's globs and category come from the package's path table
    (``repodaily/paths.toml``); a repository's conventions may set them here
    too, which is how they extend that table for the analyzer and the context
    stage alike.
    ``changelog`` files are read for the entries a commit adds (see :class:`ChangelogRules`).
    ``may_be`` are types the message may still give such a commit, for files that
    are no kind of change of their own (a fix to an example is a fix).
    """

    type: ChangeType | None = None
    may_be: list[ChangeType] = Field(
        default_factory=list,
        description="Types the commit's words may give these files instead of `type` (an example's prose is docs).",
    )
    max_importance: Importance | None = None
    fix_importance: Importance | None = Field(
        default=None,
        description="At least this importance when a commit of only these files says it fixes something: "
        "a fix delivered in the build reaches whoever installs.",
    )
    user_facing: bool = False
    ignorable: bool = False
    core: bool = False
    changelog: bool = False


class UnlessTitle(Strict):
    """A rule a title can excuse: it says what the diff cannot show."""

    unless_title: str | None = Field(
        default=None, description="A title that says what the diff cannot show: then the rule does not apply."
    )

    @field_validator("unless_title")
    @classmethod
    def _check_title(cls, value: str | None) -> str | None:
        return None if value is None else check_regex(value)

    @cached_property
    def unless_title_regex(self) -> re.Pattern[str] | None:
        return None if self.unless_title is None else re.compile(self.unless_title, FLAGS)


class CoreRules(UnlessTitle):
    """When a change to core code (path classes with ``core``) is large enough to carry regression risk.

    ``unless_title`` excuses only a change that reaches across ``min_source_files``
    modules: a title that says it only annotates or types the code.
    """

    min_lines: int = Field(default=500, ge=1)
    types: list[ChangeType] = Field(default_factory=lambda: [ChangeType.refactor, ChangeType.chore])
    min_source_files: int = Field(
        default=0,
        ge=0,
        description="A change of at least this many source files (path classes without a type) and `min_lines` "
        "lines among them reaches across the package, core code however the project lays it out; 0: off.",
    )


def semver_incompatible(old: str, new: str) -> bool:
    """The versions differ up to the first non-zero number of the old one (``0.11 -> 0.12``, ``1.4 -> 2.0``)."""
    old_parts, new_parts = old.split("."), new.split(".")
    leading = next((i for i, part in enumerate(old_parts) if part.strip("0")), len(old_parts) - 1)
    return old_parts[: leading + 1] != new_parts[: leading + 1]


class DependencyRules(Strict):
    major: list[str]
    toolchains: list[str] = Field(default_factory=list)
    resolved_toolchains: list[str] = Field(default_factory=list)
    name_filler_words: list[str] = Field(default_factory=list)
    setting_last_words: list[str] = Field(default_factory=list)
    version_line: str
    element_line: str = r"(?!)"
    standard_line: str = r"(?!)"
    call_line: str = r"(?!)"
    title: list[str] = Field(default_factory=list)
    major_weight: float = Field(default=4.0, ge=0)
    routine_weight: float = Field(default=2.0, ge=0)
    versions_only_weight: float = Field(default=4.0, ge=0)
    incidental_source_lines: int = Field(
        default=40,
        ge=1,
        description="Changed source lines beside which a library's bump is what that change needs: no build vote.",
    )
    manifests: list[str] = Field(default_factory=list)
    side_by_side: list[str] = Field(default_factory=list)
    headerless_dev: list[str] = Field(default_factory=list)
    headerless_line: str = r"(?!)"
    not_shipped: list[str] = Field(default_factory=list)
    dev_scopes: list[str] = Field(default_factory=list)
    section: str = r"(?!)"
    dev_section: str = r"(?!)"
    tool_section: str = r"(?!)"
    metadata_key: str = r"(?!)"
    lint_level: str = r"(?!)"
    pin_files: list[str] = Field(default_factory=list)
    compiled: str = r"(?!)"
    pin: str = r"(?!)"
    quoted_pin: str = r"(?!)"
    still_listed: str = r"(?!)"
    semver_major_importance: Importance = Importance.medium

    @field_validator("section")
    @classmethod
    def _check_section(cls, value: str) -> str:
        return check_regex(value, groups=("name",))

    @field_validator("dev_section", "tool_section", "metadata_key", "lint_level", "compiled", "headerless_line")
    @classmethod
    def _check_dev_section(cls, value: str) -> str:
        return check_regex(value)

    @cached_property
    def section_regex(self) -> re.Pattern[str]:
        return re.compile(self.section)

    @cached_property
    def dev_section_regex(self) -> re.Pattern[str]:
        return re.compile(self.dev_section, re.IGNORECASE)

    @cached_property
    def tool_section_regex(self) -> re.Pattern[str]:
        return re.compile(self.tool_section, re.IGNORECASE)

    @cached_property
    def metadata_key_regex(self) -> re.Pattern[str]:
        return re.compile(self.metadata_key, re.IGNORECASE)

    @cached_property
    def headerless_line_regex(self) -> re.Pattern[str]:
        return re.compile(self.headerless_line)

    @cached_property
    def lint_level_regex(self) -> re.Pattern[str]:
        return re.compile(self.lint_level)

    @field_validator("pin", "quoted_pin", "still_listed")
    @classmethod
    def _check_pin(cls, value: str) -> str:
        return check_regex(value, groups=("name",))

    @cached_property
    def still_listed_regex(self) -> re.Pattern[str]:
        return re.compile(self.still_listed)

    @cached_property
    def pin_regex(self) -> re.Pattern[str]:
        return re.compile(self.pin)

    @cached_property
    def quoted_pin_regex(self) -> re.Pattern[str]:
        return re.compile(self.quoted_pin)

    @cached_property
    def compiled_regex(self) -> re.Pattern[str]:
        return re.compile(self.compiled, re.M)

    @cached_property
    def _pin_files(self) -> Globs:
        return Globs(self.pin_files)

    def pins_in(self, path: str) -> bool:
        """A requirements file, whose exact versions pin an environment."""
        return self._pin_files.matches(path)

    @field_validator("manifests", "side_by_side", "headerless_dev", "not_shipped", "pin_files")
    @classmethod
    def _check_globs(cls, value: list[str]) -> list[str]:
        return check_globs(value)

    @cached_property
    def _manifests(self) -> Globs:
        return Globs(self.manifests)

    @cached_property
    def _not_shipped(self) -> Globs:
        return Globs(self.not_shipped)

    @cached_property
    def _side_by_side(self) -> Globs:
        return Globs(self.side_by_side)

    @cached_property
    def _headerless_dev(self) -> Globs:
        return Globs(self.headerless_dev)

    def headerless_is_dev(self, path: str) -> bool:
        """A manifest whose dependency lines with no section header in view are its developers' (package.json)."""
        return self._headerless_dev.matches(path)

    def installs_side_by_side(self, path: str) -> bool:
        """A manifest whose package manager installs two incompatible versions of a library side by side."""
        return self._side_by_side.matches(path)

    def released(self, path: str) -> bool:
        """A manifest file outside the website, examples, tests and tooling: its versions reach users."""
        return not self._not_shipped.matches(path)

    def ships(self, path: str) -> bool:
        """A manifest declaring what users of the released package install (not a website's or a test's)."""
        return self._manifests.matches(path) and not self._not_shipped.matches(path)

    @field_validator("version_line", "element_line", "standard_line", "call_line")
    @classmethod
    def _check_line(cls, value: str) -> str:
        return check_regex(value, groups=("name", "version"))

    @field_validator("title")
    @classmethod
    def _check_title(cls, value: list[str]) -> list[str]:
        return [check_regex(pattern, groups=("name", "new")) for pattern in value]

    @cached_property
    def line_regex(self) -> re.Pattern[str]:
        return re.compile(self.version_line, FLAGS)

    @cached_property
    def element_regex(self) -> re.Pattern[str]:
        return re.compile(self.element_line, FLAGS)

    @cached_property
    def standard_regex(self) -> re.Pattern[str]:
        return re.compile(self.standard_line, FLAGS)

    @cached_property
    def call_regex(self) -> re.Pattern[str]:
        return re.compile(self.call_line, FLAGS)

    def version_match(self, line: str) -> re.Match[str] | None:
        """A manifest line naming something beside its version: a ``call_line``, a ``version_line``, or an XML
        element's.

        A build script's setting (``jvmToolchain(17)``) is read first, so that a
        Java level reads the same however each side writes it (``'1.8'``, then
        ``JavaVersion.VERSION_11``). An element (``<maven.compiler.release>8</...>``)
        holds a version when it is dotted (``<protobufVersion>4.27.2</...>``) or sets
        a toolchain: a bare count in any other element (``<maven.compiler.testRelease>``,
        ``<forkCount>``) is none. A language standard a build sets by its bare year
        (CMake's ``set(CMAKE_CXX_STANDARD 17)``, ``cxx_std_17``: a ``standard_line``)
        counts only as a toolchain's floor.
        """
        if match := self.call_regex.match(line):
            return match
        if match := self.line_regex.match(line):
            return match
        match = self.element_regex.match(line) or self.standard_regex.match(line)
        if match is None or ("." not in match.group("version") and match.group("name").lower() not in self._toolchains):
            return None
        return match

    @cached_property
    def title_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern, FLAGS) for pattern in self.title]

    def words(self, name: str) -> list[str]:
        return [word for word in re.split(r"[-_./\s]+", name.lower()) if word]

    def is_major(self, name: str) -> bool:
        """``torch`` and ``TORCH_SUPPORTED_VERSION`` are major; ``torch-tensorrt`` is not."""
        words = self.words(name)
        majors = {m.lower() for m in self.major}
        fillers = {w.lower() for w in self.name_filler_words}
        return bool(words) and words[0] in majors and all(w in fillers or w in majors for w in words[1:])

    @cached_property
    def _toolchains(self) -> frozenset[str]:
        return frozenset(t.lower() for t in self.toolchains)

    def incidental(self, name: str, source_lines: int, title: str) -> bool:
        """Whether a bump of ``name`` beside ``source_lines`` changed lines of source serves that change.

        A feature or fix that needs a newer library raises its floor in the same
        commit; the source says what the commit does. A major dependency's or a
        toolchain's step is news of its own, whatever else changes, and so is a
        library the ``title`` names at a version ("Update transformers to `v4.55`");
        one it names without ("Integrate Tensorizer into S3 loading") is what the
        feature uses.
        """
        return (
            source_lines >= self.incidental_source_lines
            and name.lower() not in self._toolchains
            and not self.is_major(name)
            and re.search(rf"(?<![\w-]){re.escape(name)}\W+(\w+\W+)?v?\d", title, re.I) is None
        )

    def binds_users(self, name: str, old: str | None, new: str | None, path: str) -> bool:
        """A version step of ``name``, declared in the manifest at ``path``, its users cannot take in their stride.

        A step semantic versioning calls incompatible (``1.4 -> 2.0``, ``0.11 -> 0.12``),
        any step of a major dependency (a framework or runtime users must follow),
        or of a toolchain floor (``requires-python``, ``rust-version``); a compatible
        step of a library (``0.5.1 -> 0.5.2``) is taken by the installer unasked, and
        so is any step of a library where the package manager installs incompatible
        versions side by side (Cargo, npm): no one else's use of it is held back.
        """
        if name.lower() in self._toolchains or self.is_major(name):
            return True
        if self.installs_side_by_side(path):
            return False
        return old is not None and new is not None and semver_incompatible(old, new)

    def breaks_users(self, name: str) -> bool:
        """A floor that leaves existing installations behind: a toolchain's or a major dependency's.

        An ordinary library's incompatible step binds users (they must take it)
        but is the installer's to resolve beside the package; nor does a
        toolchain whose package manager falls back, on an older compiler, to
        the last release that supported it (``resolved_toolchains``).
        """
        lowered = name.lower()
        if lowered in self._resolved_toolchains:
            return False
        return lowered in self._toolchains or self.is_major(name)

    @cached_property
    def _resolved_toolchains(self) -> frozenset[str]:
        return frozenset(t.lower() for t in self.resolved_toolchains)

    def is_filler(self, name: str) -> bool:
        """A lock file's bare ``version = ...`` line names no dependency."""
        words = self.words(name)
        return not words or words[0] in {w.lower() for w in self.name_filler_words}

    def names_setting(self, name: str) -> bool:
        """A key of several words whose last is a setting's (``core-metadata-version``) names no package.

        Such a key sets what a build backend's table configures; a toolchain's
        floor (``rust-version``) and a major dependency's mirror (``CUDA_VERSION``)
        still name what users install.
        """
        words = self.words(name)
        return (
            len(words) > 1
            and words[-1] in {w.lower() for w in self.setting_last_words}
            and name.lower() not in self._toolchains
            and not self.is_major(name)
        )


class RemovedDefinitionRules(Strict):
    patterns: list[str] = Field(default_factory=list)
    type: ChangeType | None = ChangeType.feat
    weight: float = Field(default=5.0, ge=0)
    unused_env_title: str | None = Field(
        default=None,
        description="a title that calls the environment variables it removes unused: their removal breaks nothing",
    )

    @field_validator("unused_env_title")
    @classmethod
    def _check_title(cls, value: str | None) -> str | None:
        return None if value is None else check_regex(value)

    @cached_property
    def unused_env_regex(self) -> re.Pattern[str] | None:
        return None if self.unused_env_title is None else re.compile(self.unused_env_title, FLAGS)

    @field_validator("patterns")
    @classmethod
    def _check(cls, value: list[str]) -> list[str]:
        return [check_regex(pattern, groups=("name",)) for pattern in value]

    @cached_property
    def regexes(self) -> list[re.Pattern[str]]:
        # Definitions are case-sensitive: `--Flag` and `--flag` are different flags.
        return [re.compile(pattern) for pattern in self.patterns]

    @cached_property
    def any_regex(self) -> re.Pattern[str]:
        """All the patterns as one, over many lines at once: most patches remove no definition, and one
        search of their removed lines says so faster than every pattern on every line.

        It finds at least every line a pattern does: a pattern's leading ``\\b`` is left out,
        since it only narrows where a match may start and keeps the search from skipping
        ahead to the word after it (``long``, ``flag.``), which made it crawl.
        """
        unnamed = (re.sub(r"\(\?P<\w+>", "(?:", pattern).removeprefix("\\b") for pattern in self.patterns)
        return re.compile("|".join(f"(?:{pattern})" for pattern in unnamed) or "(?!)", re.M)


#: The named groups a release rule's pattern must define.
_RELEASE_GROUPS = {"own_version": ("version",), "upgrade_entry": ("text",)}


class ReleaseRules(Strict):
    """A release chore may touch source files only to write the version (``__version__ = "3.1.0"``).

    A release starts at ``major_importance`` instead of low when it opens a major
    line: ``major_version`` finds the added line that sets the package's own
    version to the first of one (``"version": "5.0.0"``), ``major`` a title that
    names one (``v5.0.0``). What it ships may stop existing users' code working.
    A commit whose shipped manifests change only ``own_version`` lines (named
    group ``version``) and ``local_dependency`` lines is a release whatever its
    title says. A section (``upgrade_entry``, named group ``text``) that a commit
    other than a release adds to the ``upgrade_notes`` declares a break. In the
    ``zero_major_manifests``, ``zero_major_version`` opens a major line before 1.0.
    """

    max_source_lines: int = Field(default=6, ge=0)
    major_version: str = "(?!)"
    major: PatternRule | None = None
    major_importance: Importance = Importance.medium
    own_version: str = "(?!)"
    local_dependency: str = "(?!)"
    upgrade_notes: list[str] = Field(default_factory=list)
    upgrade_entry: str = "(?!)"
    zero_major_manifests: list[str] = Field(default_factory=list)
    zero_major_version: str = "(?!)"

    @field_validator("major_version", "local_dependency", "own_version", "upgrade_entry", "zero_major_version")
    @classmethod
    def _check_patterns(cls, value: str, info: ValidationInfo) -> str:
        return check_regex(value, groups=_RELEASE_GROUPS.get(info.field_name or "", ()))

    @field_validator("upgrade_notes", "zero_major_manifests")
    @classmethod
    def _check_notes(cls, value: list[str]) -> list[str]:
        return check_globs(value)

    @cached_property
    def files(self) -> dict[str, Globs]:
        """The path lists (``upgrade_notes``, ``zero_major_manifests``), compiled."""
        return {name: Globs(getattr(self, name)) for name in ("upgrade_notes", "zero_major_manifests")}

    @cached_property
    def line_regexes(self) -> dict[str, re.Pattern[str]]:
        """The patterns read line by line (``own_version``, ``local_dependency``, ``upgrade_entry``), compiled."""
        return {
            name: re.compile(getattr(self, name), FLAGS)
            for name in ("own_version", "local_dependency", "upgrade_entry")
        }


class RepeatedEdit(Strict):
    """One edit repeated across many files: at least ``min_files`` existing source files, none changed
    in more than ``max_lines`` lines, and at most ``max_distinct_share`` distinct changed lines (trimmed)
    per file, so the files share their lines instead of each saying its own thing."""

    min_files: int = Field(ge=2)
    max_lines: int = Field(ge=1)
    max_distinct_share: float = Field(gt=0, le=1)
    type: ChangeType
    weight: float = Field(ge=0)


class TestsTitle(Strict):
    """A title whose object is tests (``title``, read in the description) on a commit whose test files carry
    at least ``min_test_share`` of the changed lines: the few source lines beside them serve the tests."""

    title: str
    min_test_share: float = Field(gt=0, le=1)
    type: ChangeType
    weight: float = Field(ge=0)

    @field_validator("title")
    @classmethod
    def _check(cls, value: str) -> str:
        return check_regex(value)

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.title, FLAGS)


class SeriesGroundwork(Strict):
    """A step of a numbered series that only adds new source modules (tests, CI and docs beside them)."""

    type: ChangeType
    weight: float = Field(ge=0)
    max_importance: Importance


class DiffRules(Strict):
    """What the patch says about the type when the message says nothing.

    ``new_names`` find public names a commit defines (named group ``name``); a
    name the commit also removes was moved, not added, and names count only when
    the source grows by ``new_names_min_growth`` added lines per removed one. ``conditions`` find
    control-flow lines; a commit that changes them (removed and added) and adds
    a test (``test_definitions``) corrects behaviour, as does one that adds them to a
    file that existed when it declares nothing new: no public name, no
    ``parameters`` (a new keyword or option would make the guard a feature's). When none of that holds,
    the shape decides: a source change that mostly deletes (``deletion_ratio``
    removed lines per added one, at least ``deletion_min_lines``) cleans up, a
    small edit of existing code (at most ``edit_max_lines`` changed, some removed
    or all in files that existed) adjusts behaviour, unless every line it removes
    comes back among the lines it adds and each is a ``reorder_entry`` (a mapping's
    ``key: value,``): entries put in another order, ``reorder_type``. A larger
    change that removes code from source files that all existed, beside nothing but
    their tests, restructures them (``rewrite_type``).
    A ``repeated_edit`` is the same small edit made across many existing source
    files (an import and a loop idiom swapped in every model): how the code is
    written changes, not what one part of it does.
    A ``tests_title`` is a title that says the commit adds or improves tests, on
    a diff that is mostly test files: the source lines beside them (a helper the
    tests call, a hook, a one-line tweak) serve the tests.
    A ``series_groundwork`` step of a ``[k/N]`` series adds new source modules and
    changes no file that existed but tests, CI and docs: nothing reaches them yet.
    """

    new_names: list[str] = Field(default_factory=list)
    new_names_type: ChangeType = ChangeType.feat
    new_names_weight: float = Field(default=1.5, ge=0)
    new_names_min_growth: float = Field(default=2.0, ge=0)
    conditions: str = r"(?!)"
    test_definitions: list[str] = Field(default_factory=list)
    parameters: str = r"(?!)"
    condition_type: ChangeType = ChangeType.fix
    condition_weight: float = Field(default=1.0, ge=0)
    deletion_type: ChangeType = ChangeType.refactor
    deletion_ratio: float = Field(default=3.0, ge=1)
    deletion_min_lines: int = Field(default=5, ge=1)
    edit_type: ChangeType = ChangeType.fix
    edit_max_lines: int = Field(default=40, ge=1)
    rewrite_type: ChangeType = ChangeType.refactor
    shape_weight: float = Field(default=0.5, ge=0)
    reorder_entry: str = r"(?!)"
    reorder_type: ChangeType = ChangeType.refactor
    constant_table: PatternRule | None = Field(
        default=None, description="A hunk header that opens a constant data table (its `name` group names it)."
    )
    constant_table_importance: Importance = Importance.low
    repeated_edit: RepeatedEdit | None = None
    tests_title: TestsTitle | None = None
    series_groundwork: SeriesGroundwork | None = None

    @field_validator("new_names")
    @classmethod
    def _check_names(cls, value: list[str]) -> list[str]:
        return check_regexes(value, groups=("name",))

    @field_validator("conditions", "reorder_entry", "parameters")
    @classmethod
    def _check_conditions(cls, value: str) -> str:
        return check_regex(value)

    @field_validator("test_definitions")
    @classmethod
    def _check_tests(cls, value: list[str]) -> list[str]:
        return check_regexes(value)

    @cached_property
    def name_regexes(self) -> list[re.Pattern[str]]:
        # Definitions are case-sensitive, like removed ones.
        return [re.compile(pattern) for pattern in self.new_names]

    @cached_property
    def condition_regex(self) -> re.Pattern[str]:
        return re.compile(self.conditions)

    @cached_property
    def parameter_regex(self) -> re.Pattern[str]:
        return re.compile(self.parameters)

    @cached_property
    def reorder_regex(self) -> re.Pattern[str]:
        return re.compile(self.reorder_entry)

    @cached_property
    def test_regexes(self) -> list[re.Pattern[str]]:
        return [re.compile(pattern) for pattern in self.test_definitions]


class MovesRules(Strict):
    max_lines_per_moved_file: int = Field(default=20, ge=0)
    max_lines_per_other_file: int = Field(default=4, ge=0)
    min_moved_lines: int = Field(default=200, ge=1, description="The least code moved between files that is a move.")
    min_moved_share: float = Field(
        default=0.8, gt=0, le=1, description="The share of the lines added and of those removed that move."
    )
    #: A line that only imports a name (`from pkg.torch_utils import x`, `#include "x.h"`): the bookkeeping
    #: a move leaves in its callers, counted neither as moved nor as new code.
    imports: str = r"(?!)"

    @field_validator("imports")
    @classmethod
    def _check_imports(cls, value: str) -> str:
        return check_regex(value)

    @cached_property
    def imports_regex(self) -> re.Pattern[str]:
        # Case-sensitive: `import` and `use` are keywords in lower case.
        return re.compile(self.imports)


class PlatformPathRules(Strict):
    """Source paths named for one platform (`rocm_aiter_fa.py`, `xpu_worker.py`, `csrc/cpu/`), or for one model.

    A commit whose every changed source file is so named is confined to that
    platform (or model), whatever its title names: ``pattern`` finds the platform
    or model in a path (named group ``name``).
    """

    pattern: str = r"(?!)"

    @field_validator("pattern")
    @classmethod
    def _check(cls, value: str) -> str:
        return check_regex(value, groups=("name",))

    @cached_property
    def regex(self) -> re.Pattern[str]:
        return re.compile(self.pattern, FLAGS)


class SurfaceRule(UnlessTitle):
    """What a class of surface changes (:class:`~repodaily.models.SurfaceChange` kinds and actions) means.

    The surface is read from what the diff declares, so it is the most trusted
    evidence: a rule votes for the rubric's type of such a change, may raise a
    signal (``default_change``), mark the commit breaking (RUBRIC.md: public
    surface removed or renamed, a default changed, a deprecation ending in an
    error, a floor raised) and user-facing, and raise the importance to
    ``min_importance``.
    """

    kinds: list[SurfaceKind] = Field(min_length=1)
    actions: list[SurfaceAction] = Field(min_length=1)
    type: ChangeType | None = None
    weight: float = Field(default=0.0, ge=0)
    signal: Literal["default_change"] | None = None
    breaking: bool = False
    user_facing: bool | None = None
    min_importance: Importance | None = None
    paths: list[str] = Field(default_factory=list, description="Globs of the files it reads; none: every file.")
    names: str | None = Field(
        default=None,
        description="A case-sensitive regex the change's name must match: a kind whose names tell two classes apart "
        "(a JVM type, `Name`, from a member, `name(...)`).",
    )
    steps: Literal["any", "binding", "breaking"] = Field(
        default="any",
        description="The version steps it matches: any, those that bind users (`DependencyRules.binds_users`), or "
        "those that leave existing installations behind (`DependencyRules.breaks_users`).",
    )
    unless_added: bool = Field(
        default=False,
        description="Match only when the commit adds nothing of the rule's kinds: removals beside additions rework a "
        "registry (names changed across hunks) rather than withdraw from it.",
    )
    min_new_modules: int = Field(
        default=0,
        ge=0,
        description="Match only when the commit adds at least this many source files in the directory of the file "
        "that declares the change: a registry entry whose implementation arrives in several new modules beside it.",
    )
    named_beside: bool = Field(
        default=False,
        description="Match only when the commit's title or one of its files that is no source (a test, a doc, an "
        "example) names the change: code that uses a declaration names only what is public.",
    )

    @field_validator("paths")
    @classmethod
    def _check_paths(cls, value: list[str]) -> list[str]:
        return check_globs(value)

    @field_validator("names")
    @classmethod
    def _check_names(cls, value: str | None) -> str | None:
        return None if value is None else check_regex(value)

    @cached_property
    def _paths(self) -> Globs:
        return Globs(self.paths)

    @cached_property
    def _names(self) -> re.Pattern[str] | None:
        return None if self.names is None else re.compile(self.names)

    def reads(self, change: SurfaceChange) -> bool:
        """Whether ``change`` is of this rule's kinds and actions, named as it asks, in a file it reads."""
        return (
            change.kind in self.kinds
            and change.change in self.actions
            and (self._names is None or self._names.search(change.name) is not None)
            and (not self.paths or self._paths.matches(change.path))
        )
