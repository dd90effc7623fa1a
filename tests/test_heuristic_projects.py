"""The heuristic on the conventions of JavaScript packages, Rust CLIs, Python model servers, CLIs and test tools.

Major releases, dependency updates titled ``name@version``, unused dependencies
dropped, unit tests kept beside the code, Cargo's build configuration, model
architectures registered. Every
commit is made by git in a temporary repository and read by the git source, as
a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import Analysis, ChangeType, Importance, SurfaceAction, SurfaceKind

_PACKAGE = '{{\n  "name": "web",\n  "version": "{version}",\n  "dependencies": {{\n{deps}  }}\n}}\n'
_DEPS = '    "cookie": "{cookie}",\n    "depd": "2.0.0",\n    "qs": "^6.14.0"\n'
_HISTORY = "unreleased\n==========\n\n  * deps: qs@6.14.0\n"


def _package(version: str = "4.21.2", cookie: str = "0.6.0", deps: str = _DEPS) -> str:
    return _PACKAGE.format(version=version, deps=deps.format(cookie=cookie))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"package.json": _package(), "History.md": _HISTORY, "lib/app.js": "module.exports = 1\n"})


# --------------------------------------------------------------------------- releases


def _release(repo: Repo, title: str, old: str, new: str) -> tuple[ChangeType, Importance]:
    repo.change("Start the line", {"package.json": _package(version=old)})
    history = _HISTORY.replace("unreleased", f"{new} / 2026-02-09")
    analysis = analyse(repo.change(title, {"package.json": _package(version=new), "History.md": history}))
    return analysis.type, analysis.importance


@pytest.mark.parametrize(("old", "new"), [("4.21.2", "5.0.0"), ("5.0.0-beta.3", "5.0.0"), ("9.1.0", "10.0")])
def test_the_release_of_a_new_major_version_is_a_medium_chore(repo: Repo, old: str, new: str) -> None:
    assert _release(repo, new, old, new) == (ChangeType.chore, Importance.medium)


@pytest.mark.parametrize(("old", "new"), [("5.1.0", "5.2.0"), ("5.0.0", "5.0.1"), ("5.0.0-beta.2", "5.0.0-beta.3")])
def test_a_minor_patch_or_prerelease_is_a_low_chore(repo: Repo, old: str, new: str) -> None:
    assert _release(repo, f"Release: {new}", old, new) == (ChangeType.chore, Importance.low)


def test_a_major_version_a_lock_file_lists_is_no_major_release(repo: Repo) -> None:
    repo.change("Lock", {"package-lock.json": '{\n  "packages": {\n    "node_modules/qs": {\n    }\n  }\n}\n'})
    lock = '{\n  "packages": {\n    "node_modules/qs": {\n      "version": "7.0.0"\n    }\n  }\n}\n'
    analysis = analyse(repo.change("5.2.0", {"package.json": _package(version="5.2.0"), "package-lock.json": lock}))
    assert (analysis.type, analysis.importance) == (ChangeType.chore, Importance.low)


def test_a_major_release_of_a_rust_crate_is_medium(tmp_path: Path) -> None:
    cargo = '[package]\nname = "finder"\nversion = "{version}"\nedition = "2021"\n\n[dependencies]\nregex = "1.10"\n'
    repo = Repo(tmp_path, {"Cargo.toml": cargo.format(version="9.0.0"), "src/main.rs": "fn main() {}\n"})
    analysis = analyse(repo.change("Release 10.0.0", {"Cargo.toml": cargo.format(version="10.0.0")}))
    assert (analysis.type, analysis.importance) == (ChangeType.chore, Importance.medium)
    assert "new major version" in analysis.importance_reason


@pytest.mark.parametrize(
    ("manifest", "text", "old", "new", "importance"),
    [
        ("Cargo.toml", '[package]\nname = "inspect"\nversion = "{version}"\n', "0.1.3", "0.2.0", Importance.medium),
        ("Cargo.toml", '[package]\nname = "inspect"\nversion = "{version}"\n', "0.2.0", "0.2.1", Importance.low),
        ("pyproject.toml", '[project]\nname = "inspect"\nversion = "{version}"\n', "0.1.3", "0.2.0", Importance.low),
    ],
)
def test_a_crate_opening_a_new_zero_line_is_a_major_release(
    tmp_path: Path, manifest: str, text: str, old: str, new: str, importance: Importance
) -> None:
    # Cargo reads 0.1 -> 0.2 as an incompatible step; PyPI's resolvers do not.
    repo = Repo(tmp_path, {manifest: text.format(version=old), "src/main.rs": "fn main() {}\n"})
    analysis = analyse(repo.change(f"chore(release): prepare for {new}", {manifest: text.format(version=new)}))
    assert (analysis.type, analysis.importance) == (ChangeType.chore, importance)


def test_a_workspace_crate_released_under_its_tag_name_is_a_release(tmp_path: Path) -> None:
    crate = '[package]\nname = "walker"\nversion = "{version}"\n\n[dependencies]\nmemchr = "2.7"\n'
    repo = Repo(tmp_path, {"crates/walker/Cargo.toml": crate.format(version="0.4.26")})
    analysis = analyse(repo.change("walker-0.4.27", {"crates/walker/Cargo.toml": crate.format(version="0.4.27")}))
    assert (analysis.type, analysis.importance) == (ChangeType.chore, Importance.low)


# --------------------------------------------------------------------------- dependencies


def test_a_title_naming_a_raised_dependency_at_its_version_is_its_update_not_a_release(repo: Repo) -> None:
    history = _HISTORY.replace("  * deps", "  * Update `cookie` semver lock to address CVE-2024-47764\n  * deps")
    files = {"package.json": _package(cookie="0.7.1"), "History.md": history}
    analysis = analyse(repo.change("fix(deps): cookie@0.7.0", files))
    assert analysis.type == ChangeType.build
    assert analysis.flags.security and analysis.importance == Importance.high


def test_a_package_released_at_a_version_is_still_a_release(tmp_path: Path) -> None:
    # The release raises its templates' floor of `web`, whose name ends the released package's.
    manifest = '{{\n  "name": "create-web",\n  "version": "{version}"\n}}\n'
    template = '{{\n  "name": "template",\n  "dependencies": {{\n    "web": "^{version}"\n  }}\n}}\n'
    before = {"packages/create-web/package.json": manifest.format(version="9.0.4")}
    repo = Repo(tmp_path, {**before, "packages/create-web/template/package.json": template.format(version="8.0.8")})
    after = {
        "packages/create-web/package.json": manifest.format(version="9.0.5"),
        "packages/create-web/template/package.json": template.format(version="8.0.9"),
    }
    analysis = analyse(repo.change("release: create-web@9.0.5", after))
    assert (analysis.type, analysis.importance) == (ChangeType.chore, Importance.low)


@pytest.mark.parametrize(
    ("title", "breaking"),
    [
        ("Remove unused `depd` dependency", False),
        ("Drop `depd`, no longer needed", False),
        ("Drop the `depd` dependency", True),
    ],
)
def test_a_dependency_the_title_calls_unused_is_dropped_without_breaking_anything(
    repo: Repo, title: str, breaking: bool
) -> None:
    dropped = _DEPS.replace('    "depd": "2.0.0",\n', "")
    analysis = analyse(repo.change(title, {"package.json": _package(deps=dropped)}))
    assert analysis.type == ChangeType.build
    assert analysis.flags.breaking is breaking
    assert (analysis.importance == Importance.low) is not breaking


# --------------------------------------------------------------------------- Rust command-line tools

_WALK = """use std::path::Path;

