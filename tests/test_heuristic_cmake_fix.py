"""A commit that says it fixes something and changes only CMake build logic is a fix users get.

Which native sources compile, for which GPU architectures and against which vendored
revision is decided in the CMake files: a build that failed there, or a kernel left out
for an architecture, is the rubric's fix ("broken build for users"), medium as a fix in
the source. The same files changed without a fix's words are still a build change.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_CMAKE = (
    "cmake_minimum_required(VERSION 3.26)\n"
    "project(engine LANGUAGES CXX CUDA)\n"
    'set(MARLIN_ARCHS "8.0;9.0")\n'
    "add_library(_C SHARED csrc/ops.cu)\n"
)
_VENDORED = (
    "include(FetchContent)\n"
    "FetchContent_Declare(\n"
    "  flash-attn\n"
    "  GIT_REPOSITORY https://github.com/acme/flash-attention.git\n"
    "  GIT_TAG 1c2624e53c078854e0637ee566c72fe2107e75f4\n"
    ")\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"CMakeLists.txt": _CMAKE, "cmake/external_projects/flash_attn.cmake": _VENDORED})


def test_a_fix_in_the_cmake_build_is_a_fix(repo: Repo) -> None:
    commit = repo.change(
        "[Bugfix] Compile the Marlin kernels for capability 8.7 (#2210)",
        {"CMakeLists.txt": _CMAKE.replace('"8.0;9.0"', '"8.0;8.7;9.0"')},
    )
    analysis = analyse(commit)
    assert analysis.type == ChangeType.fix
    assert analysis.importance == Importance.medium


def test_a_vendored_revision_that_fixes_a_crash_is_a_fix(repo: Repo) -> None:
    moved = _VENDORED.replace("1c2624e53c078854e0637ee566c72fe2107e75f4", "6dbc6e011a3ebe9349eeb74578940dd7095436ba")
    analysis = analyse(
        repo.change(
            "[BugFix] Fix FA2 RuntimeError when sinks is provided", {"cmake/external_projects/flash_attn.cmake": moved}
        )
    )
    assert analysis.type == ChangeType.fix


def test_cmake_changed_without_a_fix_is_a_build_change(repo: Repo) -> None:
    moved = _VENDORED.replace("1c2624e53c078854e0637ee566c72fe2107e75f4", "b99f8c821771fd11feb66d5c89661e9858fde359")
    analysis = analyse(repo.change("Upgrade flash-attention", {"cmake/external_projects/flash_attn.cmake": moved}))
    assert analysis.type == ChangeType.build


def test_a_fix_made_in_a_manifest_stays_a_medium_build_change(tmp_path: Path) -> None:
    # Only CMake's logic is read as a fix: a requirement pinned to fix something is still a build change.
    repo = Repo(tmp_path, {"requirements/common.txt": "numpy\ntimm >= 1.0.15\n"})
    analysis = analyse(
        repo.change("[Bugfix] Fix ImportError by pinning timm", {"requirements/common.txt": "numpy\ntimm == 1.0.15\n"})
    )
    assert (analysis.type, analysis.importance) == (ChangeType.build, Importance.medium)
