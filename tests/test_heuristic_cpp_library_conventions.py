"""The heuristic on conventions C and C++ libraries share beyond their headers: the root ``bench/`` folder, ...

Every commit is made by git in a temporary repository and read by the git
source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import Importance


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
