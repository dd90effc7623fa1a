"""The heuristic reads a JVM library's public surface (the Java and Kotlin types and members it offers) and
the conventions of the projects that publish such libraries: Javadoc, titles that name the issue they close,
"Minor tweaks".

A Java library's users call its ``public`` and subclass its ``protected`` types
and members; Kotlin's declarations are public unless they say otherwise. A hunk
rarely shows the class a member sits in, so members are named by signature and
a member that moves is no change. Every commit is made by git in a temporary
repository and read by the git source, as a report reads it
(:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse, heuristic_input, surface

from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.models import ChangeType, Importance, PullRequest

_MAIN = "src/main/java/com/acme/json"


def _method(name: str, parameters: str) -> str:
    """A public method long enough that a hunk changing the next one does not show this one's body."""
    body = "".join(f"    int step{i} = {i} * text.length();\n" for i in range(8))
    start = "    String text = String.valueOf(this);\n"
    return f"  public int {name}({parameters}) {{\n{start}{body}    return 0;\n  }}\n\n"


def _class(name: str, methods: list[str], header: str = "public final class", package: str = "com.acme.json") -> str:
    """A Java source: a Javadoc'd class whose declaration is far above the methods a commit changes."""
    fields = "".join(f"  private final int limit{i} = {i};\n" for i in range(10))
    return f"package {package};\n\n/** {name}. */\n{header} {name} {{\n{fields}\n{''.join(methods)}}}\n"


_READER_METHODS = [
    _method("parse", "String text"),
    _method("parse", "String text, boolean strict"),
    _method("peek", "final String text"),
    _method("depth", "java.util.Map<String, Object> tree, int... path"),
]


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# acme-json\n",
            f"{_MAIN}/Reader.java": _class("Reader", _READER_METHODS),
            f"{_MAIN}/BaseReader.java": _class("BaseReader", [_method("close", "")], header="public abstract class"),
        },
    )


def test_a_public_method_removed_is_breaking_its_overload_kept_is_not_touched(repo: Repo) -> None:
    methods = [m for m in _READER_METHODS if "String text)" not in m or "peek" in m]
    analysis = analyse(repo.change("Tidy the reader", {f"{_MAIN}/Reader.java": _class("Reader", methods)}))
    assert surface(analysis) == {("public_api", "removed", "parse(String)", None, None, None)}
    assert analysis.flags.breaking
    assert analysis.type == ChangeType.feat
    assert analysis.importance in (Importance.medium, Importance.high)


def test_a_parameter_type_changed_is_the_old_signature_removed(repo: Repo) -> None:
    changed = _class("Reader", [m.replace("final String text", "CharSequence text") for m in _READER_METHODS])
    analysis = analyse(repo.change("Tidy the reader", {f"{_MAIN}/Reader.java": changed}))
    assert surface(analysis) == {
        ("public_api", "removed", "peek(String)", None, None, None),
        ("public_api", "added", "peek(CharSequence)", None, None, None),
    }
    assert analysis.flags.breaking


def test_a_method_moved_to_a_superclass_is_no_change(repo: Repo) -> None:
    peek = _READER_METHODS[2]
    reader = _class("Reader", [m for m in _READER_METHODS if m != peek])
    base = _class("BaseReader", [_method("close", ""), peek], header="public abstract class")
    analysis = analyse(repo.change("Move peek up", {f"{_MAIN}/Reader.java": reader, f"{_MAIN}/BaseReader.java": base}))
    assert not [c for c in analysis.surface if c.kind == "public_api"]
    assert not analysis.flags.breaking


def test_a_new_public_class_is_a_feature_of_at_least_medium(repo: Repo) -> None:
    """Even when the commit removes about as much code as it adds (no growth for `[diff] new_names`)."""
    source = _class("JsonPath", [_method("select", "String expression")])
    reader = _class("Reader", _READER_METHODS).replace("  private final int limit", "  private final long limit")
    reader = reader.replace("int step", "long step")
    analysis = analyse(
        repo.change("Update the json module", {f"{_MAIN}/JsonPath.java": source, f"{_MAIN}/Reader.java": reader})
    )
    assert ("public_api", "added", "JsonPath", None, None, None) in surface(analysis)
    assert analysis.type == ChangeType.feat
    assert analysis.importance in (Importance.medium, Importance.high)
    assert not analysis.flags.breaking