pub fn strip(path: &Path) -> &Path {
    path.strip_prefix(".").unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_the_current_directory() {
        assert_eq!(strip(Path::new("./a")), Path::new("a"));
    }
}
"""

_MORE_TESTS = """
    #[test]
    fn keeps_a_plain_path() {
        assert_eq!(strip(Path::new("a/b")), Path::new("a/b"));
    }
}
"""


@pytest.fixture
def crate(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"Cargo.toml": '[package]\nname = "finder"\n', "src/walk.rs": _WALK})


def test_tests_added_to_a_rust_files_test_module_are_a_test_change(crate: Repo) -> None:
    walk = _WALK.removesuffix("}\n") + _MORE_TESTS
    analysis = analyse(crate.change("Add tests for strip without a prefix", {"src/walk.rs": walk}))
    assert (analysis.type, analysis.importance, analysis.flags.user_facing) == (ChangeType.test, Importance.low, False)


def test_a_test_module_added_to_a_rust_file_is_a_test_change(crate: Repo) -> None:
    crate.change("Drop the tests", {"src/walk.rs": _WALK.split("#[cfg(test)]")[0]})
    analysis = analyse(crate.change("Add tests for strip", {"src/walk.rs": _WALK}))
    assert analysis.type == ChangeType.test


def test_code_changed_beside_a_rust_files_tests_is_no_test_change(crate: Repo) -> None:
    walk = _WALK.replace('strip_prefix(".")', 'strip_prefix("./")').removesuffix("}\n") + _MORE_TESTS
    analysis = analyse(crate.change("Add a case to strip", {"src/walk.rs": walk}))
    assert analysis.type != ChangeType.test


def test_tests_adapted_beside_code_in_another_rust_file_are_read_with_the_code(crate: Repo) -> None:
    crate.change("Add the filter", {"src/filter.rs": "pub fn keep(n: usize) -> bool {\n    n > 0\n}\n"})
    walk = _WALK.removesuffix("}\n") + _MORE_TESTS
    files = {"src/walk.rs": walk, "src/filter.rs": "pub fn keep(n: usize) -> bool {\n    n > 1\n}\n"}
    analysis = analyse(crate.change("Keep only paths deeper than one", files))
    assert analysis.type != ChangeType.test and analysis.flags.user_facing


_CLAP_CLI = """use clap::Parser;

#[derive(Parser)]
pub struct Opts {
    /// Exclude entries that match the given glob pattern.
    #[arg(
        long,
        short = 'E',
        value_name = "pattern",
        help = "Exclude entries that match the given pattern"
    )]
    pub exclude: Vec<String>,

    #[arg(long, default_value_t = 1)]
    pub depth: usize,
}
"""


def test_an_options_help_text_reworded_is_documentation(crate: Repo) -> None:
    crate.change("Add the options", {"src/cli.rs": _CLAP_CLI, "doc/finder.1": ".B --exclude pattern\n"})
    cli = _CLAP_CLI.replace('value_name = "pattern"', 'value_name = "glob"').replace("given pattern", "given glob")
    files = {"src/cli.rs": cli, "doc/finder.1": ".B --exclude glob\n"}
    analysis = analyse(crate.change("Change --exclude value name from 'pattern' to 'glob'", files))
    assert (analysis.type, analysis.importance) == (ChangeType.docs, Importance.low)


def test_help_text_changed_beside_a_default_is_no_documentation(crate: Repo) -> None:
    crate.change("Add the options", {"src/cli.rs": _CLAP_CLI})
    cli = _CLAP_CLI.replace("given pattern", "given glob").replace("default_value_t = 1", "default_value_t = 2")
    analysis = analyse(crate.change("Search two levels deep by default", {"src/cli.rs": cli}))
    assert analysis.type != ChangeType.docs


def test_cargo_build_configuration_is_a_build_change(crate: Repo) -> None:
    config = '[target.x86_64-pc-windows-msvc]\nrustflags = ["-C", "target-feature=+crt-static"]\n'
    analysis = analyse(crate.change("config: statically link the C runtime on Windows", {".cargo/config.toml": config}))
    assert analysis.type == ChangeType.build


# --------------------------------------------------------------------------- a Rust library workspace

_WORKSPACE = """[workspace]
members = ["tui", "tui-core", "xtask"]

[workspace.package]
edition = "2024"
rust-version = "1.86.0"

