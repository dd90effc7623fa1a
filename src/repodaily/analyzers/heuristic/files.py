"""The commit's files as path classes: which count, what they alone decide, whether they only move, core lines.

Also the order in which a report names them (:func:`ranked_files`,
:func:`impact_scope`).
"""

from __future__ import annotations

import keyword
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass

from repodaily.analyzers.heuristic.annotations import annotations_only
from repodaily.analyzers.heuristic.assertions import assertions_only
from repodaily.analyzers.heuristic.diagnostics import diagnostics_only
from repodaily.analyzers.heuristic.entries import entries_only
from repodaily.analyzers.heuristic.includes import includes_only
from repodaily.analyzers.heuristic.inlining import inlining_only
from repodaily.analyzers.heuristic.layout import layout_only
from repodaily.analyzers.heuristic.notices import notices_only
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.suppressions import suppressions_only
from repodaily.analyzers.heuristic.unit_tests import only_unit_tests
from repodaily.models import ChangeType, ContextFile, FileCategory, FileStatus

__all__ = ["Files", "impact_scope", "ranked_files", "read_files"]

_MAX_SCOPE = 4
_RANK = {category: index for index, category in enumerate(FileCategory)}


@dataclass
class Files:
    """The commit's files as classes: which count, what they alone decide, whether they only move."""

    files: list[ContextFile]
    classes: list[str]
    counted: list[int]
    only_types: dict[ChangeType, int]
    may_be: set[ChangeType]  # other types the words may give a commit of only typed files
    dominant_class: str
    pure_move: bool
    core_lines: int  # lines changed in files of `core` path classes
    core_path: str  # the core file with the most changed lines
    platform_file: str | None = None  # a source file named for the one platform every changed source file is for
    source_lines: int = 0  # lines changed in counted source files (of no typed path class)
    model_file: str | None = None  # the one model's implementation every changed source file is


def read_files(files: list[ContextFile], rules: RuleSet) -> Files:
    classes = _with_unit_tests(files, [_class_of(f, rules) for f in files], rules)
    counted = [i for i, name in enumerate(classes) if not rules.path_rules(name).ignorable] or list(range(len(files)))
    lines: Counter[str] = Counter()
    for i in counted:
        lines[classes[i]] += max(1, files[i].additions + files[i].deletions)
    only_types: dict[ChangeType, int] = {}
    may_be: set[ChangeType] = set()
    if counted and all(rules.path_rules(classes[i]).type is not None for i in counted):
        for name, count in lines.items():
            change_type = rules.path_rules(name).type
            assert change_type is not None
            only_types[change_type] = only_types.get(change_type, 0) + count
            may_be.update(rules.path_rules(name).may_be)
    dominant = lines.most_common(1)[0][0] if lines else "source"
    core = [files[i] for i in counted if rules.path_rules(classes[i]).core]
    core_lines = sum(f.additions + f.deletions for f in core)
    core_path = max(core, key=lambda f: f.additions + f.deletions).path if core else ""
    source = [files[i] for i in counted if rules.path_rules(classes[i]).type is None]
    return Files(
        files,
        classes,
        counted,
        only_types,
        may_be,
        dominant,
        _is_pure_move(files, rules),
        core_lines,
        core_path,
        _confined_file(source, rules.platform_paths.regex),
        sum(f.additions + f.deletions for f in source),
        _confined_file(source, rules.model_paths.regex),
    )


def _confined_file(source: list[ContextFile], regex: re.Pattern[str]) -> str | None:
    """The first of the ``source`` files when each is named for the same platform or model (``regex``'s ``name``).

    Tests, docs and build files beside them do not widen the change: what ships
    is the platform's (or the model's) own code.
    """
    found = {match.group("name").lower() if (match := regex.search(f.path)) else None for f in source}
    return source[0].path if len(found) == 1 and None not in found else None


#: The class of a code file whose patch changes only comments (see ``[paths.comments]`` of rules.toml).
COMMENTS = "comments"

