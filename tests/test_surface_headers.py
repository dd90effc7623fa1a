"""The public surface of a C or C++ library, read from its installed headers (``surface/headers.py``).

A library's users include its ``include/`` tree: a type, a namespace-scope
function, an alias or a macro of its own name added there is new API, one gone
is a break. Headers of details, inline halves, bundled copies of other
libraries and the settings a header passes to them are none of it. Every
commit is made by git in a temporary repository and read by the git source
(:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance, SurfaceAction, SurfaceChange, SurfaceKind

_LOGGER_H = """\
#pragma once

#include <memory>
#include <string>

#define ACME_LEVEL_TRACE 0
#define ACME_LEVEL_INFO 2

#ifndef FMT_HEADER_ONLY
#    define FMT_HEADER_ONLY
#endif

namespace acme {

class logger;

class ACME_API registry {
public:
    static registry &instance();
    void drop(const std::string &name);
};

ACME_API std::shared_ptr<logger> get(const std::string &name);

ACME_API void drop_all();

template<typename Mutex>
class file_sink final : public base_sink<Mutex>
{
public:
    explicit file_sink(const std::string &filename);
};

using file_sink_mt = file_sink<std::mutex>;

}  // namespace acme
"""

_QUEUE_H = """\
#pragma once

namespace acme {
namespace details {

template<typename T>
class circular_q
{
public:
    size_t size() const;
};

inline size_t round_up(size_t n)
{
    return n;
}

}  // namespace details
}  // namespace acme
"""


_TEST = """\
#include "acme/logger.h"