[workspace.dependencies]
bitflags = "2.9"
tui = {{ path = "tui", version = "{version}" }}
tui-core = {{ path = "tui-core", version = "{version}" }}
"""
_CRATE = '[package]\nname = "{name}"\nversion = "{version}"\nedition.workspace = true\n\n[dependencies]\n{deps}'
_VERBOSITY = 'clap-verbosity-flag = "2.2.3"\n'
_STYLE = "/// A style.\npub struct Style {\n    pub bold: bool,\n}\n"


def _crates(version: str, core_deps: str = "bitflags.workspace = true\n") -> dict[str, str]:
    return {
        "Cargo.toml": _WORKSPACE.format(version=version),
        "tui-core/Cargo.toml": _CRATE.format(name="tui-core", version=version, deps=core_deps),
        "tui/Cargo.toml": _CRATE.format(name="tui", version=version, deps="tui-core.workspace = true\n"),
    }


@pytest.fixture
def workspace(tmp_path: Path) -> Repo:
    files = {
        **_crates("0.30.1"),
        "xtask/Cargo.toml": _CRATE.format(name="xtask", version="0.1.0", deps=""),
        "xtask/src/main.rs": "fn main() {}\n",
        "tui-core/src/style.rs": _STYLE,
        "CHANGELOG.md": "# Changelog\n",
        "BREAKING-CHANGES.md": "# Breaking changes\n\n## v0.30.0\n\n### Style is now const\n",
    }
    return Repo(tmp_path, files)


@pytest.mark.parametrize(("crate", "importance"), [("xtask", Importance.low), ("tui-core", Importance.medium)])
def test_a_binding_bump_in_the_xtask_crate_reaches_no_user(workspace: Repo, crate: str, importance: Importance) -> None:
    manifest = f"{crate}/Cargo.toml"
    floor = _CRATE.format(name=crate, version="0.30.1", deps=_VERBOSITY).replace(
        "edition.workspace = true", 'edition.workspace = true\nrust-version = "{msrv}"'
    )
    workspace.change("Declare the compiler it needs", {manifest: floor.format(msrv="1.80")})
    analysis = analyse(workspace.change("chore: require Rust 1.86", {manifest: floor.format(msrv="1.86")}))
    assert (analysis.type, analysis.importance) == (ChangeType.build, importance)


@pytest.mark.parametrize("title", ["chore(tui): unleash the rats v0.30.2", "chore: release"])
def test_a_workspace_setting_only_its_own_versions_is_a_release(workspace: Repo, title: str) -> None:
    files = {**_crates("0.30.2"), "CHANGELOG.md": "# Changelog\n\n## 0.30.2\n\n- Fill widget\n"}
    analysis = analyse(workspace.change(title, files))
    assert (analysis.type, analysis.importance) == (ChangeType.chore, Importance.low)
    assert "release" in analysis.importance_reason


@pytest.mark.parametrize(
    "table", ["[dependencies.bitflags]", """[target.'cfg(target_env = "musl")'.dependencies.bitflags]"""]
)
def test_a_version_under_a_dependencys_table_is_no_release(workspace: Repo, table: str) -> None:
    core = "tui-core/Cargo.toml"
    deps = 'itoa = "1"\nmemchr = "2.7"\nregex = "1.10"\n\n'  # the `[dependencies]` header out of the hunk's sight
    manifest = _CRATE.format(name="tui-core", version="0.30.1", deps=deps) + table + '\nversion = "{version}"\n'
    workspace.change("Spell out bitflags", {core: manifest.format(version="2.9")})
    analysis = analyse(workspace.change("chore: bitflags 2.10", {core: manifest.format(version="2.10")}))
    assert analysis.type == ChangeType.build


@pytest.mark.parametrize("inherited", ["indoc.workspace = true\n", "indoc = { workspace = true }\n"])
def test_a_dependency_moved_into_the_workspaces_table_is_not_dropped(workspace: Repo, inherited: str) -> None:
    core = "tui-core/Cargo.toml"
    listed = _CRATE.format(name="tui-core", version="0.30.1", deps='indoc = "2.0.6"\n')
    workspace.change("Use indoc", {core: listed, "tui-core/src/text.rs": "use indoc::indoc;\n"})
    root = _WORKSPACE.format(version="0.30.1").replace('bitflags = "2.9"\n', 'bitflags = "2.9"\nindoc = "2"\n')
    moved = {"Cargo.toml": root, core: _CRATE.format(name="tui-core", version="0.30.1", deps=inherited)}
    analysis = analyse(workspace.change("chore: move dependency management to workspace", moved))
    assert (analysis.type, analysis.flags.breaking, analysis.importance) == (ChangeType.build, False, Importance.low)


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("fix: correct clippy errors introduced by rust 1.86.0 update", (ChangeType.refactor, Importance.low)),
        ("chore: fix new lints", (ChangeType.refactor, Importance.low)),
        ("fix: keep the bold flag when patching a style", (ChangeType.fix, Importance.medium)),
    ],
)
def test_a_linters_findings_corrected_are_a_low_refactor(
    workspace: Repo, title: str, expected: tuple[ChangeType, Importance]
) -> None:
    style = _STYLE.replace("pub struct Style {", "#[derive(Clone, Copy)]\npub struct Style {")
    analysis = analyse(workspace.change(title, {"tui-core/src/style.rs": style}))
    assert (analysis.type, analysis.importance) == expected


_NOTES = "# Breaking changes\n\n## v0.30.0\n\n### Style is now const\n"
_MSRV_NOTE = "\n## [v0.31.0](https://example.com/releases/v0.31.0)\n\n### MSRV is now 1.88.0 ([#2396])\n"


@pytest.mark.parametrize(
    ("notes", "breaking", "importance"),
    [(_NOTES + _MSRV_NOTE, True, Importance.high), (_NOTES, False, Importance.medium)],
)
def test_a_section_added_to_the_breaking_changes_notes_declares_the_break(
    workspace: Repo, notes: str, breaking: bool, importance: Importance
) -> None:
    raised = _WORKSPACE.format(version="0.30.1").replace("1.86.0", "1.88.0")
    analysis = analyse(workspace.change("chore: bump MSRV", {"Cargo.toml": raised, "BREAKING-CHANGES.md": notes}))
    assert (analysis.flags.breaking, analysis.importance) == (breaking, importance)


@pytest.mark.parametrize(
    ("notes", "title"),
    [
        (_NOTES + _MSRV_NOTE, "docs(breaking-changes): note the MSRV"),
        (_NOTES.replace("Style is now const", "Style methods are now const"), "chore: style is const"),
    ],
)
def test_notes_edited_alone_or_reworded_declare_no_break(workspace: Repo, notes: str, title: str) -> None:
    style = _STYLE.replace("pub bold: bool", "pub bold: bool,\n    pub italic: bool")
    files = {"BREAKING-CHANGES.md": notes, **({"tui-core/src/style.rs": style} if title.startswith("chore") else {})}
    analysis = analyse(workspace.change(title, files))
    assert not analysis.flags.breaking


# --------------------------------------------------------------------------- Python model servers

_REGISTRY = """_MODELS = {{
    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),
{entries}}}
"""
_MODEL = """import torch


class {name}(torch.nn.Module):
    def forward(self, input_ids):
        return self.layers(self.embed(input_ids))