#: The class of a code file whose patch only adds or drops warning suppressions (``[paths.suppressions]``).
SUPPRESSIONS = "suppressions"


#: The class of a code file whose patch only lays its code out anew (see ``[paths.layout]`` of rules.toml).
LAYOUT = "layout"
#: The types of the classes whose files a formatter lays out (code has none): code, tests, and build
#: files, which projects format too (nixfmt, taplo, cmake-format).
_LAID_OUT = (None, ChangeType.test, ChangeType.build)

#: The class of a TypeScript file whose patch only adds or drops type assertions, or a Python file whose patch
#: only changes type annotations (``[paths.assertions]``).
ASSERTIONS = "assertions"

#: The class of a C, C++ or Rust file whose patch only adds or drops forced-inlining hints (``[paths.inlining]``).
INLINING = "inlining"

#: The class of a C or C++ file whose patch only adds include directives (``[paths.includes]``).
INCLUDES = "includes"

#: The class of a code file whose patch only adds rows to a table keyed by strings (``[paths.entries]``).
ENTRIES = "entries"

#: The class of a code file whose patch changes only warning or log calls (``[paths.diagnostics]``).
DIAGNOSTICS = "diagnostics"


#: The class of any file whose patch only refreshes its copyright notice (``[paths.notices]``).
NOTICES = "notices"


#: The class of test files (``[paths.test]``), which source files changing only their unit tests join.
TESTS = "test"

#: The class of developer tooling (``[paths.tooling]``), which a manifest changing only its tools' sections joins.
TOOLING = "tooling"

#: The class of a manifest whose patch changes only what its developers install (``[paths.development]``).
DEVELOPMENT = "development"

#: The class of a manifest whose patch changes only the package's descriptive metadata (``[paths.metadata]``).
METADATA = "metadata"


#: What follows the sign of a file header line (`+++ b/x`, `--- a/x`), which is no changed line.
_FILE_HEADERS = ("++ ", "-- ")


def _class_of(file: ContextFile, rules: RuleSet) -> str:
    """The file's path class; a code file whose patch only adds or drops warning suppressions is of the
    suppressions class, one whose patch changes only comments of the comments class,
    a code, test or build file whose patch only lays its code out anew of the layout class, a TypeScript file
    whose patch only adds or drops type assertions or a Python file whose patch only changes type annotations
    of the assertions class, a C, C++ or Rust file whose
    patch only adds or drops forced-inlining hints of the inlining class, one whose patch only adds include
    directives of the includes class, one whose patch only adds rows to a table keyed by strings of the
    entries class, one whose patch changes only warning or log calls of the diagnostics class, a manifest
    whose patch changes only its development tools' sections of the tooling class, one whose patch changes only
    what its developers install, or that builds an example, a test or the website, of the development class,
    and any file whose patch only refreshes its copyright notice of the notices class."""
    if NOTICES in rules.paths and notices_only(file):
        return NOTICES
    name = rules.path_table.classify(file.path, binary=file.binary)
    kind = rules.path_rules(name).type
    code = kind is None
    # Tried in this order, the first that holds wins: (class, whether the path's type allows it, the test).
    by_patch: tuple[tuple[str, bool, Callable[[ContextFile], bool]], ...] = (
        (SUPPRESSIONS, code, suppressions_only),
        (COMMENTS, code, _comments_only),
        (LAYOUT, kind in _LAID_OUT, layout_only),
        (ASSERTIONS, code, _typing_only),
        (INLINING, code, inlining_only),
        (INCLUDES, code, includes_only),
        (ENTRIES, code, entries_only),
        (DIAGNOSTICS, code, diagnostics_only),
    )
    for found, allowed, only in by_patch:
        if allowed and found in rules.paths and only(file):
            return found
    if kind != ChangeType.build:
        return name
    if TOOLING in rules.paths and _sections_only(file, rules, _tool_setting(rules)):
        return TOOLING
    if DEVELOPMENT in rules.paths and _sections_only(file, rules, _developers_section(rules, file)):
        return DEVELOPMENT
    if METADATA in rules.paths and _metadata_only(file, rules):
        return METADATA
    # A manifest of the website, an example or the tests (``not_shipped``) builds nothing users install.
    if DEVELOPMENT in rules.paths and not rules.dependencies.released(file.path):
        return DEVELOPMENT
    return name


