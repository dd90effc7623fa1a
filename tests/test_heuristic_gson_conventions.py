"""The heuristic on the conventions of a Java library built with Maven.

Such a library declares its Java level in ``pom.xml`` (``maven.compiler.release``),
releases with Maven's release plugin (two ``[maven-release-plugin]`` commits per
release), keeps a hand-written ``CHANGELOG.md`` whose old entries get their
typos fixed, and explains its security fixes in the commit body. Every commit is
made by git in a temporary repository and read by the git source, as a report
reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance


def _pom(version: str, release: str, profile_release: str | None = None, test_release: str = "11") -> str:
    """A module's ``pom.xml``: its own version, the Java level it targets, optionally a profile overriding it."""
    profile = (
        "  <profiles>\n    <profile>\n      <id>jdk21+</id>\n      <properties>\n"
        f"        <maven.compiler.release>{profile_release}</maven.compiler.release>\n"
        "      </properties>\n    </profile>\n  </profiles>\n"
        if profile_release
        else ""
    )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n<project>\n  <modelVersion>4.0.0</modelVersion>\n'
        f"  <groupId>com.acme</groupId>\n  <artifactId>acme-json</artifactId>\n  <version>{version}</version>\n"
        "  <properties>\n"
        f"    <maven.compiler.release>{release}</maven.compiler.release>\n"
        f"    <maven.compiler.testRelease>{test_release}</maven.compiler.testRelease>\n"
        "  </properties>\n"
        f"{profile}</project>\n"
    )


_CHANGELOG = """# Change Log

## Version 2.8.8

* Fixed issue with recursive types.
* Better behaviour with Java 9+ and `Unsafe` if there is a security manager.
* `EnumTypeAdapter` now works better when ProGuard has obfuscated enum fields.
"""

_READER = """package com.acme.json;

/** Reads JSON. */
public final class Reader {
  private final int maxDepth;

  public Reader(int maxDepth) {
    this.maxDepth = maxDepth;
  }

  int depth(String index) {
    return Integer.parseInt(index);
  }
}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# acme-json\n",
            "CHANGELOG.md": _CHANGELOG,
            "pom.xml": _pom("2.13.3-SNAPSHOT", "7", profile_release="8"),
            "src/main/java/com/acme/json/Reader.java": _READER,
        },
    )


# --------------------------------------------------------------------------- the Java level


def test_raising_the_java_level_in_pom_xml_breaks_older_runtimes(repo: Repo) -> None:
    # The main setting goes from 7 to 8 while the profile that already built for 8 is retired.
    result = analyse(repo.change("Build for Java 8 rather than Java 7.", {"pom.xml": _pom("2.13.3-SNAPSHOT", "8")}))
    assert result.type == ChangeType.build
    assert result.importance == Importance.high
    assert result.flags.breaking


def test_raising_the_java_level_of_the_tests_alone_binds_no_user(repo: Repo) -> None:
    pom = _pom("2.13.3-SNAPSHOT", "7", profile_release="8", test_release="17")
    result = analyse(repo.change("Compile the tests for Java 17", {"pom.xml": pom}))
    assert not result.flags.breaking
    assert result.importance == Importance.low


# --------------------------------------------------------------------------- releases


def test_the_release_plugins_prepare_release_commit_is_a_release_chore(repo: Repo) -> None:
    pom = _pom("2.14.0", "7", profile_release="8")
    result = analyse(repo.change("[maven-release-plugin] prepare release acme-json-parent-2.14.0", {"pom.xml": pom}))
    assert result.type == ChangeType.chore
    assert result.importance == Importance.low


def test_the_release_plugins_next_iteration_commit_is_a_release_chore(repo: Repo) -> None:
    pom = _pom("2.14.1-SNAPSHOT", "7", profile_release="8")
    result = analyse(repo.change("[maven-release-plugin] prepare for next development iteration", {"pom.xml": pom}))
    assert result.type == ChangeType.chore
    assert result.importance == Importance.low


# --------------------------------------------------------------------------- the changelog


def test_a_typo_fixed_in_an_old_changelog_entry_announces_nothing(repo: Repo) -> None:
    changelog = _CHANGELOG.replace("Better behaviour", "Better behavior")
    reader = _READER.replace("/** Reads JSON. */", "/** Reads JSON documents. */")
    files = {"CHANGELOG.md": changelog, "src/main/java/com/acme/json/Reader.java": reader}
    result = analyse(repo.change("Fix typos and grammar issues", files))
    # The reworded entry mentions a security manager: still no security change, and no news.
    assert result.type == ChangeType.docs
    assert result.importance == Importance.low
    assert not result.flags.security


def test_a_new_changelog_entry_is_still_read(repo: Repo) -> None:
    entry = "## Version 2.8.9\n\n* Fixed a security vulnerability in the reader.\n\n"
    changelog = _CHANGELOG.replace("## Version 2.8.8\n", entry + "## Version 2.8.8\n")
    bounded = "    return Math.min(Integer.parseInt(index), maxDepth);"
    reader = _READER.replace("    return Integer.parseInt(index);", bounded)
    files = {"CHANGELOG.md": changelog, "src/main/java/com/acme/json/Reader.java": reader}
    result = analyse(repo.change("Bound the depth index", files))
    assert result.flags.security


# --------------------------------------------------------------------------- security fixes


def test_a_cap_on_attacker_supplied_input_is_a_security_fix(repo: Repo) -> None:
    reader = _READER.replace(
        "    return Integer.parseInt(index);",
        "    int depth = Integer.parseInt(index);\n    return depth > maxDepth ? -1 : depth;",
    )
    message = (
        "fix(reader): cap the nesting index to prevent OOM\n\n"
        "If an attacker-supplied document contains an extremely large index, the reader\n"
        "allocates memory in proportion to it. Skip indexes beyond the configured depth.\n"
    )
    result = analyse(repo.change(message, {"src/main/java/com/acme/json/Reader.java": reader}))
    assert result.type == ChangeType.fix
    assert result.flags.security
    assert result.importance == Importance.high


def test_a_cap_whose_message_names_no_attacker_is_no_security_fix(repo: Repo) -> None:
    reader = _READER.replace(
        "    return Integer.parseInt(index);",
        "    int depth = Integer.parseInt(index);\n    return depth > maxDepth ? -1 : depth;",
    )
    message = "fix(reader): cap the nesting index\n\nIndexes beyond the configured depth are skipped.\n"
    result = analyse(repo.change(message, {"src/main/java/com/acme/json/Reader.java": reader}))
    assert result.type == ChangeType.fix
    assert not result.flags.security
