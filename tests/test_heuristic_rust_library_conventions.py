"""The heuristic on the conventions of a Rust library kept as a Cargo workspace of several crates.

Each crate has its own manifest and its own ``CHANGELOG.md`` with an ``# Unreleased``
section; the workspace releases its crates by setting their versions, and the crates
require each other by path and version. Every commit is made by git in a temporary
repository and read by the git source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_CORE = """[package]
name = "web-core"
version = "{version}" # remember to bump the version that web depends on
edition = "2021"

[dependencies]
bytes = "1.7"
"""
_WEB = """[package]
name = "web"
version = "{version}"
edition = "2021"

[dependencies]
web-core = {{ path = "../web-core", version = "{core}" }}
bytes = "1.7"
"""
_ENTRY = "- **breaking:** Removed the deprecated `Host` extractor ([#12])\n\n# 0.7.3\n\n- Older entry\n"
_CHANGELOG = "# Unreleased\n\n" + _ENTRY
_RELEASED = "# Unreleased\n\n- None.\n\n# {version}\n\n" + _ENTRY


def _files(core: str, web: str, changelog: str = _CHANGELOG) -> dict[str, str]:
    return {
        "web-core/Cargo.toml": _CORE.format(version=core),
        "web/Cargo.toml": _WEB.format(version=web, core=core),
        "web/CHANGELOG.md": changelog,
    }


@pytest.fixture
def workspace(tmp_path: Path) -> Repo:
    files = {**_files("0.5.0", "0.7.3"), "web/src/lib.rs": "pub fn serve() {}\n", "web-core/src/lib.rs": "\n"}
    return Repo(tmp_path, files)


# --------------------------------------------------------------------------- releases


@pytest.mark.parametrize(
    ("core", "web", "importance"), [("0.5.1", "0.7.4", Importance.low), ("0.6.0", "0.8.0", Importance.medium)]
)
def test_a_release_whose_version_lines_carry_a_comment_is_a_release_chore(
    workspace: Repo, core: str, web: str, importance: Importance
) -> None:
    # The title names the crate between the verb and the version, as no title pattern reads it: the diff decides.
    changelog = _RELEASED.format(version=web)
    analysis = analyse(workspace.change(f"Release web v{web}", _files(core, web, changelog)))
    assert (analysis.type, analysis.importance) == (ChangeType.chore, importance)
    assert not analysis.flags.breaking