def _typing_only(file: ContextFile) -> bool:
    """TypeScript type assertions or Python type annotations, and nothing else, added or dropped."""
    return assertions_only(file) or annotations_only(file)


#: Whether a changed manifest line, of the section named (None: its header is above git's context), is accepted.
LineTest = Callable[[str | None, str], bool]
#: Reads one line of a hunk (context included) after those before it: (what the lines after it belong to,
#: what this one belongs to), from what the lines before it belong to (None at a hunk's start).
Follow = Callable[[str | None, str], tuple[str | None, str | None]]


def _tool_setting(rules: RuleSet) -> LineTest:
    """Whether a line lies under a development tool's section (``[tool.mypy]``) or sets a lint's level
    (``lint_level``), which says so wherever its table's header is."""
    deps = rules.dependencies
    return lambda section, code: (
        (section is not None and deps.tool_section_regex.match(section) is not None)
        or deps.lint_level_regex.match(code) is not None
    )


def _developers_section(rules: RuleSet, file: ContextFile) -> LineTest:
    """Whether a line lies under a section of what only the manifest's developers install: their dependencies
    (``[dependency-groups]``, ``"devDependencies"``, ``[dev-dependencies]``) or their tools' settings; or, in a
    manifest whose developers' section is the long one (``headerless_dev``), names a dependency with no header
    in view."""
    deps = rules.dependencies
    headerless = deps.headerless_is_dev(file.path)
    return lambda section, code: (
        (deps.dev_section_regex.search(section) is not None or deps.tool_section_regex.match(section) is not None)
        if section is not None
        else headerless and deps.headerless_line_regex.match(code) is not None
    )


def _sections_only(file: ContextFile, rules: RuleSet, accepts: LineTest) -> bool:
    """Every line the patch changes is one ``accepts``, given the section its hunk shows it under.

    A line whose section header is above git's context is of no known section (None), and
    unless ``accepts`` knows it by itself the file stays what its path says.
    """
    header = rules.dependencies.section_regex

    def follow(section: str | None, text: str) -> tuple[str | None, str | None]:
        found = header.match(text)
        section = found.group("name") if found else section
        return section, section

    return _every_changed_line(file, follow, accepts)


#: A manifest line setting a key (`authors = [`, `"keywords": [`); named group: key, and the array it opens.
_MANIFEST_KEY = re.compile(r"""^"?(?P<key>[\w.-]+)"?\s*[=:]\s*(?P<opens>\[(?!.*\]))?""")


def _metadata_only(file: ContextFile, rules: RuleSet) -> bool:
    """Every line the patch changes sets a descriptive key (``metadata_key``) or an item of its array.

    The array a line is an item of is known from the key that opens it inside the hunk; an
    item whose key is above git's context is of no known key, and so the file stays a manifest.
    """
    keys = rules.dependencies.metadata_key_regex

    def follow(key: str | None, text: str) -> tuple[str | None, str | None]:
        code = text.strip()
        if setting := _MANIFEST_KEY.match(code):
            return (setting.group("key") if setting.group("opens") else None), setting.group("key")
        return (None if code.startswith("]") else key), key

    return _every_changed_line(file, follow, lambda key, _: key is not None and keys.match(key) is not None)


#: A manifest line that only closes an object or an array, with the comma before the next key or none.
_CLOSER = re.compile(r"[\]}]+,?")