TEST_CASE("drop all", "[registry]")
{
    acme::drop_all();
    REQUIRE(acme::get("x") == nullptr);
}
"""


@pytest.fixture
def library(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# acme\n\nA logging library.\n",
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(acme CXX)\n",
            "include/acme/logger.h": _LOGGER_H,
            "include/acme/details/circular_q.h": _QUEUE_H,
            "src/acme.cpp": '#include "acme/logger.h"\n\nnamespace acme {\nvoid drop_all() {}\n}\n',
            "tests/test_registry.cpp": _TEST,
        },
    )


def _public(surface: list[SurfaceChange], action: SurfaceAction) -> set[str]:
    return {c.name for c in surface if c.kind == SurfaceKind.public_api and c.change == action}


def test_a_function_a_public_header_newly_declares_is_a_feature(library: Repo) -> None:
    header = _LOGGER_H.replace(
        "ACME_API void drop_all();\n",
        "ACME_API void drop_all();\n\nACME_API void flush_every(std::chrono::seconds interval);\n",
    )
    test = _TEST + '\nTEST_CASE("flush", "[registry]")\n{\n    acme::flush_every(std::chrono::seconds(1));\n}\n'
    commit = library.change("Periodic flushing", {"include/acme/logger.h": header, "tests/test_registry.cpp": test})
    analysis = analyse(commit)
    assert _public(analysis.surface, SurfaceAction.added) == {"flush_every"}
    assert analysis.type == ChangeType.feat
    assert analysis.importance in (Importance.medium, Importance.high)
    assert analysis.flags.user_facing
    assert not analysis.flags.breaking


def test_a_helper_nothing_but_the_header_names_may_be_a_detail(library: Repo) -> None:
    header = _LOGGER_H.replace(
        "ACME_API void drop_all();\n",
        "ACME_API void drop_all();\n\ninline auto digits2_i(size_t value) -> const char* { return table + value; }\n",
    )
    commit = library.change("Tidy the level table", {"include/acme/logger.h": header})
    analysis = analyse(commit)
    assert _public(analysis.surface, SurfaceAction.added) == {"digits2_i"}
    assert analysis.type == ChangeType.refactor
    assert analysis.importance == Importance.low


def test_a_new_header_with_a_class_of_its_own_is_a_feature(library: Repo) -> None:
    sink = (
        "#pragma once\n\n#include <functional>\n\nnamespace acme {\n\n"
        "template<typename Mutex>\nclass ACME_API callback_sink final : public base_sink<Mutex>\n{\n"
        "public:\n    explicit callback_sink(std::function<void()> callback);\n};\n\n"
        "using callback_sink_mt = callback_sink<std::mutex>;\n\n}  // namespace acme\n"
    )
    commit = library.change("Callback sink", {"include/acme/sinks/callback_sink.h": sink})
    analysis = analyse(commit)
    assert _public(analysis.surface, SurfaceAction.added) == {"callback_sink", "callback_sink_mt"}
    assert analysis.type == ChangeType.feat
    assert analysis.importance in (Importance.medium, Importance.high)


def test_a_function_gone_from_the_public_headers_breaks_its_callers(library: Repo) -> None:
    header = _LOGGER_H.replace("ACME_API void drop_all();\n\n", "")
    test = _TEST.replace("    acme::drop_all();\n", "")
    commit = library.change("Tidy the registry", {"include/acme/logger.h": header, "tests/test_registry.cpp": test})
    analysis = analyse(commit)
    assert _public(analysis.surface, SurfaceAction.removed) == {"drop_all"}
    assert analysis.flags.breaking
    assert analysis.type == ChangeType.feat
    assert analysis.importance in (Importance.medium, Importance.high)


def test_a_removal_nothing_but_the_header_names_is_no_break(library: Repo) -> None:
    header = _LOGGER_H.replace("ACME_API void drop_all();\n\n", "")
    commit = library.change("Tidy the registry", {"include/acme/logger.h": header})
    analysis = analyse(commit)
    assert _public(analysis.surface, SurfaceAction.removed) == {"drop_all"}
    assert not analysis.flags.breaking


def test_a_declaration_moved_to_another_public_header_is_still_offered(library: Repo) -> None:
    header = _LOGGER_H.replace("using file_sink_mt = file_sink<std::mutex>;\n\n", "")
    aliases = (
        "#pragma once\n\nnamespace acme {\n\nusing file_sink_mt = file_sink<std::mutex>;\n\n}  // namespace acme\n"
    )
    commit = library.change(
        "Move the sink aliases to their own header",
        {"include/acme/logger.h": header, "include/acme/aliases.h": aliases},
    )
    analysis = analyse(commit)
    assert not _public(analysis.surface, SurfaceAction.removed)
    assert not _public(analysis.surface, SurfaceAction.added)
    assert not analysis.flags.breaking


def test_details_inline_halves_and_members_are_no_public_api(library: Repo) -> None:
    queue = _QUEUE_H.replace("inline size_t round_up(size_t n)\n{\n    return n;\n}\n\n", "")
    header = _LOGGER_H.replace("    void drop(const std::string &name);\n", "")
    inline_half = "#pragma once\n\nnamespace acme {\n\nACME_INLINE void flush_now()\n{\n}\n\n}  // namespace acme\n"
    commit = library.change(
        "Drop unused helpers",
        {
            "include/acme/details/circular_q.h": queue,
            "include/acme/logger.h": header,
            "include/acme/logger-inl.h": inline_half,
        },
    )
    analysis = analyse(commit)
    assert not [c for c in analysis.surface if c.kind == SurfaceKind.public_api]
    assert not analysis.flags.breaking


def test_only_macros_named_for_the_library_are_its_api(library: Repo) -> None:
    header = _LOGGER_H.replace("#ifndef FMT_HEADER_ONLY\n#    define FMT_HEADER_ONLY\n#endif\n\n", "").replace(
        "#define ACME_LEVEL_INFO 2\n",
        "#define ACME_LEVEL_INFO 2\n#define ACME_TO_VERSION(major, minor) (major * 100 + minor)\n",
    )
    commit = library.change("Version helper; fmt no longer forced header-only", {"include/acme/logger.h": header})
    analysis = analyse(commit)
    assert _public(analysis.surface, SurfaceAction.added) == {"ACME_TO_VERSION"}
    assert not _public(analysis.surface, SurfaceAction.removed)
    assert not analysis.flags.breaking


def test_a_declaration_inside_a_namespace_of_details_is_no_public_api(library: Repo) -> None:
    header = _LOGGER_H.replace(
        "class logger;\n",
        "class logger;\n\nnamespace detail {\ninline int level_width() { return 8; }\n}  // namespace detail\n",
    )
    library.change("Level width", {"include/acme/logger.h": header})
    wider = header.replace(
        "inline int level_width() { return 8; }\n",
        "inline int level_width() { return 8; }\ninline int name_width() { return 16; }\n",
    )
    test = _TEST + '\nTEST_CASE("widths", "[detail]")\n{\n    REQUIRE(acme::detail::name_width() == 16);\n}\n'
    commit = library.change("Name width", {"include/acme/logger.h": wider, "tests/test_registry.cpp": test})
    analysis = analyse(commit)
    assert not [c for c in analysis.surface if c.kind == SurfaceKind.public_api]


def test_a_declaration_reflowed_after_its_return_type_is_still_declared(library: Repo) -> None:
    header = _LOGGER_H.replace(
        "ACME_API std::shared_ptr<logger> get(const std::string &name);\n",
        "ACME_API std::shared_ptr<logger>\nget(const std::string &name);\n",
    ).replace("static registry &instance();", "static registry &instance() noexcept;")
    test = _TEST.replace('REQUIRE(acme::get("x") == nullptr);', 'REQUIRE(acme::get("y") == nullptr);')
    files = {"include/acme/logger.h": header, "tests/test_registry.cpp": test}
    commit = library.change("Reformat, and the registry never throws", files)
    analysis = analyse(commit)
    assert not [c for c in analysis.surface if c.kind == SurfaceKind.public_api]
    assert not analysis.flags.breaking


def test_a_removal_the_tests_call_through_a_namespace_of_details_is_no_break(library: Repo) -> None:
    header = _LOGGER_H.replace("ACME_API void drop_all();\n\n", "")
    test = _TEST.replace("    acme::drop_all();\n", "    acme::detail::drop_all();\n")
    library.change("Test the detail", {"tests/test_registry.cpp": test})
    removed = test.replace("    acme::detail::drop_all();\n", "")
    commit = library.change("Remove drop_all", {"include/acme/logger.h": header, "tests/test_registry.cpp": removed})
    analysis = analyse(commit)
    assert _public(analysis.surface, SurfaceAction.removed) == {"drop_all"}
    assert not analysis.flags.breaking


def test_a_license_comment_and_an_amalgamated_copy_declare_nothing(library: Repo) -> None:
    license_text = (
        "/*\nPermission is hereby granted, free of charge, to any person obtaining a copy\n"
        'of this software and associated documentation files (the "Software"), to deal\n*/\n'
    )
    amalgamation = "#pragma once\n\nnamespace acme {\n\ninline int helper_width() { return 8; }\n\n}\n"
    library.change(
        "License and amalgamation",
        {"include/acme/logger.h": license_text + _LOGGER_H, "single_include/acme/acme.hpp": amalgamation},
    )
    reworded = license_text.replace("documentation files (the", "documentation (the")
    wider = amalgamation.replace("return 8; }\n", "return 8; }\ninline int concat_length() { return 0; }\n")
    test = _TEST + '\nTEST_CASE("lengths", "[detail]")\n{\n    REQUIRE(concat_length() == 0);\n}\n'
    commit = library.change(
        "Reword the license; regenerate the single header",
        {
            "include/acme/logger.h": reworded + _LOGGER_H,
            "single_include/acme/acme.hpp": wider,
            "tests/test_registry.cpp": test,
        },
    )
    analysis = analyse(commit)
    assert not [c for c in analysis.surface if c.kind == SurfaceKind.public_api]
    assert not analysis.flags.breaking