"""


@pytest.fixture
def server(tmp_path: Path) -> Repo:
    registry = _REGISTRY.format(entries="")
    return Repo(tmp_path, {"engine/models/registry.py": registry, "engine/models/llama.py": _MODEL.format(name="L")})


def _register(server: Repo, title: str, modules: dict[str, str]) -> Importance:
    entries = "".join(f'    "{name}": ("{module}", "{name}"),\n' for module, name in modules.items())
    files = {f"engine/models/{module}.py": _MODEL.format(name=name) for module, name in modules.items()}
    analysis = analyse(server.change(title, {"engine/models/registry.py": _REGISTRY.format(entries=entries), **files}))
    assert analysis.type == ChangeType.feat
    return analysis.importance


def test_a_model_family_registered_with_its_companion_modules_is_high(server: Repo) -> None:
    modules = {"gemma9": "Gemma9ForCausalLM", "gemma9_mm": "Gemma9ForConditionalGeneration"}
    assert _register(server, "Add Gemma 9 support", modules) == Importance.high


def test_one_new_model_module_registered_stays_medium(server: Repo) -> None:
    # One module may be a new family or a variant of one: the diff cannot tell.
    assert _register(server, "Add Gemma 9 support", {"gemma9": "Gemma9ForCausalLM"}) == Importance.medium


def test_a_title_saying_what_a_function_should_do_is_a_fix(server: Repo) -> None:
    loader = "import os\n\n\ndef use_cache():\n    return os.environ.get('ENGINE_CACHE', '1') == '1'\n"
    server.change("Add the cache switch", {"engine/cache.py": loader})
    fixed = loader.replace("return", "return not os.environ.get('ENGINE_NO_CACHE') and")
    analysis = analyse(server.change("`use_cache` should respect `ENGINE_NO_CACHE`", {"engine/cache.py": fixed}))
    assert analysis.type == ChangeType.fix


def test_a_clause_about_what_should_happen_is_no_fix(server: Repo) -> None:
    fields = "CPU_FIELDS = ['pixel_values']\n"
    analysis = analyse(server.change("Configure fields which should stay on CPU", {"engine/fields.py": fields}))
    assert analysis.type != ChangeType.fix


def test_code_owners_are_repository_maintenance(server: Repo) -> None:
    owners = "/engine/models @model-team\n/engine/cache.py @cache-team\n"
    analysis = analyse(server.change("Update CODEOWNERS", {".github/CODEOWNERS": owners}))
    assert (analysis.type, analysis.importance) == (ChangeType.chore, Importance.low)


# --------------------------------------------------------------------------- fixes in the build


_CMAKE = 'cmake_minimum_required(VERSION 3.26)\nproject(kernels)\nset(CUDA_ARCHS "{archs}")\n'


@pytest.fixture
def kernels(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"CMakeLists.txt": _CMAKE.format(archs="8.0;9.0"), "kernels/ops.py": "OPS = []\n"})


def test_a_fix_made_in_the_build_is_a_medium_fix(kernels: Repo) -> None:
    # The CMake build logic decides what compiles for which GPUs: a fix there is a fix users get.
    files = {"CMakeLists.txt": _CMAKE.format(archs="8.0+PTX;9.0+PTX")}
    analysis = analyse(kernels.change("[Bugfix] Build the kernels with PTX for newer GPUs", files))
    assert (analysis.type, analysis.importance) == (ChangeType.fix, Importance.medium)


def test_a_build_change_that_fixes_nothing_stays_low(kernels: Repo) -> None:
    files = {"CMakeLists.txt": _CMAKE.format(archs="8.0;9.0;10.0")}
    analysis = analyse(kernels.change("Build the kernels for one more architecture", files))
    assert (analysis.type, analysis.importance) == (ChangeType.build, Importance.low)


def test_a_title_naming_only_what_the_code_now_uses_is_no_refactor(server: Repo) -> None:
    # "Use X for Y" says what the code calls, not why: a fix, a speed-up or a refactor alike.
    check = "import inspect\n\n\ndef is_async(fn):\n    return inspect.iscoroutinefunction(fn)\n"
    server.change("Add the check", {"engine/check.py": check})
    fixed = check.replace("import inspect", "import asyncio").replace("inspect.", "asyncio.")
    analysis = analyse(server.change("Use `asyncio.iscoroutinefunction` for Python 3.12", {"engine/check.py": fixed}))
    assert analysis.type != ChangeType.refactor


# --------------------------------------------------------------------------- a Python CLI with a hand-written changelog


_DB = """class Table:
    def transform(self, types=None):
        sql = "CREATE TABLE t (id INTEGER PRIMARY KEY)"
        return self.db.execute(sql)

    def ensure_autocommit_off(self):
        return self.db.isolation_level
"""
_CLI = """import click


@click.group()
def cli():
    "Manipulate SQLite databases"
