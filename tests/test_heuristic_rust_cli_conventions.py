"""The heuristic on the conventions of a Rust command-line tool.

Such a tool writes strict Conventional Commits (``feat(scope):``, ``fix:``,
``chore(deps):``, ``fix(itest):``), lets bots and its maintainers bump
``Cargo.lock`` and its Nix flake, formats its flake with a formatter, updates
its crates when an audit of them reports a CVE or swaps one for a fork, keeps
tables keyed by file names (the icon of each), silences the warnings a new
compiler raises, and installs man pages. Every commit is made by git in a
temporary repository and read by the git source, as a report reads it
(:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_CARGO = """[package]
name = "lister"
version = "0.4.1"
edition = "2021"
rust-version = "1.83.0"

[dependencies]
phf = { version = "0.12.1", features = ["macros"] }
timeago = { version = "0.4.2", default-features = false }
"""

_LOCK = """[[package]]
name = "phf"
version = "0.12.1"

[[package]]
name = "timeago"
version = "0.4.2"
"""

_FLAKE = """{
  outputs = { self, nixpkgs, naersk }:
    {
      checks = {
        clippy = naersk.buildPackage {
          src = ./.;
          mode = "clippy";
        };
      } // (import ./nix/trycmd.nix { inherit nixpkgs naersk; });
    };
}
"""


_ICONS = """use phf::{phf_map, Map};

pub const FILENAME_ICONS: Map<&'static str, char> = phf_map! {
    "Makefile.in"         => Icons::MAKE,
    "MANIFEST"            => Icons::LANG_PYTHON,
    "mpv.conf"            => '\\u{f36e}',
    "npmrc"               => Icons::NPM,
};

pub const RENDERERS: Map<&'static str, &'static str> = phf_map! {
    "grok"                => "GrokRenderer",
    "hf"                  => "HfRenderer",
    "mistral"             => "MistralRenderer",
};

pub fn icon_for(name: &str) -> Option<char> {
    FILENAME_ICONS.get(name).copied()
}
"""


_FIELDS = """/// A file's permissions, with the platform's extras.
#[derive(Copy, Clone)]
pub struct PermissionsPlus {
    pub file_type: u8,
    pub xattrs: bool,
}

#[allow(clippy::trivially_copy_pass_by_ref)]
pub fn is_dir(p: &PermissionsPlus) -> bool {
    p.file_type == 1
}

#[cfg(test)]
mod test {
    struct TestColours;

    #[test]
    fn dir() {
        assert!(super::is_dir(&super::PermissionsPlus { file_type: 1, xattrs: false }));
    }
}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# lister\n",
            "Cargo.toml": _CARGO,
            "Cargo.lock": _LOCK,
            "flake.nix": _FLAKE,
            "src/icons.rs": _ICONS,
            "src/fields.rs": _FIELDS,
            "src/main.rs": 'fn main() {\n    println!("lister");\n}\n',
        },
    )


def test_a_crate_update_whose_body_names_a_cve_is_a_security_fix(repo: Repo) -> None:
    """An audit's finding, named by the word alone, makes a dependency update a security fix."""
    commit = repo.change(
        "chore(deps): update crates\n\n- Update crates to avoid the CVE error in CI\n",
        {
            "Cargo.toml": _CARGO.replace('"0.12.1"', '"0.13.1"'),
            "Cargo.lock": _LOCK.replace("0.12.1", "0.13.1"),
        },
    )
    analysis = analyse(commit)
    assert analysis.type == ChangeType.build
    assert analysis.flags.security
    assert analysis.importance == Importance.high


def test_a_crate_update_that_names_no_cve_is_routine(repo: Repo) -> None:
    commit = repo.change(
        "chore(deps): update crates\n\n- Update crates to their latest compatible versions\n",
        {
            "Cargo.toml": _CARGO.replace('"0.12.1"', '"0.12.2"'),
            "Cargo.lock": _LOCK.replace("0.12.1", "0.12.2"),
        },
    )
    analysis = analyse(commit)
    assert analysis.type == ChangeType.build
    assert not analysis.flags.security
    assert analysis.importance != Importance.high


def test_a_flake_a_formatter_lays_out_anew_is_no_build_change(repo: Repo) -> None:
    """nixfmt moves an operator to the next line: the build does what it did, no user sees it."""
    laid_out = _FLAKE.replace("      } // (import", "      }\n      // (import")
    analysis = analyse(repo.change("style: update nix style\n", {"flake.nix": laid_out}))
    assert analysis.type != ChangeType.build
    assert analysis.importance == Importance.low
    assert not analysis.flags.user_facing


def test_a_flake_that_changes_a_setting_stays_a_build_change(repo: Repo) -> None:
    changed = _FLAKE.replace('mode = "clippy";', 'mode = "check";')
    analysis = analyse(repo.change("build: check instead of lint in the flake\n", {"flake.nix": changed}))
    assert analysis.type == ChangeType.build
    assert analysis.flags.user_facing


def test_rows_added_to_a_table_keyed_by_file_names_are_a_low_feature(repo: Repo) -> None:
    """An icon for one more file name: user-visible, and as narrow as a feature gets."""
    rows = _ICONS.replace(
        "    \"mpv.conf\"            => '\\u{f36e}',\n",
        '    "mix.lock"            => Icons::LANG_ELIXIR,\n    "mpv.conf"            => \'\\u{f36e}\',\n',
    )
    analysis = analyse(repo.change("feat: add elixir icon for mix.lock\n", {"src/icons.rs": rows}))
    assert analysis.type == ChangeType.feat
    assert analysis.importance == Importance.low
    assert analysis.flags.user_facing


