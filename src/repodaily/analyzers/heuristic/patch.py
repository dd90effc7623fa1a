"""What the patch lines show: removed public definitions, dependency versions, and a type when nothing else names one.

Removed definitions and dependency bumps are evidence like a title's words; the
patch fallback (new public names, changed conditions with a new test) is read
only when neither the message nor the files name a type.
"""

from __future__ import annotations

import functools
import re

from repodaily.analyzers.heuristic.diff_rules import RepeatedEdit, semver_incompatible
from repodaily.analyzers.heuristic.evidence import DependencyChange, Evidence
from repodaily.analyzers.heuristic.files import Files
from repodaily.analyzers.heuristic.prose import MAX_QUOTED, clip, link_targets_dropped
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.sentences import code_span
from repodaily.analyzers.heuristic.title import Title
from repodaily.models import ChangeType, ContextFile, FileStatus, SurfaceAction, SurfaceChange, SurfaceKind

__all__ = ["read_diff", "read_patch_fallback", "shipped_lines", "signed_lines", "version_changes", "without_unused_env"]


def _patch_lines(file: ContextFile, sign: str) -> tuple[str, ...]:
    return signed_lines(file.text, sign)


# The rules ask for a file's added or removed lines once per rule: split each patch once. A few
# entries suffice (the rules read one commit at a time) and keep big patches from staying alive.
@functools.lru_cache(maxsize=32)
def signed_lines(text: str, sign: str) -> tuple[str, ...]:
    """The lines of a patch that ``sign`` (``+`` or ``-``) begins, without the file header's ``+++``/``---``."""
    header = sign * 3
    return tuple([line for line in _lines(text) if line[:1] == sign and line[:3] != header])


@functools.lru_cache(maxsize=16)
def _lines(text: str) -> list[str]:
    """A patch's lines, split once for both signs."""
    return text.splitlines()


#: Surface changes whose removal is a removed definition: what users typed or set.
_REMOVABLE = (SurfaceKind.cli_option, SurfaceKind.env_var)


def without_unused_env(surface: list[SurfaceChange], title: Title, rules: RuleSet) -> list[SurfaceChange]:
    """``surface`` less the environment variables it removes when the title calls them unused.

    The diff shows an entry of the variables' table going, never that nothing read it;
    "Remove unused env variable" says so, and a variable nothing reads did nothing when set:
    its removal takes nothing from users.
    """
    regex = rules.removed_definitions.unused_env_regex
    if regex is None or "env" not in title.subject.lower() or regex.search(title.subject) is None:
        return surface
    return [c for c in surface if not (c.kind == SurfaceKind.env_var and c.change == SurfaceAction.removed)]


