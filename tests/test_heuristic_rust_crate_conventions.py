"""The heuristic on the conventions of a Rust crate with a public API of `pub` items.

Such a crate deprecates an item with Rust's ``#[deprecated]`` attribute and keeps it
through a transition period before removing it; its titles follow Conventional
Commits. Every commit is made by git in a temporary repository and read by the git
source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_TITLE = """/// A block's title.
pub struct Title {
    /// The title's text.
    pub content: String,
}

impl Title {
    /// Sets the content.
    pub fn content(mut self, content: &str) -> Self {
        self.content = content.to_string();
        self
    }
}

/// Sets the padding of a block.
pub fn padding(width: u16) -> u16 {
    width + 1
}
"""


@pytest.fixture
def crate(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"Cargo.toml": '[package]\nname = "tui"\nversion = "0.28.0"\n', "src/title.rs": _TITLE})


@pytest.mark.parametrize(
    ("marked", "attribute"),
    [
        ("impl Title {", '#[deprecated = "use Block::title_top() instead. This will be removed in a future release."]'),
        ("pub struct Title {", '#[deprecated(since = "0.29.0", note = "use `Line` instead")]'),
        ("pub fn padding(", '#[deprecated(\n    since = "0.29.0",\n    note = "use Padding::new instead"\n)]'),
        ("    pub content: String,", '    #[deprecated(since = "0.29.0", note = "set the line instead")]'),
        (
            "    pub content: String,",
            '    #[deprecated(\n        since = "0.29.0",\n'
            '        note = "This field will be hidden. Use the content \\\n'
            '                method (see `Title::content`) to read it"\n    )]\n    #[serde(default)]',
        ),
    ],
)
def test_an_item_rust_starts_marking_deprecated_keeps_working(crate: Repo, marked: str, attribute: str) -> None:
    """The title says "deprecate", the diff shows the attribute on an item that stays: no break yet."""
    source = _TITLE.replace(marked, f"{attribute}\n{marked}")
    commit = crate.change("chore(block): deprecate block::Title (#1372)", {"src/title.rs": source})
    analysis = analyse(commit)
    assert analysis.type == ChangeType.feat
    assert analysis.importance == Importance.medium
    assert analysis.flags.breaking is False


def test_a_deprecation_note_reworded_is_no_deprecation_ending(tmp_path: Path) -> None:
    """Rewording the note of an attribute that stays ends no transition period and starts none."""
    old = '#[deprecated(\n    since = "0.29.0",\n    note = "You should use `Title::with_line` instead."\n)]\n'
    new = '#[deprecated(\n    since = "0.29.0",\n    note = "use `with_line()` instead"\n)]\n'
    crate = Repo(tmp_path, {"src/title.rs": _TITLE.replace("pub struct Title {", old + "pub struct Title {")})
    commit = crate.change(
        "fix: make deprecation notes more helpful (#1702)",
        {"src/title.rs": _TITLE.replace("pub struct Title {", new + "pub struct Title {")},
    )
    assert analyse(commit).flags.breaking is False


# --------------------------------------------------------------------------- package metadata

_MANIFEST = """[package]
name = "{name}"
version = "0.29.0"
authors = [
    "Florian Dehau <work@fdehau.com>",
    "The Ratatui Developers",
]
description = "A library for terminal user interfaces"
keywords = ["tui", "terminal"]
license = "MIT"
edition = "2021"
rust-version = "1.74.0"

[features]
default = [
    "std",
    "layout-cache",
]
std = []
layout-cache = []
"""


@pytest.fixture
def workspace(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {f"{name}/Cargo.toml": _MANIFEST.format(name=name) for name in ("tui", "tui-core")})


def _edit(old: str, new: str) -> dict[str, str]:
    return {f"{name}/Cargo.toml": _MANIFEST.format(name=name).replace(old, new) for name in ("tui", "tui-core")}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ('authors = [\n    "Florian Dehau <work@fdehau.com>",\n    "The Ratatui Developers",\n]\n', ""),
        ('keywords = ["tui", "terminal"]\n', 'keywords = ["tui", "terminal", "cli"]\ncategories = ["gui"]\n'),
    ],
)
def test_a_manifest_edit_of_the_package_description_alone_is_a_chore(workspace: Repo, old: str, new: str) -> None:
    """Authors, keywords and categories are what a registry shows; nothing built or installed changes."""
    analysis = analyse(workspace.change("chore: remove deprecated Cargo authors metadata (#2611)", _edit(old, new)))
    assert analysis.type == ChangeType.chore
    assert analysis.importance == Importance.low
    assert analysis.flags.breaking is False


@pytest.mark.parametrize(
    ("old", "new"), [('    "layout-cache",\n]', "]"), ('rust-version = "1.74.0"', 'rust-version = "1.81.0"')]
)
def test_a_manifest_edit_beyond_the_description_stays_a_build_change(workspace: Repo, old: str, new: str) -> None:
    """A feature dropped from the default set, or a raised toolchain floor, is no metadata."""
    analysis = analyse(workspace.change("chore: remove deprecated manifest entries", _edit(old, new)))
    assert analysis.type == ChangeType.build


# --------------------------------------------------------------------------- lint levels

_LINTS = "".join(f'lint_{i} = "warn"\n' for i in range(12))
_WORKSPACE = '[workspace]\nmembers = ["tui"]\n\n[workspace.lints.rust]\nunsafe_code = "forbid"\n\n'
_WORKSPACE += "[workspace.lints.clippy]\n"


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("Cargo.toml", 'lint_10 = "warn"\n', 'lint_10 = "warn"\nimplicit_clone = "warn"\n'),
        ("Cargo.toml", 'lint_9 = "warn"\n', 'pedantic = { level = "deny", priority = -1 }\n'),
        ("tui/Cargo.toml", "", "\n[lints]\nworkspace = true\n"),
    ],
)
def test_a_manifest_edit_of_lint_levels_alone_is_tooling(tmp_path: Path, path: str, old: str, new: str) -> None:
    """Cargo's lint tables set the warnings of the workspace's own builds; a long table's header is out of sight."""
    files = {"Cargo.toml": _WORKSPACE + _LINTS, "tui/Cargo.toml": _MANIFEST.format(name="tui")}
    crate = Repo(tmp_path, files)
    edited = files[path].replace(old, new) if old else files[path] + new
    analysis = analyse(crate.change("fix: string_to_string lint is now part of implicit_clone (#2173)", {path: edited}))
    assert analysis.type == ChangeType.chore
    assert analysis.importance == Importance.low
    assert analysis.flags.user_facing is False


# --------------------------------------------------------------------------- a crate's examples and benches


@pytest.mark.parametrize(
    ("path", "title"),
    [
        ("tui-widgets/examples/demo.rs", "fix: keep the cursor inside the frame on resize"),
        ("crates/tui-widgets/examples/demo/main.rs", "fix: keep the cursor inside the frame on resize"),
        ("tui/benches/render.rs", "perf: reuse one buffer across iterations"),
    ],
)
def test_a_workspace_crates_examples_and_benches_are_no_library_code(tmp_path: Path, path: str, title: str) -> None:
    """Cargo builds each crate's `examples/` and `benches/` as targets of their own, never into its library."""
    code = "fn main() {\n    let area = frame.area();\n    draw(area);\n}\n"
    crate = Repo(tmp_path, {path: code, "tui-widgets/src/lib.rs": "pub fn draw() {}\n"})
    analysis = analyse(crate.change(title, {path: code.replace("frame.area()", "frame.area().clamp(bounds)")}))
    assert analysis.importance == Importance.low
    assert analysis.flags.user_facing is False
