"""The heuristic on conventions C and C++ libraries share beyond their headers: the root ``bench/`` folder, titles.

Every commit is made by git in a temporary repository and read by the git
source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance


@pytest.fixture
def library(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# acme\n\nA logging library.\n",
            "CMakeLists.txt": "cmake_minimum_required(VERSION 3.10)\nproject(acme CXX)\n",
            "include/acme/logger.h": "#pragma once\n\nnamespace acme {\n\nvoid drop_all();\n\n}  // namespace acme\n",
        },
    )


def test_a_fix_in_the_root_bench_folder_is_a_low_developer_tool_change(library: Repo) -> None:
    bench = '#include "acme/logger.h"\n\nint main()\n{\n    int per_second = 0;\n    return per_second;\n}\n'
    library.change("Benchmark", {"bench/bench.cpp": bench})
    commit = library.change("Fixed bench", {"bench/bench.cpp": bench.replace("int per_second", "size_t per_second")})
    analysis = analyse(commit)
    assert analysis.importance == Importance.low
    assert not analysis.flags.user_facing


_SINK_H = """\
#pragma once

namespace acme {
namespace sinks {

class qt_sink
{
public:
    explicit qt_sink(QObject *qt_object, const std::string &meta_method)
    {
        qt_object_ = qt_object;
        const QMetaObject *metaobject = qt_object_->metaObject();
        qt_object_->dumpObjectInfo();
        method_index_ = metaobject->indexOfMethod(meta_method.c_str());
    }

private:
    QObject *qt_object_ = nullptr;
    int method_index_ = -1;
};

}  // namespace sinks
}  // namespace acme
"""

_TCP_CLIENT_H = """\
#pragma once

namespace acme {
namespace details {

class tcp_client
{
public:
    void connect(const std::string &host, int port)
    {
        struct addrinfo hints
        {};
        memset(&hints, 0, sizeof(struct addrinfo));
        hints.ai_family = AF_INET;       // IPv4
        hints.ai_socktype = SOCK_STREAM; // TCP
        hints.ai_protocol = 0;
    }
};

}  // namespace details
}  // namespace acme
"""


def test_a_title_that_cleans_the_code_is_a_refactor(library: Repo) -> None:
    library.change("Qt sink", {"include/acme/sinks/qt_sink.h": _SINK_H})
    cleaned = _SINK_H.replace(
        "        const QMetaObject *metaobject = qt_object_->metaObject();\n        qt_object_->dumpObjectInfo();\n",
        "        auto *metaobject = qt_object_->metaObject();\n",
    )
    commit = library.change("Clean qt_sink code", {"include/acme/sinks/qt_sink.h": cleaned})
    analysis = analyse(commit)
    assert analysis.type == ChangeType.refactor
    assert analysis.importance == Importance.low


def test_a_limitation_removed_is_a_new_capability(library: Repo) -> None:
    library.change("TCP client", {"include/acme/details/tcp_client.h": _TCP_CLIENT_H})
    lifted = _TCP_CLIENT_H.replace(
        "hints.ai_family = AF_INET;       // IPv4", "hints.ai_family = AF_UNSPEC;     // IPv4 and IPv6"
    )
    commit = library.change("Removing IPv4 limitation from tcp_client", {"include/acme/details/tcp_client.h": lifted})
    analysis = analyse(commit)
    assert analysis.type == ChangeType.feat
    assert analysis.importance == Importance.medium
    assert analysis.flags.user_facing


_CMAKE = """\
cmake_minimum_required(VERSION 3.10)
project(acme CXX)

if(NOT CMAKE_CXX_STANDARD)
    set(CMAKE_CXX_STANDARD 11)
    set(CMAKE_CXX_STANDARD_REQUIRED ON)
endif()

add_library(acme src/acme.cpp)
target_compile_features(acme PUBLIC cxx_std_11)
"""


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("set(CMAKE_CXX_STANDARD 11)", "set(CMAKE_CXX_STANDARD 17)"),
        ("target_compile_features(acme PUBLIC cxx_std_11)", "target_compile_features(acme PUBLIC cxx_std_17)"),
    ],
)
def test_a_cxx_standard_raised_leaves_older_compilers_behind(library: Repo, old: str, new: str) -> None:
    library.change("Build with CMake", {"CMakeLists.txt": _CMAKE})
    commit = library.change("Modernize the build", {"CMakeLists.txt": _CMAKE.replace(old, new)})
    analysis = analyse(commit)
    assert analysis.type == ChangeType.build
    assert analysis.flags.breaking
    assert analysis.importance == Importance.high


def test_a_cxx_standard_set_elsewhere_at_the_same_year_is_no_new_floor(library: Repo) -> None:
    late = _CMAKE + "\nif(ACME_USE_STD_FORMAT)\n    set(CMAKE_CXX_STANDARD 20)\nendif()\n"
    early = _CMAKE.replace(
        "if(NOT CMAKE_CXX_STANDARD)\n",
        "if(ACME_USE_STD_FORMAT)\n    set(CMAKE_CXX_STANDARD 20)\nelseif(NOT CMAKE_CXX_STANDARD)\n",
    )
    library.change("Build with std::format", {"CMakeLists.txt": late})
    commit = library.change("Set the C++ standard before the targets", {"CMakeLists.txt": early})
    analysis = analyse(commit)
    assert not analysis.flags.breaking
    assert analysis.importance != Importance.high


_WRAPPER_H = """\
//
// include bundled or external copy of the formatting library
//

#if !defined(ACME_FMT_EXTERNAL)
#    include <acme/fmt/bundled/format.h>
#else
#    include <fmt/format.h>
#endif
"""


def test_headers_that_only_gain_an_include_fix_the_build(library: Repo) -> None:
    wrappers = {"include/acme/fmt/fmt.h": _WRAPPER_H, "include/acme/fmt/chrono.h": _WRAPPER_H}
    library.change("Formatting wrappers", wrappers)
    included = {path: text.replace("//\n\n", "//\n#include <acme/tweakme.h>\n\n") for path, text in wrappers.items()}
    commit = library.change("fmt/*.h: include tweakme.h to set ACME_FMT_EXTERNAL from the user's settings", included)
    analysis = analyse(commit)
    assert analysis.type == ChangeType.fix
    assert analysis.importance == Importance.medium
    assert analysis.flags.user_facing


def test_an_include_dropped_is_no_build_fix(library: Repo) -> None:
    header = _WRAPPER_H.replace("//\n\n", "//\n#include <acme/tweakme.h>\n\n")
    library.change("Formatting wrapper", {"include/acme/fmt/fmt.h": header})
    commit = library.change("Drop an include nothing uses", {"include/acme/fmt/fmt.h": _WRAPPER_H})
    analysis = analyse(commit)
    assert analysis.type != ChangeType.fix
