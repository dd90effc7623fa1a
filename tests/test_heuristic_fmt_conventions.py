"""The heuristic on the conventions of a C++ library: public headers under ``include/``, CMake, prose docs.

Such a library titles its commits as plain imperatives without prefixes, tunes
its generated code with forced-inlining macros, renders its API documentation
with a custom mkdocstrings handler kept beside the docs, and fixes the memory
faults fuzzers find. Every commit is made by git in a temporary repository and
read by the git source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_BASE_H = """\
#ifndef ACME_BASE_H_
#define ACME_BASE_H_

#define ACME_INLINE inline __attribute__((always_inline))

namespace acme {

template <typename Context> class arg {
 public:
  template <typename Visitor>
  constexpr auto visit(Visitor&& vis) const -> decltype(vis(0)) {
    return vis(value_);
  }

  constexpr auto get() const -> int { return value_; }

 private:
  int value_ = 0;
};

inline auto count_digits(unsigned n) -> int {
  int count = 1;
  while (n >= 10) {
    n /= 10;
    ++count;
  }
  return count;
}

}  // namespace acme

#endif  // ACME_BASE_H_
"""

_COLOR_H = """\
#include <stddef.h>

namespace acme {

template <typename Char> struct ansi_escape {
 private:
  static constexpr size_t num_emphases = 8;
  Char buffer[7u + 3u * num_emphases + 1u];
};

}  // namespace acme
"""

_HANDLER = """\
# A mkdocstrings handler for the library's C++ API.
from mkdocstrings.handlers.base import BaseHandler


def render(name: str) -> str:
    return '<pre><code>' + name + '</code></pre>'


class CxxHandler(BaseHandler):
    pass
"""


#: The library as the first commit holds it.
_LIBRARY = {
    "README.md": "# acme\n",
    "CMakeLists.txt": "cmake_minimum_required(VERSION 3.8)\nproject(acme CXX)\n",
    "include/acme/base.h": _BASE_H,
    "include/acme/color.h": _COLOR_H,
    "support/mkdocstrings_handlers/cxx/__init__.py": _HANDLER,
}


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, _LIBRARY)


# --------------------------------------------------------------------------- forced inlining


def test_a_forced_inlining_macro_added_to_a_declaration_is_a_low_performance_change(repo: Repo) -> None:
    header = _BASE_H.replace("  constexpr auto visit(", "  constexpr ACME_INLINE auto visit(")
    result = analyse(repo.change("Inline visit", {"include/acme/base.h": header}))
    # The code does what it did; the compiler emits other code: no fix of anything, and unmeasured.
    assert result.type == ChangeType.perf
    assert result.importance == Importance.low


def test_one_inlining_hint_swapped_for_another_is_still_only_inlining(repo: Repo) -> None:
    header = _BASE_H.replace(
        "inline auto count_digits(unsigned n)", "inline __attribute__((always_inline)) auto count_digits(unsigned n)"
    ).replace("  constexpr auto get()", "  [[gnu::always_inline]] constexpr auto get()")
    result = analyse(repo.change("Always inline the digit counter and the getter", {"include/acme/base.h": header}))
    assert result.type == ChangeType.perf
    assert result.importance == Importance.low


def test_the_plain_inline_keyword_is_linkage_not_an_inlining_hint(repo: Repo) -> None:
    # Without `inline`, a function defined in a header is defined in every file that includes it.
    header = _BASE_H.replace("inline auto count_digits(", "auto count_digits(")
    result = analyse(repo.change("Drop inline from count_digits", {"include/acme/base.h": header}))
    assert result.type != ChangeType.perf


def test_an_inlining_hint_beside_a_code_change_is_no_mere_hint(repo: Repo) -> None:
    header = _BASE_H.replace("  constexpr auto visit(", "  constexpr ACME_INLINE auto visit(").replace(
        "n /= 10;", "n /= 100;"
    )
    result = analyse(repo.change("Inline visit", {"include/acme/base.h": header}))
    assert result.type != ChangeType.perf


# --------------------------------------------------------------------------- memory safety


def test_a_buffer_overflow_fixed_in_a_header_is_a_security_fix(repo: Repo) -> None:
    header = _COLOR_H.replace("7u + 3u * num_emphases", "7u + 4u * num_emphases")
    result = analyse(repo.change("fix buffer overflow on all emphasis flags set", {"include/acme/color.h": header}))
    assert result.type == ChangeType.fix
    assert result.flags.security
    assert result.importance == Importance.high


def test_an_out_of_bounds_index_is_no_security_word_on_its_own(repo: Repo) -> None:
    # "Out of bounds" names an index error in any language, a logic bug as often as an exploit.
    header = _COLOR_H.replace("7u + 3u * num_emphases", "7u + 4u * num_emphases")
    result = analyse(repo.change("Fix out of bounds emphasis index", {"include/acme/color.h": header}))
    assert result.type == ChangeType.fix
    assert not result.flags.security


# --------------------------------------------------------------------------- documentation tooling


def test_a_fix_to_the_mkdocstrings_handler_is_documentation(repo: Repo) -> None:
    handler = _HANDLER.replace("'<pre><code>' + name", "'<pre><code>' + escape_html(name)").replace(
        "from mkdocstrings", "from html import escape as escape_html\nfrom mkdocstrings"
    )
    change = {"support/mkdocstrings_handlers/cxx/__init__.py": handler}
    result = analyse(repo.change("Fix rendering of aliases", change))
    # The handler renders the API reference; escaping there hardens no boundary users cross.
    assert result.type == ChangeType.docs
    assert result.importance == Importance.low
    assert not result.flags.security
    assert not result.flags.user_facing


# --------------------------------------------------------------------------- coding conventions


def test_code_brought_in_line_with_the_coding_conventions_is_a_refactor(repo: Repo) -> None:
    header = _BASE_H.replace("template <typename Visitor>", "template <typename V>").replace(
        "(Visitor&& vis)", "(V&& vis)"
    )
    result = analyse(repo.change("Apply coding conventions", {"include/acme/base.h": header}))
    assert result.type == ChangeType.refactor
    assert result.importance == Importance.low