"""
_CHANGELOG = "Changelog\n=========\n\n.. _v4_2:\n\n4.2 (unreleased)\n----------------\n\n"


@pytest.fixture
def tool(tmp_path: Path) -> Repo:
    files = {"tool/db.py": _DB, "tool/cli.py": _CLI, "docs/changelog.rst": _CHANGELOG, "tests/test_db.py": "\n"}
    return Repo(tmp_path, files)


def _entry(text: str) -> dict[str, str]:
    return {"docs/changelog.rst": f"{_CHANGELOG}- {text}\n"}


def test_a_title_that_preserves_what_was_lost_is_a_fix(tool: Repo) -> None:
    # The entry's "Previously ... removed" tells what went wrong: no removal, no refactor.
    files = {
        "tool/db.py": _DB.replace("PRIMARY KEY)", 'PRIMARY KEY" + autoincrement + ")'),
        **_entry("``table.transform()`` now preserves ``AUTOINCREMENT``. Previously a transform removed it."),
    }
    analysis = analyse(tool.change("Preserve AUTOINCREMENT through transforms", files))
    assert (analysis.type, analysis.importance) == (ChangeType.fix, Importance.medium)


def test_fixes_for_a_type_checker_are_a_low_refactor(tool: Repo) -> None:
    annotated = _DB.replace("types=None)", "types: dict[str, str] | None = None) -> object")
    analysis = analyse(tool.change("Fixes for Pyright, closes #833", {"tool/db.py": annotated}))
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)


def test_a_title_saying_what_a_command_can_now_do_is_a_feature(tool: Repo) -> None:
    reads = _DB.replace("types=None):", "types=None):\n        types = {k: v for k, v in (types or {}).items() if v}")
    analysis = analyse(tool.change("tool transform can now skip empty types, closes #686", {"tool/db.py": reads}))
    assert analysis.type == ChangeType.feat


def test_a_changelog_telling_users_a_method_was_renamed_is_breaking(tool: Repo) -> None:
    files = {
        "tool/db.py": _DB.replace("autocommit_off", "autocommit_on"),
        **_entry("``db.ensure_autocommit_off()`` has been renamed to ``db.ensure_autocommit_on()``."),
    }
    analysis = analyse(tool.change("Rename ensure_autocommit_off() to ensure_autocommit_on(), closes #705", files))
    assert analysis.flags.breaking
    assert analysis.importance == Importance.high


def test_a_feature_removed_in_favour_of_another_tool_is_breaking(tool: Repo) -> None:
    wrapped = _CLI + "\n\ntry:\n    import trogon\nexcept ImportError:\n    trogon = None\n"
    tool.change("Wrap the CLI in a TUI", {"tool/cli.py": wrapped})
    analysis = analyse(tool.change("Removed trogon feature in favor of tool-tui", {"tool/cli.py": _CLI}))
    assert (analysis.type, analysis.flags.breaking) == (ChangeType.feat, True)


def test_a_removed_command_named_in_passing_is_no_removal(tool: Repo) -> None:
    wrapped = _CLI + "\n\nOVERRIDE = True\n"
    tool.change("Add the override", {"tool/cli.py": wrapped})
    analysis = analyse(tool.change("Removed problematic command override mechanism", {"tool/cli.py": _CLI}))
    assert not analysis.flags.breaking


def test_a_body_telling_how_arbitrary_sql_could_be_injected_is_a_security_fix(tool: Repo) -> None:
    quoted = _DB.replace('"CREATE TABLE t', 'f"CREATE VIRTUAL TABLE t USING fts5(tokenize={self.db.quote(types)})"  #')
    body = (
        "The tokenize value was interpolated into a single-quoted literal. A value containing a quote\n"
        "could break out of it and inject arbitrary SQL."
    )
    analysis = analyse(tool.change(f"Escape tokenize argument in enable_fts\n\n{body}", {"tool/db.py": quoted}))
    assert analysis.flags.security
    assert analysis.importance == Importance.high


def test_a_test_matrix_widened_to_other_versions_is_ci(tool: Repo) -> None:
    # The code drops what the oldest version lacks; the title says why the commit exists.
    workflow = "jobs:\n  test:\n    strategy:\n      matrix:\n        sqlite-version: ['3.46', '3.23.1']\n"
    older = _DB.split("\n    def ensure_autocommit_off")[0] + "\n"
    files = {".github/workflows/sqlite.yml": workflow, "tool/db.py": older}
    analysis = analyse(tool.change("Test against multiple SQLite versions (#654)", files))
    assert (analysis.type, analysis.importance) == (ChangeType.ci, Importance.low)


def test_a_title_removing_an_option_it_spells_out_declares_the_break(tool: Repo) -> None:
    flagged = (
        _CLI
        + '\n\n@cli.command()\n@click.option("--no-skip-false", is_flag=True)\ndef convert(no_skip_false):\n    pass\n'
    )
    tool.change("Add convert", {"tool/cli.py": flagged})
    plain = _CLI + "\n\n@cli.command()\ndef convert():\n    pass\n"
    analysis = analyse(tool.change("Removed convert skip_false and --skip-false, closes #542", {"tool/cli.py": plain}))
    assert (analysis.type, analysis.flags.breaking, analysis.importance) == (ChangeType.feat, True, Importance.high)


def test_an_option_removed_from_a_usage_example_is_no_declared_break(tool: Repo) -> None:
    analysis = analyse(tool.change("Remove --model from tool serve usage", {"docs/usage.rst": "tool serve\n"}))
    assert not analysis.flags.breaking


def test_a_title_raising_an_error_on_bad_input_is_a_fix(tool: Repo) -> None:
    checked = _DB.replace(
        "types=None):", "types=None):\n        if types and None in types:\n            raise InvalidColumns(types)"
    )
    entry = _entry("``table.transform()`` now raises ``InvalidColumns`` if ``types=`` names no column.")
    files = {"tool/db.py": checked, **entry}
    analysis = analyse(tool.change('Raise InvalidColumns on transform(types="invalid")', files))
    assert analysis.type == ChangeType.fix


def test_a_title_raising_a_value_is_no_fix(tool: Repo) -> None:
    limits = "MAX_SIZE_MB = 500\n"
    analysis = analyse(tool.change("Raise MAX_SIZE_MB to 500 for the wheel", {"tool/limits.py": limits}))
    assert analysis.type != ChangeType.fix


# --------------------------------------------------------------------------- a CLI with plugins, a Markdown changelog


_PLUGINS_INIT = 'DEFAULT_MODEL = "mini"\n\n\ndef get_model(name=None):\n    return name or DEFAULT_MODEL\n'
_PLUGINS_CLI = """import click


@click.group()
def cli():
    "Access models from the command line"


@cli.command()
@click.option("-n", "--count", default=3)
def logs(count):
    "Show logged prompts"