def read_diff(evidence: Evidence, title: Title, facts: Files, rules: RuleSet, surface: list[SurfaceChange]) -> None:
    """Add what the patches show: removed public definitions and dependency versions.

    Removed options and environment variables come from the ``surface`` (read from
    both sides of every hunk); the ``[removed_definitions]`` patterns add what it
    does not read (other languages' flags, registry entries).
    """
    definitions = rules.removed_definitions
    removed = [
        change.name for change in surface if change.kind in _REMOVABLE and change.change == SurfaceAction.removed
    ]
    for file, name in zip(facts.files, facts.classes, strict=True):
        if rules.path_rules(name).type not in (None, ChangeType.build):
            continue
        lines = _patch_lines(file, "-")
        if not lines or definitions.any_regex.search("\n".join(lines)) is None:
            continue
        lines = _outside_private_definitions(file.text) if "def _" in file.text else lines
        for regex in definitions.regexes:
            removed += [m.group("name") for line in lines if (m := regex.search(line))]
    # A name still written somewhere (moved, redefined, or read elsewhere in the hunk) is not gone.
    kept_text = (
        "\n".join(line for f in facts.files for line in f.text.splitlines() if not line.startswith("-"))
        if removed
        else ""
    )
    evidence.removed_names = list(dict.fromkeys(name for name in removed if name not in kept_text))
    if evidence.removed_names:
        evidence.vote(definitions.type, definitions.weight, code_span(evidence.removed_names[0]))
        evidence.signal("breaking", "definitions")
    if table := _constant_table_edited(facts, rules):
        cite = code_span(table)
        evidence.caps.append((rules.diff.constant_table_importance, cite))
        evidence.cap_reasons[cite] = "reason_data_table"
    if (edit := rules.diff.repeated_edit) and (line := _repeated_line(facts, rules, edit)):
        evidence.vote(edit.type, edit.weight, code_span(clip(line, MAX_QUOTED)))
    if version := _own_version_set(facts, rules):
        evidence.signal("release", code_span(f"version = {version}"))
    if "release" not in evidence.signals and (note := _upgrade_note(facts, rules)):
        evidence.signal("breaking", note)
    evidence.dependencies = _dependency_changes(title, facts, rules)
    deps = rules.dependencies
    evidence.ships_dependencies = title.scope.lower() not in deps.dev_scopes and any(
        deps.ships(f.path) and not deps.installs_side_by_side(f.path) for f in facts.files
    )
    if evidence.dependencies and _versions_only(facts, evidence.dependencies):
        evidence.vote(ChangeType.build, deps.versions_only_weight, code_span(evidence.dependencies[0].name))
    for change in evidence.dependencies:
        weight = rules.dependencies.major_weight if change.major else rules.dependencies.routine_weight
        if not deps.incidental(change.name, facts.source_lines, title.subject):
            evidence.vote(ChangeType.build, weight, code_span(change.name))
        # A framework or runtime moved to a new major version, or to one the commit names without its
        # predecessor ("switch to CUDA 13"): users on the old one must follow.
        if change.major and (change.semver_major or change.old is None) and "breaking" not in evidence.signals:
            evidence.signal("breaking", code_span(change.name))
            evidence.inferred_break = True


def _repeated_line(facts: Files, rules: RuleSet, edit: RepeatedEdit) -> str | None:
    """The line a commit writes most when it makes one small edit across many existing source files; else None.

    A sweep ("use islice over the layers in every model", "pass the prefix to every
    head") repeats a few lines file after file; files that each change in their
    own way share few of their lines.
    """
    source = [facts.files[i] for i in facts.counted if rules.path_rules(facts.classes[i]).type is None]
    if (
        len(source) < edit.min_files
        or len(source) < len(facts.counted)
        or any(f.status != FileStatus.modified or f.additions + f.deletions > edit.max_lines for f in source)
    ):
        return None
    written: dict[str, int] = {}
    for file in source:
        for sign in "+-":
            for line in signed_lines(file.text, sign):
                if text := line[1:].strip():
                    written[text] = written.get(text, 0) + (sign == "+")
    if not written or len(written) > edit.max_distinct_share * len(source):
        return None
    return max(written, key=lambda text: written[text])


#: A Python function or class the patch removes whose name marks it private (``def _scope_root(``).
_PRIVATE_DEFINITION = re.compile(r"^-(?P<indent>[ \t]*)(async[ \t]+)?(def|class)[ \t]+_\w")


def _outside_private_definitions(patch: str) -> tuple[str, ...]:
    """The removed lines of ``patch`` but those in the body of a private Python function or class it removes.

    A lookup table local to such a helper (``{"class": Class, "module": Module}``)
    is no registry users select from: it goes with the helper nobody outside called.
    """
    kept: list[str] = []
    depth: int | None = None
    for line in _lines(patch):
        sign, code = line[:1], line[1:]
        if sign not in ("-", " ") or line.startswith("---"):
            depth = None if sign == "@" else depth  # a new hunk starts outside what the last one showed
            continue
        if code.strip() and depth is not None and len(code) - len(code.lstrip()) <= depth:
            depth = None
        if depth is None and (match := _PRIVATE_DEFINITION.match(line)):
            depth = len(match.group("indent"))
        elif sign == "-" and depth is None:
            kept.append(line)
    return tuple(kept)