def _every_changed_line(file: ContextFile, follow: Follow, accepts: LineTest) -> bool:
    """The patch changes a line of code, and ``accepts`` every one it changes, given what ``follow`` says
    it belongs to (a manifest's section, the key whose array holds it). Comment lines are no code, nor is
    a line that only closes a table or an array (``},`` turned ``}`` when the section after it goes): it
    belongs to whichever section the lines around it change."""
    state: str | None = None
    seen = False
    for line in file.text.splitlines():
        if line.startswith("@@"):
            state = None
            continue
        if line[1:4] in _FILE_HEADERS:
            continue
        state, owner = follow(state, line[1:])
        code = line[1:].strip()
        if line[:1] not in ("+", "-") or not code or code.startswith("#") or _CLOSER.fullmatch(code):
            continue
        if not accepts(owner, code):
            return False
        seen = True
    return seen


def _with_unit_tests(files: list[ContextFile], classes: list[str], rules: RuleSet) -> list[str]:
    """The classes, the source files among them of the tests' class when each changes only its unit tests.

    Only when the commit changes no other source (:mod:`.unit_tests`): a commit that changes
    code is judged by the code, and the tests it adapts beside it are read with it. A warning
    silenced only in a file's unit tests is a change of the tests too.
    """
    source = [i for i, name in enumerate(classes) if rules.path_rules(name).type is None or name == SUPPRESSIONS]
    if not source or TESTS not in rules.paths or not all(only_unit_tests(files[i]) for i in source):
        return classes
    return [TESTS if i in source else name for i, name in enumerate(classes)]