def test_what_a_library_keeps_to_itself_is_no_surface(repo: Repo) -> None:
    """Internal packages, tests, a package-private class, a member named `_x`: removing them breaks no user."""
    places = {
        "src/main/java/com/acme/json/internal/Buffers.java": ("Buffers", "public final class", "acquire"),
        "src/test/java/com/acme/json/ReaderTest.java": ("ReaderTest", "public final class", "check"),
        f"{_MAIN}/Hidden.java": ("Hidden", "final class", "release"),
        f"{_MAIN}/Pool.java": ("Pool", "public final class", "_release"),
    }

    def sources(kept: bool) -> dict[str, str]:
        return {
            path: _class(name, [_method("size", "String text"), *([_method(gone, "int size")] if kept else [])], header)
            for path, (name, header, gone) in places.items()
        }

    repo.change("Add helpers", sources(kept=True))
    analysis = analyse(repo.change("Tidy the helpers", sources(kept=False)))
    assert not [c for c in analysis.surface if c.kind == "public_api"]
    assert not analysis.flags.breaking


def _interface(methods: str) -> str:
    constants = "".join(f"  int LIMIT_{i} = {i};\n" for i in range(10))
    return f"package com.acme.json;\n\n/** A pool. */\npublic interface Pool<P> {{\n{constants}\n{methods}}}\n"


def test_a_public_interfaces_methods_are_public_without_saying_so(repo: Repo) -> None:
    methods = (
        "  P acquire();\n\n  void release(P pooled);\n\n"
        "  default int size() {\n    return acquire() == null ? 0 : 1;\n  }\n"
    )
    repo.change("Add the pool", {f"{_MAIN}/Pool.java": _interface(methods)})
    changed = methods.replace("  void release(P pooled);\n\n", "  boolean clear();\n\n")
    analysis = analyse(repo.change("Rework the pool", {f"{_MAIN}/Pool.java": _interface(changed)}))
    assert surface(analysis) == {
        ("public_api", "removed", "release(P)", None, None, None),
        ("public_api", "added", "clear()", None, None, None),
    }
    assert analysis.flags.breaking
    # In a class, a method that says nothing is package-private: no surface.
    hidden = _class("Reader", [*_READER_METHODS, "  int count(String text) {\n    return 0;\n  }\n"])
    analysis = analyse(repo.change("Count in the reader", {f"{_MAIN}/Reader.java": hidden}))
    assert not [c for c in analysis.surface if c.kind == "public_api"]


def test_a_declaration_commented_out_is_no_surface(repo: Repo) -> None:
    """`//public boolean hasToken()` left as a note: deleting the note removes nothing users call."""
    note = "  //public boolean hasToken()\n  // public String currentName()\n\n"
    repo.change("Note the accessors", {f"{_MAIN}/Reader.java": _class("Reader", [*_READER_METHODS, note])})
    edited = [_READER_METHODS[0].replace("return 0;", "return 1;"), *_READER_METHODS[1:]]
    analysis = analyse(repo.change("Drop the note", {f"{_MAIN}/Reader.java": _class("Reader", edited)}))
    assert not [c for c in analysis.surface if c.kind == "public_api"]
    assert not analysis.flags.breaking


def test_an_override_removed_is_no_surface(repo: Repo) -> None:
    """An override implements what a supertype declares: callers still reach it (an anonymous class's too)."""
    overrides = (
        '  @Override\n  public String toString() {\n    return "reader";\n  }\n\n'
        "  private static final java.util.Comparator<String> ORDER = new java.util.Comparator<String>() {\n"
        "    @Override public int compare(String a, String b) {\n      return a.length() - b.length();\n    }\n  };\n\n"
    )
    repo.change("Describe the reader", {f"{_MAIN}/Reader.java": _class("Reader", [*_READER_METHODS, overrides])})
    analysis = analyse(repo.change("Tidy the reader", {f"{_MAIN}/Reader.java": _class("Reader", _READER_METHODS)}))
    assert not [c for c in analysis.surface if c.kind == "public_api"]
    assert not analysis.flags.breaking


def test_an_abstract_method_made_an_override_is_still_there(repo: Repo) -> None:
    """The declaration goes, an override of the same signature comes: callers call it as before."""
    abstract = "  public abstract int size();\n\n"
    concrete = "  @Override public int size() {\n    return 0;\n  }\n\n"
    base = f"{_MAIN}/BaseReader.java"

    def declaring(size: str) -> dict[str, str]:
        return {base: _class("BaseReader", [size, *_READER_METHODS], "public abstract class")}

    repo.change("Size the reader", declaring(abstract))
    analysis = analyse(repo.change("Size every reader", declaring(concrete)))
    assert not [c for c in analysis.surface if c.kind == "public_api"]
    assert not analysis.flags.breaking