#: A hunk header and the line git names after it (the declaration the hunk sits in).
_HUNK_HEADER = re.compile(r"^@@[^@]*@@ ?(?P<context>.*)$")
#: What a table's entry holds besides its literals: brackets, references, separators.
_ENTRY_PUNCTUATION = re.compile(r"^[\s&\[\](){},:;]*$")
#: A string, character or number literal.
_LITERAL = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|\b\d+(?:\.\d+)?\b""")


def _constant_table_edited(facts: Files, rules: RuleSet) -> str | None:
    """The constant table a commit edits when every line it changes is a literal entry of one; else None.

    Only the project's own code counts (files of a path class with a type are
    judged by their class), and every hunk must sit in a table git names.
    """
    declaration = rules.diff.constant_table
    if declaration is None:
        return None
    tables: list[str] = []
    for i in facts.counted:
        file = facts.files[i]
        if rules.path_rules(facts.classes[i]).type is not None:
            continue
        if not file.text:
            return None
        table = None
        for line in _lines(file.text):
            if line.startswith(("+++", "---")):
                continue
            if header := _HUNK_HEADER.match(line):
                declared = declaration.regex.match(header.group("context"))
                if declared is None:
                    return None
                table = declared.groupdict().get("name") or declared.group(0).strip()
            elif line[:1] in "+-" and (code := line[1:].strip()) and not code.startswith(_COMMENT):
                if table is None or not _ENTRY_PUNCTUATION.match(_LITERAL.sub("", code)):
                    return None
                tables.append(table)
    return tables[0] if tables else None


#: A TOML table's header, quotes and all (`[target.'cfg(target_env = "musl")'.dependencies.jemalloc]`).
_TABLE = re.compile(r"^\s*\[{1,2}(?P<name>.+?)\]{1,2}\s*$")


def _own_version_set(facts: Files, rules: RuleSet) -> str | None:
    """The version a commit gives its packages when their shipped manifests change nothing else; else None.

    That is what a release tool writes, whatever title it chooses: each package's
    own ``version`` line and the versions a workspace requires of its members. A
    ``version`` line under a dependency's table (``[dependencies.serde]``, seen in
    the hunk) is the dependency's; a manifest line of any other kind is no release.
    """
    release = rules.release
    version = None
    for i in facts.counted:
        file = facts.files[i]
        if not rules.dependencies.ships(file.path):
            continue
        section = ""
        for line in _lines(file.text):
            if line.startswith(("+++", "---")):
                continue
            if line.startswith("@@"):
                section = ""
            elif header := _TABLE.match(line[1:]):
                section = header.group("name")
            elif line[:1] not in "+-" or not line[1:].strip():
                continue
            elif (own := release.line_regexes["own_version"].match(line)) and "dependencies" not in section.lower():
                version = own.group("version") if line[0] == "+" else version
            elif release.line_regexes["local_dependency"].match(line) is None:
                return None
    return version or _version_module_set(facts, rules)


def _version_module_set(facts: Files, rules: RuleSet) -> str | None:
    """The version a commit writes in the project's code when that is all the code it changes; else None.

    A package whose manifest reads its version from a module (``VERSION = "5.2.0"``
    in ``__init__.py``, hatch's or setuptools' dynamic version) is released by
    editing that line alone: the changelog's heading and the docs' copies of the
    number are no code.
    """
    own = rules.release.line_regexes["own_version"]
    version = None
    for i in facts.counted:
        if rules.path_rules(facts.classes[i]).type is not None:
            continue
        for line in _lines(facts.files[i].text):
            if line.startswith(("+++", "---")) or line[:1] not in "+-" or not line[1:].strip():
                continue
            if (match := own.match(line)) is None:
                return None
            version = match.group("version") if line[0] == "+" else version
    return version


def _upgrade_note(facts: Files, rules: RuleSet) -> str | None:
    """The first section a commit adds to the project's notes for upgraders, after the notes' name; else None.

    Only new sections count: as many removed as added reword the notes.
    """
    release = rules.release
    for file in facts.files:
        if not release.files["upgrade_notes"].matches(file.path):
            continue
        added, removed = (_sections(file, sign, release.line_regexes["upgrade_entry"]) for sign in "+-")
        if len(added) > len(removed):
            return f"{code_span(file.path.rpartition('/')[2])}: {clip(added[0], MAX_QUOTED)}"
    return None


#: A word of a section's title: a version's heading (`## [v0.31.0](…)`) has none or one.
_WORD = re.compile(r"[A-Za-z]{2,}")
#: The link to the pull request a section's title ends with: `([#2236])`.
# Starts where its run of blanks does: tried inside a long run, it would cost time quadratic in its length.
_TRAILING_LINK = re.compile(r"(?<!\s)\s*\(\[[^\]]*\]\)\s*$")


def _sections(file: ContextFile, sign: str, entry: re.Pattern[str]) -> list[str]:
    """The titles of the sections the ``sign`` lines of ``file`` open, of two words at least."""
    titles = (
        _TRAILING_LINK.sub("", m.group("text").strip()) for line in _patch_lines(file, sign) if (m := entry.match(line))
    )
    return [title for title in titles if len(_WORD.findall(link_targets_dropped(title))) >= 2]


#: A version number as manifests and version tables write it, from where its digits start (as above).
_VERSION = re.compile(r"(?<!\d)\d+\.\d+")


def _versions_only(facts: Files, changes: list[DependencyChange]) -> bool:
    """Every line the commit changes names a dependency it bumps beside a version: nothing else changes."""
    files = [facts.files[i] for i in facts.counted]
    if not files or not all(f.text for f in files):
        return False
    names = [change.name.lower() for change in changes]
    lines = [line for f in files for sign in "+-" for line in _patch_lines(f, sign)]
    return bool(lines) and all(_VERSION.search(line) and any(n in line.lower() for n in names) for line in lines)


def _dependency_changes(title: Title, facts: Files, rules: RuleSet) -> list[DependencyChange]:
    deps = rules.dependencies
    found: dict[str, tuple[str, str | None, str]] = {}
    for pattern in deps.title_regexes:
        if match := pattern.search(title.description):
            name = match.group("name")
            found[name.lower()] = (name, match.groupdict().get("old"), match.group("new"))
    for file, path_class in zip(facts.files, facts.classes, strict=True):
        if rules.path_rules(path_class).type != ChangeType.build:
            continue
        for key, versions in version_changes(file, rules).items():
            if key not in found or found[key][1] is None:
                found[key] = versions
    changes: dict[str, DependencyChange] = {}
    for name, old_version, new_version in found.values():
        big = old_version is None or old_version.split(".")[:2] != new_version.split(".")[:2]
        semver = old_version is not None and semver_incompatible(old_version, new_version)
        change = DependencyChange(name, old_version, new_version, deps.is_major(name), big, semver)
        # `torch` in the title and `TORCH_SUPPORTED_VERSION` in CMake are one bump; keep the one showing both versions.
        key = deps.words(name)[0] if change.major else name.lower()
        if key not in changes or (changes[key].old is None and old_version is not None):
            changes[key] = change
    return sorted(changes.values(), key=lambda c: (not c.major, c.name.lower()))


def shipped_lines(file: ContextFile, sign: str, rules: RuleSet) -> tuple[str, ...]:
    """The ``sign`` lines of a manifest's patch, less those under a development or tool section the hunk shows.

    A ``[dev-dependencies]`` table or a ``"devDependencies": {`` object lists what
    the project's own developers install, not its users; a ``[tool.mypy]`` table
    configures their tools (its ``python_version`` is the checker's target, no
    floor). Only a header inside the hunk is seen: lines whose section header lies
    above git's context count as shipped, as every line did before sections were read,
    but in a manifest whose developers' section is the long one (``headerless_dev``).
    """
    deps = rules.dependencies
    sections = deps.section_regex, deps.dev_section_regex, deps.tool_section_regex
    return _shipped(file.text, sign, *sections, deps.headerless_is_dev(file.path))


# The surface and the dependency reading both ask for a manifest's lines, once per sign: split each once.
@functools.lru_cache(maxsize=32)
def _shipped(
    text: str,
    sign: str,
    section: re.Pattern[str],
    dev_section: re.Pattern[str],
    tool_section: re.Pattern[str],
    headerless_dev: bool,
) -> tuple[str, ...]:
    lines: list[str] = []
    dev = headerless_dev
    for line in text.splitlines():
        if line.startswith("@@"):
            dev = headerless_dev
        elif line.startswith(("+++", "---")):
            continue
        elif header := section.match(line[1:]):
            name = header.group("name")
            dev = dev_section.search(name) is not None or tool_section.match(name) is not None
        elif line.startswith(sign) and not dev:
            lines.append(line)
    return tuple(lines)


def version_changes(file: ContextFile, rules: RuleSet) -> dict[str, tuple[str, str, str]]:
    """The dependencies whose version line ``file``'s patch changes for users: lower-case name -> (name, old, new).

    A name on several lines of a side (the main setting, then a profile's override
    that the commit retires) is read at its first line on either side.
    """
    deps = rules.dependencies
    old: dict[str, str] = {}
    for line in shipped_lines(file, "-", rules):
        if m := deps.version_match(line):
            old.setdefault(m.group("name").lower(), m.group("version"))
    changed: dict[str, tuple[str, str, str]] = {}
    for line in shipped_lines(file, "+", rules):
        match = deps.version_match(line)
        if match is None or deps.is_filler(match.group("name")):
            continue
        key = match.group("name").lower()
        if key in old and old[key] != match.group("version") and key not in changed:
            changed[key] = (match.group("name"), old[key], match.group("version"))
    return changed


def read_patch_fallback(evidence: Evidence, facts: Files, rules: RuleSet) -> None:
    """What the patch suggests when nothing names a type.

    New public names suggest a feature; changed conditions with a new test, a fix, and so do conditions added
    to a file that existed, with a new test, by a commit that declares nothing new (no public name, no
    parameter): a guard for the case the test shows.
    """
    diff = rules.diff
    source = [f for f, name in zip(facts.files, facts.classes, strict=True) if rules.path_rules(name).type is None]
    tests = [
        f for f, name in zip(facts.files, facts.classes, strict=True) if rules.path_rules(name).type == ChangeType.test
    ]
    removed_text = "\n".join(line for f in facts.files for line in _patch_lines(f, "-"))
    names = [
        m.group("name")
        for file in source
        for line in _patch_lines(file, "+")
        for regex in diff.name_regexes
        if (m := regex.search(line))
    ]
    # A name the commit also removes was moved or renamed, not added; test helpers add nothing users see.
    new = list(dict.fromkeys(n for n in names if n not in removed_text and not n.lower().startswith("test")))
    added, deleted = sum(f.additions for f in source), sum(f.deletions for f in source)
    if new and added >= diff.new_names_min_growth * deleted:
        evidence.fallback[diff.new_names_type] = diff.new_names_weight
        evidence.fallback_reasons[diff.new_names_type] = ("reason_diff_names", {"names": new})
    adds_test = any(regex.search(line) for f in tests for line in _patch_lines(f, "+") for regex in diff.test_regexes)
    declares = bool(new) or any(diff.parameter_regex.search(line) for f in source for line in _patch_lines(f, "+"))
    changed = [
        f
        for f in source
        if any(diff.condition_regex.search(line) for line in _patch_lines(f, "+"))
        and (
            (f.status == FileStatus.modified and not declares)
            or any(diff.condition_regex.search(line) for line in _patch_lines(f, "-"))
        )
    ]
    if adds_test and changed:
        weight = max(diff.condition_weight, evidence.fallback.get(diff.condition_type, 0.0))
        evidence.fallback[diff.condition_type] = weight
        evidence.fallback_reasons[diff.condition_type] = ("reason_diff_fix", {"path": changed[0].path})
    if source and not evidence.fallback and not evidence.changelog and not evidence.sync_merge:
        # Beside the code only its tests: a commit that also edits tooling or build files follows them.
        code_only = len(source) + len(tests) == len(facts.files)
        _read_shape(evidence, source, rules, code_only)


#: How a line that holds no code starts: a comment, a docstring's quotes.
_COMMENT = ("#", "//", "/*", "*", '"' * 3, "'" * 3, "--")


def _code_lines(files: list[ContextFile], sign: str) -> int:
    """The patch lines of ``files`` that ``sign`` begins and that hold code, not a comment or a blank."""
    return sum(
        1
        for file in files
        for line in signed_lines(file.text, sign)
        if (code := line[1:].strip()) and not code.startswith(_COMMENT)
    )


def _read_shape(evidence: Evidence, source: list[ContextFile], rules: RuleSet, code_only: bool) -> None:
    """The diff's shape when nothing names a type: a net deletion cleans up, a small edit of existing code adjusts,
    a larger rewrite of existing code restructures it.

    A small edit changes existing lines, or only adds a few to files that existed (a new file is no edit).
    A rewrite changes more lines than an edit in files that all existed, and declares no public name the
    code grows by: code moved from one module into another ("Complete the render delegation"), a wrapper
    unwrapped and its callers pointed at the function, a series' next step ("[5/N] Initialize ... in
    context managers"). A change that adds behaviour brings a module, a name or a condition with it; one
    that also edits tooling or build files (``code_only`` false) rewrites the code after them, a new
    linter's fixes or a vendored library's update, and is no restructuring of its own.

    Only the code lines the patches show count: a change whose patch is absent has no shape to read.
    """
    diff = rules.diff
    added, deleted = _code_lines(source, "+"), _code_lines(source, "-")
    if deleted >= diff.deletion_min_lines and deleted >= diff.deletion_ratio * added:
        reason = ("reason_diff_deletion", {"deletions": deleted, "additions": added})
        evidence.fallback[diff.deletion_type] = diff.shape_weight
        evidence.fallback_reasons[diff.deletion_type] = reason
    elif _reordered(source, rules):
        evidence.fallback[diff.reorder_type] = diff.shape_weight
        evidence.fallback_reasons[diff.reorder_type] = ("reason_diff_reorder", {"path": source[0].path})
    elif 0 < added + deleted <= diff.edit_max_lines and (
        deleted or all(f.status == FileStatus.modified for f in source)
    ):
        evidence.fallback[diff.edit_type] = diff.shape_weight
        evidence.fallback_reasons[diff.edit_type] = ("reason_diff_edit", {"path": source[0].path})
    elif code_only and deleted and all(f.status == FileStatus.modified for f in source):
        # Larger than an edit, yet no new module and no public name the code grows by (those vote above).
        busiest = max(source, key=lambda f: f.additions + f.deletions)
        evidence.fallback[diff.rewrite_type] = diff.shape_weight
        evidence.fallback_reasons[diff.rewrite_type] = ("reason_diff_rewrite", {"path": busiest.path})


def _reordered(files: list[ContextFile], rules: RuleSet) -> bool:
    """Whether each file's patch only puts entries of a mapping (``"KEY": value,``) in another order.

    Every line removed comes back added, and each is such an entry: a mapping
    reads the same whatever order its keys are written in. A list's items or a
    function's statements are not entries: their order may be what they mean.
    """
    entry = rules.diff.reorder_regex
    moved = False
    for file in files:
        removed, added = ([line[1:].strip() for line in signed_lines(file.text, sign)] for sign in "-+")
        removed, added = [line for line in removed if line], [line for line in added if line]
        if sorted(removed) != sorted(added) or not all(entry.match(line) for line in removed):
            return False
        moved = moved or bool(removed)
    return moved