"""
_PYPROJECT = '[project]\nname = "chat"\ndependencies = [\n    "click",\n    "sqlite-migrate==0.1a2",\n]\n'


@pytest.fixture
def plugins(tmp_path: Path) -> Repo:
    files = {
        "chat/__init__.py": _PLUGINS_INIT,
        "chat/cli.py": _PLUGINS_CLI,
        "chat/migrations.py": "from sqlite_migrate import Migrations\n",
        "docs/changelog.md": "# Changelog\n\n## 0.31\n\n- First entry.\n",
        "pyproject.toml": _PYPROJECT,
    }
    return Repo(tmp_path, files)


def _md_entry(text: str) -> dict[str, str]:
    return {"docs/changelog.md": f"# Changelog\n\n## Unreleased\n\n- {text}\n\n## 0.31\n\n- First entry.\n"}


def test_the_addresses_a_changelog_entry_links_are_no_words(plugins: Repo) -> None:
    # `…/api/docs/models/luna` is where the link points, not a documentation change.
    entry = _md_entry("The model used by default is now [Luna](https://models.example.com/api/docs/models/luna).")
    files = {"chat/__init__.py": _PLUGINS_INIT.replace('"mini"', '"luna"'), **entry}
    analysis = analyse(plugins.change("Switch default model to Luna, closes #1576", files))
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.high)


def test_a_changelog_naming_the_default_a_new_one_replaces_is_breaking(plugins: Repo) -> None:
    entry = _md_entry("The default model is now Luna 5.6. It was previously Mini.")
    files = {"chat/__init__.py": _PLUGINS_INIT.replace('"mini"', '"luna"'), **entry}
    analysis = analyse(plugins.change("Switch default model to Luna, closes #1576", files))
    assert analysis.flags.breaking


def test_an_option_given_to_a_logs_command_is_a_feature(plugins: Repo) -> None:
    # "logs" names the command here, not what the program writes to its log.
    files = {"chat/cli.py": _PLUGINS_CLI.replace("def logs(", '@click.option("--since")\ndef logs(since, ')}
    analysis = analyse(plugins.change("chat logs --since option, closes #801", files))
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.medium)


def test_a_dropped_dependency_the_title_names_is_a_build_change(plugins: Repo) -> None:
    files = {
        "pyproject.toml": _PYPROJECT.replace('    "sqlite-migrate==0.1a2",\n', ""),
        "chat/migrations.py": "from sqlite_utils import Migrations\n",
    }
    analysis = analyse(plugins.change("Drop dependency on sqlite-migrate, closes #1577", files))
    assert analysis.type == ChangeType.build


def test_a_justfile_is_developer_tooling(plugins: Repo) -> None:
    plugins.change("Add recipes", {"Justfile": "test:\n  pytest\n"})
    analysis = analyse(plugins.change("Run the recipes through uv", {"Justfile": "test:\n  uv run pytest\n"}))
    assert (analysis.type, analysis.importance) == (ChangeType.chore, Importance.low)


def test_a_title_naming_an_option_is_a_feature_even_beside_docs(plugins: Repo) -> None:
    # The option exists; it now takes another kind of value, which the title announces.
    reads = _PLUGINS_CLI.replace('    "Show logged prompts"\n', '    "Show logged prompts"\n    count = int(count)\n')
    files = {"chat/cli.py": reads, "docs/logging.md": "# Logging\n\nUse `-n` to limit.\n"}
    analysis = analyse(plugins.change("-n t:template-name option, plus improved logging docs", files))
    assert analysis.type == ChangeType.feat


# --------------------------------------------------------------------------- a Python test tool with plugins

_SETUP = 'setup(\n    name="measure",\n    python_requires=">={version}",\n)\n'
_CONTROL = '''class Measure:
    def annotate(self, morfs):
        """Annotate a list of modules.

        .. note::

            This method has been obsoleted by the html report.  It will be removed in a
            future version.

        """
        return [str(morf) for morf in morfs]
'''


@pytest.fixture
def measure(tmp_path: Path) -> Repo:
    files = {"setup.py": _SETUP.format(version="3.9"), "measure/control.py": _CONTROL, "requirements/kit.pip": ""}
    return Repo(tmp_path, files)


def test_a_python_floor_raised_under_a_title_naming_only_the_version_is_a_high_break(measure: Repo) -> None:
    analysis = analyse(measure.change("build: drop 3.9", {"setup.py": _SETUP.format(version="3.10")}))
    assert (analysis.type, analysis.flags.breaking, analysis.importance) == (ChangeType.build, True, Importance.high)


def test_pins_pip_tools_writes_as_pip_files_are_no_floor_users_meet(measure: Repo) -> None:
    measure.change("Pin", {"requirements/kit.pip": "setuptools==69.5.1\n    # via -r requirements/kit.in\n"})
    pinned = {"requirements/kit.pip": "setuptools==70.0.0\n    # via -r requirements/kit.in\n"}
    analysis = analyse(measure.change("chore: make upgrade", pinned))
    assert (analysis.type, analysis.importance) == (ChangeType.build, Importance.low)


@pytest.mark.parametrize(
    "title", ["docs: remove the deprecation warning from Measure.annotate", "Silence the deprecation warning of X"]
)
def test_a_title_acting_against_a_deprecation_warning_announces_no_break(measure: Repo, title: str) -> None:
    kept = _CONTROL.replace(
        "        .. note::\n\n            This method has been obsoleted by the html report.  It will be removed in a\n"
        "            future version.\n\n",
        "",
    )
    analysis = analyse(measure.change(title, {"measure/control.py": kept}))
    assert (analysis.flags.breaking, analysis.importance) == (False, Importance.low)


def test_a_deprecation_a_refactor_moves_off_is_no_break(measure: Repo) -> None:
    respec = _CONTROL.replace("return [str(morf)", "return [getattr(morf, '__spec__', morf)")
    analysis = analyse(measure.change("refactor: __loader__ is deprecated", {"measure/control.py": respec}))
    assert (analysis.type, analysis.flags.breaking, analysis.importance) == (ChangeType.refactor, False, Importance.low)


# --------------------------------------------------------------------------- a pytest plugin with news fragments

_PLUGIN_PYPROJECT = (
    '[project]\nname = "pytest-spread"\ndependencies = [\n    "execnet>=2.1",\n    "pytest>={pytest}",\n]\n'
)
_PLUGIN = """import pytest


@pytest.hookimpl
def pytest_addoption(parser):
    group = parser.getgroup("spread", "distributed testing")
    group.addoption(
        "--maxprocesses",
        type=int,
        help="limit the number of workers "
        "when using --numprocesses=auto",
    )
    group.addoption(
        "--dist",
        default="no",
        help=(
            "set mode for distributing tests: "
            "load: send any pending test to any available worker."
        ),
    )


def check(count):
    if count < 0:
        raise pytest.UsageError(
            "--maxprocesses must be "
            "a positive number"
        )