def test_deprecated_added_to_a_public_method_is_a_deprecation(repo: Repo) -> None:
    deprecated = _READER_METHODS[0].replace("  public int parse", "  @Deprecated // since 2.3\n  public int parse")
    reader = _class("Reader", [deprecated, *_READER_METHODS[1:]])
    analysis = analyse(repo.change("Tidy the reader", {f"{_MAIN}/Reader.java": reader}))
    assert surface(analysis) == {("deprecation", "deprecated", "parse(String)", None, None, None)}
    assert analysis.type == ChangeType.feat
    assert analysis.importance == Importance.medium
    assert not analysis.flags.breaking


def test_a_title_deprecating_what_the_diff_still_declares_is_not_breaking(repo: Repo) -> None:
    """ "Deprecate X" often removes X in the same commit; when the diff only marks it, users' code keeps working."""
    deprecated = _READER_METHODS[0].replace("  public int parse", "  @Deprecated\n  public int parse")
    reader = _class("Reader", [deprecated, *_READER_METHODS[1:]])
    analysis = analyse(repo.change("Deprecate `Reader.parse(String)`", {f"{_MAIN}/Reader.java": reader}))
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.medium)
    assert not analysis.flags.breaking


def test_an_annotation_on_the_declarations_line_belongs_to_that_declaration_only(repo: Repo) -> None:
    one_liners = "  @Deprecated public int legacy() { return 0; }\n  public int modern() { return 1; }\n"
    reader = _class("Reader", [*_READER_METHODS, one_liners])
    analysis = analyse(repo.change("Tidy the reader", {f"{_MAIN}/Reader.java": reader}))
    assert {(c.kind, c.name) for c in analysis.surface} == {
        ("public_api", "legacy()"),
        ("public_api", "modern()"),
        ("deprecation", "legacy()"),
    }


def test_a_deprecation_its_maintainers_label_breaking_stays_breaking(repo: Repo) -> None:
    deprecated = _READER_METHODS[0].replace("  public int parse", "  @Deprecated\n  public int parse")
    reader = _class("Reader", [deprecated, *_READER_METHODS[1:]])
    commit = repo.change("Deprecate `Reader.parse(String)`", {f"{_MAIN}/Reader.java": reader})
    analyzer = HeuristicAnalyzer(language="en")
    item = heuristic_input(commit, analyzer).model_copy(
        update={"pull_request": PullRequest(number=12, labels=["semver-major"])}
    )
    assert analyzer.analyze_sync(item).flags.breaking


def _kotlin(functions: str) -> str:
    padding = "".join(f"    private val limit{i} = {i}\n" for i in range(10))
    return f"package com.acme.json\n\nclass Writer {{\n{padding}\n{functions}}}\n"


_KOTLIN_FUNCTIONS = (
    "    fun write(value: Any?, indent: Int = 2): String {\n        return value.toString()\n    }\n\n"
    "    private fun escape(text: String): String {\n        return text\n    }\n\n"
)


def test_a_kotlin_function_removed_is_breaking_a_private_one_or_a_new_defaulted_parameter_is_not(repo: Repo) -> None:
    writer = "src/main/kotlin/com/acme/json/Writer.kt"
    repo.change("Add the writer", {writer: _kotlin(_KOTLIN_FUNCTIONS)})
    defaulted = _KOTLIN_FUNCTIONS.replace("indent: Int = 2)", "indent: Int = 2, pretty: Boolean = false)")
    analysis = analyse(repo.change("Let the writer pretty-print", {writer: _kotlin(defaulted)}))
    assert not [c for c in analysis.surface if c.kind == "public_api"]
    private_gone = defaulted.split("\n\n")[0] + "\n\n"
    analysis = analyse(repo.change("Tidy the writer", {writer: _kotlin(private_gone)}))
    assert not analysis.flags.breaking
    analysis = analyse(repo.change("Tidy the writer", {writer: _kotlin("")}))
    assert surface(analysis) == {("public_api", "removed", "write(Any?)", None, None, None)}
    assert analysis.flags.breaking


def test_a_public_helper_a_refactor_extracts_is_no_new_type(repo: Repo) -> None:
    """A method is named `name(...)`, a constant `NAME`, a type `Name`: only a new type is a feature of medium."""
    reader = _class("Reader", [*_READER_METHODS, _method("isBlank", "String text")])
    analysis = analyse(repo.change("refactor: extract the blank check", {f"{_MAIN}/Reader.java": reader}))
    assert ("public_api", "added", "isBlank(String)", None, None, None) in surface(analysis)
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)
    constant = "  public static final int MAX_DEPTH = 1000;\n\n"
    reader = _class("Reader", [constant, *_READER_METHODS, _method("isBlank", "String text")])
    analysis = analyse(repo.change("refactor: name the depth limit", {f"{_MAIN}/Reader.java": reader}))
    assert ("public_api", "added", "MAX_DEPTH", None, None, None) in surface(analysis)
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)