#: A comment that instructs a tool (a linter, a type checker, a formatter, the compiler): code, not prose. So
#: is a doc comment's ``@deprecated`` tag, which deprecates what it marks for editors and the type checker.
_DIRECTIVE = re.compile(
    r"\b(noqa|type:\s*ignore|nolint|nosec|pylint:|pyright:|mypy:|eslint-(disable|enable)|@ts-(ignore|expect-error|nocheck)"
    r"|prettier-ignore|rubocop:|clang-format|NOLINT|fmt:\s*(off|on|skip)|isort:|pragma|go:(build|generate|embed|linkname)"
    r"|\+build|SPDX-License-Identifier)|@deprecated\b",
)
#: How a line holding only a comment starts, in the languages whose comments have a mark of their own
#: (a Javadoc line may run its star into an HTML tag: ` *<p>`).
_COMMENT = re.compile(r"(#(?![!\[])|//|/\*|\*/|\*(\s|$|<)|--\s)")
#: A line that only sets the help text an option shows (clap's `help = "..."` and `value_name`,
#: argparse's and click's `help="..."`, `.about("...")`): prose users read, like a docstring.
_HELP_TEXT = re.compile(
    r"""\.?(help|long_help|short_help|about|long_about|after_help|before_help|value_name|metavar)"""
    r"""\s*(=|:|\()\s*[rbfu]?\#?["']"""
)
#: An option's help text given in parentheses, its pieces on the lines below (`help=(`).
_HELP_OPENS = re.compile(r"(help|long_help|short_help|about|long_about)\s*=\s*\(\s*$")
#: A line that is only a piece of a string, the implicit concatenation Python and C write long text in
#: (`"re-run the failing tests until all pass.",`): prose when it continues a help text, else unknown.
_STRING_PIECE = re.compile(r"""[rbfu]?(?P<q>["'])(\\.|(?!(?P=q)).)*(?P=q)\s*[,)]?\s*$""")
#: A line that only closes the call or table a help text was given in (`)`, `),`): moved onto the text's
#: last line or off it, it lays the call out anew and changes nothing.
_CLOSES_HELP = re.compile(r"^[)\]}]+,?$")
#: In the C family `#if`, `#define`, `#include` are the preprocessor's code, not comments.
_C_FAMILY = (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx", ".cu", ".cuh", ".m", ".mm", ".cs")
_PREPROCESSOR = re.compile(r"#\s*(if|ifdef|ifndef|elif|else|endif|define|undef|include|pragma|error|warning|line)\b")


#: Python's modules and stubs, whose docstrings are prose inside the code.
_PYTHON = (".py", ".pyi")
#: A docstring's quotes on a line of its prose (`"""Return the app.`, `the app."""`), and the code spans
#: its markup quotes (`` `handler(request, exc)` ``): neither is code the line runs.
_DOCSTRING_MARKS = re.compile(r"^[rRuU]?(\"{3}|'{3})|(\"{3}|'{3})$|``?[^`]+``?")
#: A line of words and the punctuation of sentences and lists only (no call, assignment, bracket, quote).
_PROSE_CHARACTERS = re.compile(r"[\w\s,.;:!?*/%&-]+")
#: Names in a row, one space apart: no Python statement writes three of them so, outside a string, unless
#: a keyword stands among them.
_WORDS_IN_A_ROW = re.compile(r"(?<![\w.])[A-Za-z]+(?: [A-Za-z]+){2,}(?![\w.])")
#: Python's keywords and soft keywords, which may stand between names in code (`x for x in y`).
_KEYWORDS = frozenset([*keyword.kwlist, *keyword.softkwlist])


#: A docstring's markup on a line of its own, which no Python statement starts so: a Google or NumPy
#: style section heading (`Args:`, `Returns:`) or its underline (`-------`), a Sphinx directive
#: (`.. versionadded:: 24.1.0`) or field (`:param name:`, `:raises TypeError:`).
_DOCSTRING_MARKUP = re.compile(
    r"(Args|Arguments|Parameters|Other Parameters|Keyword Args|Keyword Arguments|Returns?|Yields?|Raises"
    r"|Warns|Examples?|Notes?|Attributes|Methods|See Also|References|Todo|Warnings?):"
    r"|-{3,}|={3,}|\.\. [a-z][\w-]*::.*|:[a-z]+(\s+[^:]+)?:(\s.*)?"
)


def _docstring_prose(code: str) -> bool:
    """A line of a Python module that can only be a docstring's prose: words in a row no statement writes.

    Inside triple quotes a line reads as sentences (``and may be either standard functions, or``); the
    quotes that open or close it and the code spans its markup quotes are left out. Three names none
    of which is a keyword, one after another with nothing between, are no Python code; nor is a line
    of docstring markup (:data:`_DOCSTRING_MARKUP`).
    """
    if _DOCSTRING_MARKUP.fullmatch(code) is not None:
        return True
    text = _DOCSTRING_MARKS.sub(" ", code)
    if _PROSE_CHARACTERS.fullmatch(text) is None:
        return False
    for run in _WORDS_IN_A_ROW.finditer(text):
        words = run.group(0).split(" ")
        if any(not _KEYWORDS.intersection(words[i : i + 3]) for i in range(len(words) - 2)):
            return True
    return False


def _comments_only(file: ContextFile) -> bool:
    """The patch changes lines, every one of them a comment, a Python docstring's prose, an option's help
    text (or the bracket closing the call it is given in) or blank: the code reads as it did.

    Help text runs on over lines of string pieces (``help="Run tests in a subprocess, "`` then
    ``"re-run the failing ones."``): a piece is help text when the lines above it, changed or
    not, lead back to a help argument. Most patches change code on their first changed line, so the
    scan stops there.
    """
    seen = False
    in_help = False
    preprocessed = file.path.lower().endswith(_C_FAMILY)
    python = file.path.lower().endswith(_PYTHON)
    for line in file.text.splitlines():
        sign, code = line[:1], line[1:].strip()
        if sign not in ("+", "-", " ") or line[1:4] in _FILE_HEADERS:
            in_help = False
            continue
        closes_help = in_help and _CLOSES_HELP.match(code) is not None
        help_text = _HELP_TEXT.match(code) is not None or _HELP_OPENS.match(code) is not None
        in_help = help_text or (in_help and _STRING_PIECE.match(code) is not None)
        if sign == " " or not code or closes_help:
            continue
        if in_help:
            seen = True
            continue
        if python and _docstring_prose(code):
            seen = True
            continue
        if _COMMENT.match(code) is None or _DIRECTIVE.search(code) is not None:
            return False
        if preprocessed and _PREPROCESSOR.match(code):
            return False
        seen = True
    return seen


def _is_pure_move(files: list[ContextFile], rules: RuleSet) -> bool:
    moved = [f for f in files if f.status in (FileStatus.renamed, FileStatus.copied)]
    others = [f for f in files if f.status not in (FileStatus.renamed, FileStatus.copied)]
    renamed = (
        bool(moved)
        and all(f.additions + f.deletions <= rules.moves.max_lines_per_moved_file for f in moved)
        and all(f.additions + f.deletions <= rules.moves.max_lines_per_other_file for f in others)
    )
    return renamed or _moves_content(files, rules)


#: A line too short to say where it came from (a bracket, `else:`, `}`) proves no move.
_MIN_MOVED_TEXT = 4


def _moves_content(files: list[ContextFile], rules: RuleSet) -> bool:
    """The lines the commit removes from some files reappear in others, nearly all of them: code moved.

    Git names a file renamed only when most of it moves whole; a class moved out
    of a module into a module of its own leaves both files modified. Lines that
    reappear in the file they left were edited in place, not moved. Import lines
    are left out: every caller of moved code imports it anew, and those edits say
    where the code went, not that new code arrived.
    """
    moves = rules.moves
    # Every moved line is one the commit adds and one it removes: too few of either, and nothing is read.
    if min(sum(f.additions for f in files), sum(f.deletions for f in files)) < moves.min_moved_lines:
        return False
    imports = moves.imports_regex
    # Each changed line's text -> the paths it is added to (or removed from) -> how often.
    sides: dict[str, dict[str, dict[str, int]]] = {"+": {}, "-": {}}
    for file in files:
        for line in file.text.split("\n"):
            side = sides.get(line[:1])
            if side is None or line[1:4] in _FILE_HEADERS:
                continue
            text = line[1:].strip()
            if len(text) >= _MIN_MOVED_TEXT and imports.match(text) is None:
                paths = side.setdefault(text, {})
                paths[file.path] = paths.get(file.path, 0) + 1
    added, removed = sides["+"], sides["-"]
    total_added = sum(sum(paths.values()) for paths in added.values())
    total_removed = sum(sum(paths.values()) for paths in removed.values())
    moved = sum(
        min(sum(paths.values()), sum(removed[text].values()))
        for text, paths in added.items()
        if text in removed and paths.keys() != removed[text].keys()
    )
    return moved >= moves.min_moved_lines and moved >= moves.min_moved_share * max(total_added, total_removed)


def ranked_files(files: list[ContextFile], moves_first: bool = False) -> list[ContextFile]:
    """Source before build, tests and docs, larger changes first; in a pure move the moved files lead."""

    def key(file: ContextFile) -> tuple[bool, int, int, str]:
        moved = file.status in (FileStatus.renamed, FileStatus.copied)
        return (moves_first and not moved, _RANK[file.category], -(file.additions + file.deletions), file.path)

    return sorted(files, key=key)


def impact_scope(files: list[ContextFile], moves_first: bool) -> list[str]:
    """The paths that matter most, most important first, with crowded directories folded."""
    ranked = ranked_files(files, moves_first)
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


#: The files of documentation pages, as opposed to code kept under a docs folder.
_PROSE = (".md", ".markdown", ".rst", ".txt", ".adoc")


def documents_behaviour(facts: Files, rules: RuleSet) -> bool:
    """The commit changes source and the documentation users read beside it.

    A restructuring changes no behaviour, so no page users read needs a word changed;
    a commit whose title reads as one ("Replace ...", "Remove ...") but rewrites the
    documentation of what its code does changed what users see, and what the patch
    suggests is the better guess. Only pages count: code kept under a docs folder
    (a Go module's ``doc`` package) is code.
    """
    return facts.source_lines > 0 and any(
        rules.path_rules(name).type is ChangeType.docs and file.path.lower().endswith(_PROSE)
        for file, name in zip(facts.files, facts.classes, strict=True)
    )