"""
_PLUGIN_CHANGELOG = "pytest-spread 3.6.0 (2024-04-19)\n================================\n\n- First entry.\n"


@pytest.fixture
def plugin(tmp_path: Path) -> Repo:
    files = {
        "pyproject.toml": _PLUGIN_PYPROJECT.format(pytest="6.2.0"),
        "src/spread/plugin.py": _PLUGIN,
        "CHANGELOG.rst": _PLUGIN_CHANGELOG,
        "changelog/_template.rst": "{% for section in sections %}{{ section }}{% endfor %}\n",
    }
    return Repo(tmp_path, files)


def test_a_removal_fragment_named_without_an_extension_declares_the_break(plugin: Repo) -> None:
    files = {
        "pyproject.toml": _PLUGIN_PYPROJECT.format(pytest="7.0.0"),
        "changelog/1057.removal": "pytest>=7.0.0 is now required.\n",
    }
    analysis = analyse(plugin.change("Bump min pytest to 7.0.0", files))
    assert (analysis.type, analysis.flags.breaking, analysis.importance) == (ChangeType.build, True, Importance.high)


def _news_released(plugin: Repo, title: str, extension: str) -> Analysis:
    """The news of three changes (`extension` on their fragments' names), then the release gathering them."""
    feature = "Add `--px` to create proxy gateways.\n\nProxy gateways are passed to other gateways with `via`.\n"
    feature += "They can serve to run several workers on a remote machine.\n"
    fix = "Fixed a crash when a group name is a number.\n\nIt is now read as a string.\n"
    news = {"1162.removal": "Dropped support for Python 3.8.\n", "1170.feature": feature, "1200.bugfix": fix}
    plugin.change("Add the news", {f"changelog/{name}{extension}": text for name, text in news.items()})
    notes = "pytest-spread 3.7.0 (2025-05-26)\n================================\n\nFeatures\n--------\n\n- "
    notes += feature.replace("\n\n", "\n\n  ") + "\nRemovals\n--------\n\n- Dropped support for Python 3.8.\n\n"
    gathered = tuple(f"changelog/{name}{extension}" for name in news)
    return analyse(plugin.change(title, {"CHANGELOG.rst": notes + _PLUGIN_CHANGELOG}, removed=gathered))


def test_a_release_consuming_fragments_named_without_an_extension_is_a_low_chore(plugin: Repo) -> None:
    analysis = _news_released(plugin, "Release 3.7.0", "")
    assert (analysis.type, analysis.flags.breaking, analysis.importance) == (ChangeType.chore, False, Importance.low)


def test_fragments_gathered_into_the_changelog_are_a_release_whatever_the_title(plugin: Repo) -> None:
    analysis = _news_released(plugin, "Prepare release version 3.7.0", ".rst")
    assert (analysis.type, analysis.flags.breaking, analysis.importance) == (ChangeType.chore, False, Importance.low)
    assert "pytest-spread 3.7.0 (2025-05-26)" in analysis.importance_reason


def test_an_options_help_text_reworded_over_string_pieces_is_documentation(plugin: Repo) -> None:
    reworded = (
        _PLUGIN.replace("limit the", "Limit the")
        .replace('"when using --numprocesses=auto"', "\"when using --numprocesses with 'auto' or 'logical'\"")
        .replace('"set mode', '"Set mode')
        .replace('"load: send', '"load: Send')
    )
    commit = plugin.change("Fix inconsistencies in the --help formatting", {"src/spread/plugin.py": reworded})
    analysis = analyse(commit)
    assert (analysis.type, analysis.importance) == (ChangeType.docs, Importance.low)


def test_a_string_piece_of_an_error_message_is_no_help_text(plugin: Repo) -> None:
    reworded = _PLUGIN.replace('"a positive number"', '"a number above zero"')
    analysis = analyse(plugin.change("Fix the --maxprocesses error wording", {"src/spread/plugin.py": reworded}))
    assert analysis.type != ChangeType.docs


def test_an_option_removed_from_a_pytest_plugins_group_is_a_break(plugin: Repo) -> None:
    start, end = _PLUGIN.index('    group.addoption(\n        "--dist"'), _PLUGIN.index("\n\ndef check")
    analysis = analyse(
        plugin.change("Clean up the distribution modes", {"src/spread/plugin.py": _PLUGIN[:start] + _PLUGIN[end:]})
    )
    assert [(s.kind, s.change, s.name) for s in analysis.surface] == [
        (SurfaceKind.cli_option, SurfaceAction.removed, "--dist")
    ]
    assert (analysis.type, analysis.flags.breaking) == (ChangeType.feat, True)


def test_a_pytest_plugin_options_new_default_is_a_high_break(plugin: Repo) -> None:
    moved = _PLUGIN.replace('default="no"', 'default="load"')
    analysis = analyse(plugin.change("Spread the tests out", {"src/spread/plugin.py": moved}))
    assert (analysis.flags.breaking, analysis.importance) == (True, Importance.high)


_TOOLS = '[tool.mypy]\nstrict = true\npython_version = "3.9"\n\n[tool.ruff]\nline-length = 100\n'


def test_a_manifest_changed_only_in_its_development_tools_sections_is_tooling(plugin: Repo) -> None:
    pyproject = _PLUGIN_PYPROJECT.format(pytest="6.2.0") + "\n"
    plugin.change("Configure the tools", {"pyproject.toml": pyproject + _TOOLS})
    dropped = {"pyproject.toml": pyproject + _TOOLS.replace('python_version = "3.9"\n', "")}
    analysis = analyse(plugin.change("Remove python version from mypy", dropped))
    assert (analysis.type, analysis.importance, analysis.flags.breaking) == (ChangeType.chore, Importance.low, False)


def test_a_build_backends_section_is_no_development_tool(plugin: Repo) -> None:
    pyproject = _PLUGIN_PYPROJECT.format(pytest="6.2.0") + "\n"
    backend = '[tool.setuptools]\npackages = ["spread"]\n\n[tool.ruff]\nline-length = 100\n'
    plugin.change("Configure the build", {"pyproject.toml": pyproject + backend})
    changed = {"pyproject.toml": pyproject + backend.replace('["spread"]', '["spread", "spread.scheduler"]')}
    analysis = analyse(plugin.change("Ship the scheduler package", changed))
    assert analysis.type == ChangeType.build


def test_a_type_checkers_target_version_beside_a_floor_is_no_dependency(plugin: Repo) -> None:
    pyproject = _PLUGIN_PYPROJECT.format(pytest="{pytest}") + "\n" + _TOOLS
    plugin.change("Configure the tools", {"pyproject.toml": pyproject.format(pytest="6.2.0")})
    raised = pyproject.format(pytest="7.0.0").replace('python_version = "3.9"\n', "")
    analysis = analyse(plugin.change("Require pytest 7", {"pyproject.toml": raised}))
    assert [(s.kind, s.change, s.name) for s in analysis.surface] == [
        (SurfaceKind.dependency_floor, SurfaceAction.raised_floor, "pytest")
    ]


# --------------------------------------------------------------------------- whole modules removed


def _backend(name: str) -> str:
    return (
        f'"""The {name} backend."""\n\n\nclass {name.title()}Backend:\n'
        f"    def run(self, batch):\n        return [item * 2 for item in batch]\n\n\n"
        f"def load_{name}(path):\n    return {name.title()}Backend()\n"
    )


_BACKENDS = ("jax", "flax", "tpu", "ipu", "mlu")


def _root_module(names: tuple[str, ...]) -> str:
    """The package's root module: each backend's class, and the variable locating its runtime."""
    lines = [f"from engine.backends.{name} import {name.title()}Backend\n" for name in names]
    homes = [f'{name.upper()}_HOME = os.environ.get("ENGINE_{name.upper()}_HOME")\n' for name in names]
    return "import os\n\n" + "".join(lines) + "\n" + "".join(homes)


@pytest.mark.parametrize(
    ("removed", "importance"), [(_BACKENDS[:4], Importance.high), (_BACKENDS[:1], Importance.medium)]
)
def test_a_break_that_deletes_whole_modules_is_high(
    tmp_path: Path, removed: tuple[str, ...], importance: Importance
) -> None:
    """One export gone from the diff alone stays at the rubric's floor; a backend family deleted whole does not."""
    files = {f"engine/backends/{name}.py": _backend(name) for name in _BACKENDS}
    repo = Repo(tmp_path, {**files, "engine/__init__.py": _root_module(_BACKENDS)})
    for name in removed:
        repo.builder.remove(f"engine/backends/{name}.py")
    kept = tuple(name for name in _BACKENDS if name not in removed)
    analysis = analyse(repo.change("Drop legacy accelerators", {"engine/__init__.py": _root_module(kept)}))
    assert analysis.flags.breaking
    assert analysis.importance == importance


# --------------------------------------------------------------------------- a Django app: version module, translations

_APP_PYPROJECT = (
    '[project]\nname = "panels"\ndynamic = ["version"]\ndependencies = [\n  "django>=4.2",\n]\n\n'
    '[tool.hatch.build.targets.wheel]\npackages = [\n  "panels",\n]\n{backend}\n'
    '[tool.hatch.version]\npath = "panels/__init__.py"\n'
)
_APP_INIT = 'APP_NAME = "panels"\n\nVERSION = "{version}"\n\nurls = "panels.urls", APP_NAME\n'
_APP_CHANGES = "Change log\n==========\n\nPending\n-------\n\n* Added a cache panel.\n"
_APP_CATALOG = 'msgid ""\nmsgstr ""\n"Language: fr\\n"\n\n#: panels/cache.py:12\nmsgid "Cache"\nmsgstr "{cache}"\n'


@pytest.fixture
def app(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "pyproject.toml": _APP_PYPROJECT.format(backend=""),
            "panels/__init__.py": _APP_INIT.format(version="5.1.0"),
            "panels/cache.py": "def record(key):\n    return {'key': key}\n",
            "panels/locale/fr/LC_MESSAGES/django.po": _APP_CATALOG.format(cache="Cache"),
            "docs/changes.rst": _APP_CHANGES,
            "docs/conf.py": 'release = "5.1.0"\n',
        },
    )


