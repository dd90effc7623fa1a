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
