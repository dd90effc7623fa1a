"""The heuristic on the conventions of a C program and library built with autotools.

Such a project keeps a ``NEWS.md`` whose release sections list the advisories
the release fixes, an ``AUTHORS`` file its releases refresh beside them, its
manual page in roff beside the sources, and its fuzzing harnesses in a
directory of their own. Every commit is made by git in a temporary repository
and read by the git source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_NEWS = """# 1.2.0

## Bug fixes

- Fix a crash on empty input.
"""

_PARSER = """#include <stdlib.h>
#include "parser.h"

int parse_depth(const char *text) {
  return atoi(text);
}
"""


_MANPAGE = """.TH TOOL 1
.SH NAME
tool \\- filter JSON
.SH DESCRIPTION
Paths in the a search path are subject to substitutions\\.
"""


_FUZZER = """#include <stddef.h>
#include <stdint.h>
#include "parser.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  parse_depth((const char *)data);
  return 0;
}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# tool\n",
            "NEWS.md": _NEWS,
            "AUTHORS": "Ada Lovelace <ada@example.org>\n",
            "configure.ac": "AC_INIT([tool], [1.2.0])\nAC_OUTPUT\n",
            "src/parser.c": _PARSER,
            "tool.1": _MANPAGE,
            "tool.1.prebuilt": _MANPAGE,
            "tool.1.in": _MANPAGE,
            "lib/fuzz/parse_fuzzer.c": _FUZZER,
            "fuzzing/parse.c": _FUZZER,
        },
    )


# --------------------------------------------------------------------------- release notes


def test_release_notes_that_list_advisories_and_credit_contributors_fix_nothing(repo: Repo) -> None:
    notes = (
        "# 1.2.1\n\nThis is a patch release with security fixes.\n\n## Security fixes\n\n"
        "- CVE-2026-1234: Fix heap buffer overflow in `parse_depth`.\n"
        "- CVE-2026-1235: Limit nesting depth to prevent stack overflow.\n\n"
    )
    files = {"NEWS.md": notes + _NEWS, "AUTHORS": "Ada Lovelace <ada@example.org>\nAlan Turing <alan@example.org>\n"}
    result = analyse(repo.change("Update NEWS.md and AUTHORS", files))
    # The fixes the notes list landed in earlier commits: this one records them.
    assert not result.flags.security
    assert result.type == ChangeType.docs
    assert result.importance == Importance.low


def test_release_notes_headed_by_the_version_the_title_names_are_a_release_chore(repo: Repo) -> None:
    notes = "# 1.2.1\n\nThis is a patch release.\n\n## Security fixes\n\n- CVE-2026-1234: Fix heap buffer overflow.\n\n"
    files = {"NEWS.md": notes + _NEWS, "AUTHORS": "Ada Lovelace <ada@example.org>\nAlan Turing <alan@example.org>\n"}
    result = analyse(repo.change("Update NEWS.md and AUTHORS for 1.2.1 (#3529)", files))
    assert result.type == ChangeType.chore
    assert result.importance == Importance.low
    assert not result.flags.security


def test_an_edit_to_the_notes_of_an_old_release_is_no_release(repo: Repo) -> None:
    news = _NEWS.replace("a crash on empty input", "a crash on empty input or on `null`")
    result = analyse(repo.change("NEWS.md: complete an entry of 1.2.0", {"NEWS.md": news}))
    assert result.type == ChangeType.docs


def test_a_fix_that_credits_its_author_is_still_judged_by_its_changelog_entry(repo: Repo) -> None:
    entry = "# Unreleased\n\n- CVE-2026-1236: Fix heap buffer overflow in `parse_depth`.\n\n"
    parser = _PARSER.replace("return atoi(text);", "return text ? atoi(text) : 0;")
    files = {
        "NEWS.md": entry + _NEWS,
        "AUTHORS": "Ada Lovelace <ada@example.org>\nAlan Turing <alan@example.org>\n",
        "src/parser.c": parser,
    }
    result = analyse(repo.change("Check the depth argument", files))
    assert result.flags.security


# --------------------------------------------------------------------------- manual pages


@pytest.mark.parametrize("page", ["tool.1", "tool.1.in", "tool.1.prebuilt"])
def test_a_typo_fixed_in_a_roff_manual_page_is_documentation_users_read(repo: Repo, page: str) -> None:
    fixed = _MANPAGE.replace("in the a search", "in the search")
    result = analyse(repo.change('Fix "in the a search" typo', {page: fixed}))
    assert result.type == ChangeType.docs
    assert result.importance == Importance.low
    assert result.flags.user_facing


# --------------------------------------------------------------------------- fuzzing harnesses


@pytest.mark.parametrize("harness", ["lib/fuzz/parse_fuzzer.c", "fuzzing/parse.c"])
def test_a_fix_to_a_fuzzing_harness_is_a_test_change(repo: Repo, harness: str) -> None:
    guarded = _FUZZER.replace("  parse_depth(", "  if (size == 0)\n    return 0;\n  parse_depth(")
    result = analyse(repo.change("fuzz: Be robust towards empty input", {harness: guarded}))
    assert result.type == ChangeType.test
    assert result.importance == Importance.low
    assert not result.flags.user_facing