def _app_release(app: Repo, title: str, extra: dict[str, str]) -> Analysis:
    files = {
        "panels/__init__.py": _APP_INIT.format(version="5.2.0"),
        "docs/changes.rst": _APP_CHANGES.replace("-------\n", "-------\n\n5.2.0 (2025-04-29)\n------------------\n"),
        "docs/conf.py": 'release = "5.2.0"\n',
        **extra,
    }
    return analyse(app.change(title, files))


def test_a_release_written_in_the_version_module_is_a_chore_whatever_its_title(app: Repo) -> None:
    # The manifest reads the version from the package: the release edits that line alone.
    analysis = _app_release(app, "panels 5.2", {})
    assert (analysis.type, analysis.importance) == (ChangeType.chore, Importance.low)


def test_a_version_module_edited_beside_other_code_is_no_release(app: Repo) -> None:
    fixed = {"panels/cache.py": "def record(key):\n    return {'key': str(key)}\n"}
    analysis = _app_release(app, "Fix the cache panel's keys", fixed)
    assert analysis.type == ChangeType.fix


def test_a_build_backends_metadata_version_dropped_is_no_dependency(app: Repo) -> None:
    pinned = '# the release process reads metadata 2.2 only\ncore-metadata-version = "2.2"\n'
    app.change("Pin the metadata", {"pyproject.toml": _APP_PYPROJECT.format(backend=pinned)})
    analysis = analyse(
        app.change("Point the links to the new home", {"pyproject.toml": _APP_PYPROJECT.format(backend="")})
    )
    assert analysis.surface == []
    assert (analysis.flags.breaking, analysis.importance) == (False, Importance.low)


def test_a_dependency_dropped_from_the_list_is_still_one(app: Repo) -> None:
    dropped = _APP_PYPROJECT.format(backend="").replace('  "django>=4.2",\n', "")
    analysis = analyse(app.change("Trim the requirements", {"pyproject.toml": dropped}))
    assert [(s.kind, s.change, s.name) for s in analysis.surface] == [
        (SurfaceKind.dependency, SurfaceAction.removed, "django")
    ]


@pytest.mark.parametrize(
    ("title", "kind"),
    [("Create new translatable strings.", ChangeType.chore), ("Fix the French word for cache", ChangeType.fix)],
)
def test_a_message_catalog_edited_alone_is_a_low_chore_or_the_fix_its_title_names(
    app: Repo, title: str, kind: ChangeType
) -> None:
    catalog = {"panels/locale/fr/LC_MESSAGES/django.po": _APP_CATALOG.format(cache="Antémémoire")}
    analysis = analyse(app.change(title, catalog))
    assert (analysis.type, analysis.importance) == (kind, Importance.low)


_APP_SETTINGS = (
    "CONFIG_DEFAULTS = {{\n{entries}}}\n\nPANELS_DEFAULTS = [\n{panels}]\n\n\n"
    "def get_config():\n    return dict(CONFIG_DEFAULTS)\n"
)
_APP_ENTRIES = ['    "INSERT_BEFORE": "</body>",\n', '    "RENDER_PANELS": None,\n', '    "SHOW_COLLAPSED": False,\n']
_APP_PANELS = ['    "panels.cache.CachePanel",\n', '    "panels.sql.SQLPanel",\n']


def _app_settings(entries: list[str], panels: list[str]) -> dict[str, str]:
    return {"panels/settings.py": _APP_SETTINGS.format(entries="".join(entries), panels="".join(panels))}


@pytest.mark.parametrize(
    ("entries", "panels", "reordered"),
    [
        (_APP_ENTRIES[::-1], _APP_PANELS, True),
        # A list's order is its meaning (the order panels show in); a value changed beside a move is an edit.
        (_APP_ENTRIES, _APP_PANELS[::-1], False),
        ([_APP_ENTRIES[2].replace("False", "True"), *_APP_ENTRIES[:2]], _APP_PANELS, False),
    ],
)
def test_a_settings_table_whose_keys_only_change_places_is_a_low_refactor(
    app: Repo, entries: list[str], panels: list[str], reordered: bool
) -> None:
    app.change("Add the settings", _app_settings(_APP_ENTRIES, _APP_PANELS))
    analysis = analyse(app.change("Group the options by what they configure", _app_settings(entries, panels)))
    assert ((analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)) is reordered