def test_a_title_naming_the_issue_it_closes_is_read_after_the_reference(repo: Repo) -> None:
    """`Fix #12: add X` closes issue 12, which asked for a feature: the words after the reference say what it is."""
    reader = _class("Reader", [*_READER_METHODS, _method("skipValue", "String text")])
    analysis = analyse(repo.change("Fix #12: add `Reader.skipValue()`", {f"{_MAIN}/Reader.java": reader}))
    assert analysis.type == ChangeType.feat


def test_a_public_method_the_source_grows_by_is_new_capability(repo: Repo) -> None:
    """Like a new public function in Python or Rust, a new public Java method votes for a feature (`[diff]`)."""
    reader = _class("Reader", [*_READER_METHODS, _method("skipValue", "String text")])
    analysis = analyse(repo.change("Update the reader", {f"{_MAIN}/Reader.java": reader}))
    assert analysis.type == ChangeType.feat


# --------------------------------------------------------------------------- Javadoc and titles


def test_javadoc_lines_whose_star_runs_into_an_html_tag_are_comments(repo: Repo) -> None:
    """` *<p>` is how many Java libraries open a Javadoc paragraph: a commit adding only such lines documents."""
    note = "  /**\n   * Parses.\n   *<p>\n   * NOTE: renamed in 3.0.\n   *</p>\n   */\n"
    reader = _class("Reader", [note + _READER_METHODS[0], *_READER_METHODS[1:]])
    analysis = analyse(repo.change("Add a note on the upcoming rename", {f"{_MAIN}/Reader.java": reader}))
    assert analysis.type == ChangeType.docs
    assert analysis.importance == Importance.low


def test_a_title_calling_a_small_edit_minor_tweaks_is_a_low_refactor(repo: Repo) -> None:
    """Without it a small edit of existing code reads as a fix of medium importance."""

    def returning(value: str) -> str:
        return _class("Reader", [_READER_METHODS[0].replace("return 0;", f"return {value};"), *_READER_METHODS[1:]])

    analysis = analyse(repo.change("Minor tweaks", {f"{_MAIN}/Reader.java": returning("-1")}))
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)
    analysis = analyse(repo.change("Minor fix to the reader's result", {f"{_MAIN}/Reader.java": returning("1")}))
    assert analysis.type == ChangeType.fix


# --------------------------------------------------------------------------- Gradle


def _gradle(toolchain: str, compatibility: str) -> str:
    return (
        'plugins {\n    `java-library`\n    kotlin("jvm") version "2.0.21"\n}\n\n'
        f"kotlin {{\n    jvmToolchain({toolchain})\n}}\n\n"
        f"java {{\n    sourceCompatibility = JavaVersion.{compatibility}\n}}\n\n"
        'dependencies {\n    api("com.squareup.okio:okio:3.9.1")\n}\n'
    )


def test_a_java_level_raised_in_a_gradle_build_script_is_a_breaking_toolchain_floor(repo: Repo) -> None:
    repo.change("Add the build", {"build.gradle.kts": _gradle("8", "VERSION_1_8")})
    analysis = analyse(repo.change("Build with a newer JDK", {"build.gradle.kts": _gradle("17", "VERSION_17")}))
    assert ("dependency_floor", "raised_floor", "jvmToolchain", "8", "17", None) in surface(analysis)
    assert ("dependency_floor", "raised_floor", "sourceCompatibility", "8", "17", None) in surface(analysis)
    assert analysis.type == ChangeType.build
    assert analysis.importance == Importance.high
    assert analysis.flags.breaking


def test_gradle_build_logic_is_build_not_the_librarys_surface(repo: Repo) -> None:
    """`buildSrc/` and `build-logic/` hold the conventions the build scripts apply: nothing users call."""
    logic = 'object Deps {\n    fun okio(version: String) = "com.squareup.okio:okio:$version"\n}\n'
    repo.change("Add build logic", {"buildSrc/src/main/kotlin/Deps.kt": logic})
    analysis = analyse(repo.change("Move to version catalogs", {"buildSrc/src/main/kotlin/Deps.kt": "object Deps\n"}))
    assert not [c for c in analysis.surface if c.kind == "public_api"]
    assert analysis.type == ChangeType.build
    assert not analysis.flags.breaking


def test_a_samples_tree_is_examples_not_the_librarys_surface(repo: Repo) -> None:
    sample = "src/main/java/com/acme/sample/Recipes.java"
    repo.change("Add a recipe", {f"samples/{sample}": _class("Recipes", [_method("readAll", "String path")])})
    analysis = analyse(repo.change("Update the recipes", {f"samples/{sample}": _class("Recipes", [])}))
    assert not [c for c in analysis.surface if c.kind == "public_api"]
    assert not analysis.flags.breaking