def test_a_row_that_registers_a_mode_is_no_file_table_row(repo: Repo) -> None:
    """A key that names no file (a mode, a backend) makes an option work: the message's own weight."""
    rows = _ICONS.replace(
        '    "hf"                  => "HfRenderer",\n',
        '    "fast"                => "HfRenderer",\n    "hf"                  => "HfRenderer",\n',
    )
    analysis = analyse(repo.change("feat: add a renderer for the fast mode\n", {"src/icons.rs": rows}))
    assert analysis.type == ChangeType.feat
    assert analysis.importance == Importance.medium


def test_code_changed_beside_the_rows_is_judged_as_code(repo: Repo) -> None:
    rows = _ICONS.replace(
        "    \"mpv.conf\"            => '\\u{f36e}',\n",
        '    "mix.lock"            => Icons::LANG_ELIXIR,\n    "mpv.conf"            => \'\\u{f36e}\',\n',
    ).replace("FILENAME_ICONS.get(name).copied()", "FILENAME_ICONS.get(&name.to_lowercase()).copied()")
    analysis = analyse(repo.change("feat: match icons by lower-case file name\n", {"src/icons.rs": rows}))
    assert analysis.importance == Importance.medium


def test_a_crate_swapped_for_its_fork_takes_nothing_from_users(repo: Repo) -> None:
    """The fork replaces the crate in the same commit: the binary builds with it, nobody installs anything."""
    swapped = _CARGO.replace('timeago = { version = "0.4.2", default-features = false }', 'timeago-ng = "0.5"')
    analysis = analyse(repo.change("build(deps): switch to our own fork of timeago\n", {"Cargo.toml": swapped}))
    assert analysis.type == ChangeType.build
    assert not analysis.flags.breaking
    assert analysis.importance != Importance.high


def test_a_crate_dropped_with_no_replacement_still_breaks(repo: Repo) -> None:
    dropped = _CARGO.replace('timeago = { version = "0.4.2", default-features = false }\n', "")
    analysis = analyse(repo.change("build(deps): drop timeago\n", {"Cargo.toml": dropped}))
    assert analysis.flags.breaking


def test_warnings_silenced_for_a_new_compiler_are_a_low_fix_no_user_sees(repo: Repo) -> None:
    """`#[allow(unused)]` on fields a new rustc calls dead: the binary is the same, the denied-warnings build passes."""
    silenced = _FIELDS.replace("    pub file_type: u8,", "    #[allow(unused)]\n    pub file_type: u8,").replace(
        "    pub xattrs: bool,", "    #[allow(unused)]\n    pub xattrs: bool,"
    )
    analysis = analyse(repo.change("fix(windows): fix unused PermissionsPlus fields\n", {"src/fields.rs": silenced}))
    assert analysis.type == ChangeType.fix
    assert analysis.importance == Importance.low
    assert not analysis.flags.user_facing


def test_a_warning_silenced_in_a_unit_test_module_is_a_test_change(repo: Repo) -> None:
    silenced = _FIELDS.replace("    struct TestColours;", "    #[allow(dead_code)]\n    struct TestColours;")
    analysis = analyse(repo.change("fix(windows): rustc false positives in tests\n", {"src/fields.rs": silenced}))
    assert analysis.type == ChangeType.test


def test_a_suppression_beside_changed_code_is_judged_as_code(repo: Repo) -> None:
    changed = _FIELDS.replace("    pub xattrs: bool,", "    #[allow(unused)]\n    pub xattrs: bool,").replace(
        "p.file_type == 1", "p.file_type == 1 || p.file_type == 2"
    )
    analysis = analyse(repo.change("fix: directories of the second kind are directories\n", {"src/fields.rs": changed}))
    assert analysis.importance == Importance.medium
    assert analysis.flags.user_facing


def test_a_fix_scoped_to_a_test_suite_in_a_build_file_reaches_no_installation(repo: Repo) -> None:
    """`fix(itest):` in the flake's check build fixes how the integration tests run, not what users install."""
    changed = _FLAKE.replace(
        'mode = "clippy";', 'mode = "clippy";\n          cargoTestOptions = [ "--features powertest" ];'
    )
    analysis = analyse(
        repo.change("fix(itest): enable the integration tests in the flake check\n", {"flake.nix": changed})
    )
    assert analysis.importance == Importance.low


def test_blank_lines_a_formatter_drops_are_no_warning_suppression(repo: Repo) -> None:
    tidied = _FIELDS.replace("}\n\n#[allow(clippy", "}\n#[allow(clippy")
    analysis = analyse(repo.change("style: tidy fields.rs\n", {"src/fields.rs": tidied}))
    assert "warning-suppression" not in analysis.importance_reason


def test_a_corrected_manual_page_is_documentation_users_read(repo: Repo) -> None:
    """The man page installs with the binary: fixing an option's name there changes what users read."""
    repo.change("docs(man): document the colours\n", {"man/lister_colors.5.md": "perms:\n  user_executable_file\n"})
    analysis = analyse(
        repo.change("docs(man): corrected an option\n", {"man/lister_colors.5.md": "perms:\n  user_execute_file\n"})
    )
    assert analysis.type == ChangeType.docs
    assert analysis.importance == Importance.low
    assert analysis.flags.user_facing


def test_the_readme_stays_documentation_of_the_project(repo: Repo) -> None:
    analysis = analyse(repo.change("docs: reword the readme\n", {"README.md": "# lister\n\nLists files.\n"}))
    assert analysis.type == ChangeType.docs
    assert not analysis.flags.user_facing
