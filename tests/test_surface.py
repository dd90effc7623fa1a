"""The heuristic reads the whole patch, and what it extracts of the user-visible surface.

Every commit is made by git in a temporary repository (:class:`RepoBuilder`) and
read by the git source, so the patches are exactly what a real run reads.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.context import build_input
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import Analysis, AnalysisInput, ChangeType, Commit, Coverage, Importance
from repodaily.sources.git import collect_commits, open_repository

_DAY = datetime(2026, 2, 9, tzinfo=UTC)
_BEFORE = datetime(2026, 2, 8, 12, tzinfo=UTC)
_ON_THE_DAY = datetime(2026, 2, 9, 12, tzinfo=UTC)


class Repo:
    """A repository whose first commit holds ``before``; :meth:`change` commits on the report day and reads it back."""

    def __init__(self, path: Path, before: dict[str, str]) -> None:
        self.path = path
        self.builder = RepoBuilder(path / "work")
        self.builder.commit("Initial import", when=_BEFORE, files=before)

    def change(self, message: str, files: dict[str, str], removed: tuple[str, ...] = ()) -> Commit:
        for relpath in removed:
            self.builder.remove(relpath)
        self.builder.commit(message, when=_ON_THE_DAY, files=files)
        repository = open_repository(str(self.builder.path), cache_dir=self.path / "cache")
        commits = collect_commits(repository, _DAY, _DAY.replace(hour=23, minute=59))
        return commits[0]


def heuristic_input(commit: Commit, analyzer: HeuristicAnalyzer, budget_tokens: int = 6000) -> AnalysisInput:
    return build_input(
        "acme/engine",
        commit,
        budget_tokens=budget_tokens,
        paths=analyzer.path_table,
        whole_patch=analyzer.reads_whole_patch,
    )


def analyse(commit: Commit, budget_tokens: int = 6000) -> Analysis:
    analyzer = HeuristicAnalyzer(language="en")
    return analyzer.analyze_sync(heuristic_input(commit, analyzer, budget_tokens))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"README.md": "# engine\n"})


# --------------------------------------------------------------------------- the whole patch


def _long_cli(flags: list[str]) -> str:
    """A command-line module with many helper functions before the parser, so its options come late in the patch."""
    helpers = "".join(f"def helper_{i}(value):\n    return value * {i} + len(str(value))\n\n\n" for i in range(120))
    options = "".join(f'    parser.add_argument(\n        "{flag}",\n        type=int,\n    )\n' for flag in flags)
    return f"import argparse\n\n\n{helpers}def make_parser():\n    parser = argparse.ArgumentParser()\n{options}"


def test_a_late_hunk_the_prompt_budget_cuts_is_read_by_the_heuristic(repo: Repo) -> None:
    before = _long_cli(["--workers", "--legacy-mode"])
    repo.change("Initial cli", {"engine/cli.py": before})
    after = before.replace("return value *", "return value +").replace(
        '        "--legacy-mode",\n', '        "--mode",\n'
    )
    commit = repo.change("Tidy the command line", {"engine/cli.py": after})
    analyzer = HeuristicAnalyzer(language="en")
    # What one small prompt would hold stops before the parser: the removed option is not in it.
    prompt = build_input("acme/engine", commit, budget_tokens=300, paths=analyzer.path_table)
    assert prompt.files[0].coverage == Coverage.clipped
    assert "--legacy-mode" not in prompt.files[0].text
    item = heuristic_input(commit, analyzer, budget_tokens=300)
    assert item.files[0].coverage == Coverage.full
    # Rules spend no model tokens: nothing is counted, and the receipt says so.
    assert (item.receipt.tokens_sent, item.receipt.files[0].tokens_sent) == (0, 0)
    assert "--legacy-mode" in item.files[0].text
    analysis = analyzer.analyze_sync(item)
    assert analysis.coverage.count(Coverage.full) == 1


# --------------------------------------------------------------------------- surface changes


def surface(analysis: Analysis) -> set[tuple[str, str, str, str | None, str | None, str | None]]:
    return {(c.kind, c.change, c.name, c.old, c.new, c.replacement) for c in analysis.surface}


_CLI = """import argparse


def make_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--workers",
        type=int,
        default=4,
        help="How many workers (at least one).",
    )
    return parser
"""


def test_multi_line_cli_options_added_removed_renamed_and_default_changed(repo: Repo) -> None:
    repo.change("Add the cli", {"engine/cli.py": _CLI})
    changed = repo.change("Default to eight workers", {"engine/cli.py": _CLI.replace("default=4", "default=8")})
    assert surface(analyse(changed)) == {("cli_option", "default_changed", "--workers", "4", "8", None)}
    added = _CLI.replace(
        "    return parser", '    parser.add_argument(\n        "--verbose",\n    )\n    return parser'
    )
    assert ("cli_option", "added", "--verbose", None, None, None) in surface(
        analyse(repo.change("Add verbose", {"engine/cli.py": added}))
    )
    renamed = repo.change("Rename", {"engine/cli.py": added.replace('"--workers"', '"--num-workers"')})
    assert ("cli_option", "renamed", "--num-workers", "--workers", "--num-workers", None) in surface(analyse(renamed))
    removed = repo.change(
        "Drop verbose", {"engine/cli.py": added.replace('    parser.add_argument(\n        "--verbose",\n    )\n', "")}
    )
    assert ("cli_option", "removed", "--verbose", None, None, None) in surface(analyse(removed))


_CLAP = """use clap::Parser;

#[derive(Parser)]
pub struct Args {
    /// Minimum length of strings.
    #[arg(env, short = 'n', long = "min-len", default_value = "15")]
    pub min_strings_len: usize,

    /// The file to read; a long help text that says long does not make it an option.
    #[arg(env = "ENGINE_FILE", help = "a long path")]
    pub file: Option<String>,
}
"""


def test_options_clap_derives_from_struct_fields(repo: Repo) -> None:
    repo.change("Add the cli", {"src/args.rs": _CLAP})
    changed = repo.change("Longer strings", {"src/args.rs": _CLAP.replace('"15"', '"20"')})
    assert surface(analyse(changed)) == {("cli_option", "default_changed", "--min-len", "15", "20", None)}
    field = (
        '\n    /// Accent colour.\n    #[arg(\n        long,\n        env = "ENGINE_ACCENT",\n    )]\n'
        '    #[cfg(feature = "color")]\n    pub accent_color: Option<String>,\n}\n'
    )
    accent = _CLAP.replace("}\n", field)
    added = repo.change("Accent", {"src/args.rs": accent})
    assert {
        ("cli_option", "added", "--accent-color", None, None, None),
        ("env_var", "added", "ENGINE_ACCENT", None, None, None),
    } <= surface(analyse(added))
    positional = accent.replace('#[arg(env = "ENGINE_FILE", help = "a long path")]', '#[arg(help = "a long path")]')
    assert not [
        c for c in analyse(repo.change("Positional", {"src/args.rs": positional})).surface if c.kind == "cli_option"
    ]


_GO_FLAGS = """package cmd

func init() {
	rootCmd.Flags().StringVarP(&opts.output, "output", "o", "text", "output format")
	rootCmd.PersistentFlags().Bool("verbose", false, "more logs")
	port := flag.Int("port", 8080, "port to listen on, e.g. Flags().Bool(x)")
	_ = port
}
"""


def test_flags_a_go_program_declares_with_flag_or_pflag(repo: Repo) -> None:
    repo.change("Add the flags", {"cmd/root.go": _GO_FLAGS})
    json = _GO_FLAGS.replace('"text"', '"json"')
    changed = repo.change("JSON by default", {"cmd/root.go": json})
    assert surface(analyse(changed)) == {("cli_option", "default_changed", "--output", "text", "json", None)}
    quiet = json.replace('\trootCmd.PersistentFlags().Bool("verbose", false, "more logs")\n', "")
    dropped = repo.change("Drop verbose", {"cmd/root.go": quiet})
    assert surface(analyse(dropped)) == {("cli_option", "removed", "--verbose", None, None, None)}
    port = repo.change("Port 9090", {"cmd/root.go": quiet.replace("8080", "9090")})
    assert surface(analyse(port)) == {("cli_option", "default_changed", "--port", "8080", "9090", None)}
    named = (
        quiet.replace("8080", "9090")
        .replace('"output", "o"', 'outputFlag, "o"')
        .replace("func init", 'const outputFlag = "output"\n\nfunc init')
    )
    constant = repo.change("Name the output flag", {"cmd/root.go": named})
    assert not surface(analyse(constant))  # its name read from a constant, the flag is still declared
    read = 'package cmd\n\nfunc run() bool {\n\tv, _ := rootCmd.Flags().GetBool("verbose")\n\treturn v\n}\n'
    assert not surface(analyse(repo.change("Read verbose", {"cmd/run.go": read})))


def test_an_option_that_only_moves_between_files_is_no_change(repo: Repo) -> None:
    repo.change("Add the cli", {"engine/cli.py": _CLI})
    moved = repo.change("Move the parser", {"engine/parser.py": _CLI}, removed=("engine/cli.py",))
    assert not [c for c in analyse(moved).surface if c.kind == "cli_option"]


def test_environment_table_entry_and_its_default(repo: Repo) -> None:
    table = 'import os\n\nenvironment_variables = {\n    "ENGINE_CACHE": lambda: os.getenv("ENGINE_CACHE", "0"),\n}\n'
    repo.change("Add env table", {"engine/envs.py": table})
    flipped = repo.change("Cache by default", {"engine/envs.py": table.replace('"0")', '"1")')})
    assert surface(analyse(flipped)) == {("env_var", "default_changed", "ENGINE_CACHE", "0", "1", None)}
    grown = table.replace("}\n", '    "ENGINE_TRACE": lambda: bool(os.getenv("ENGINE_TRACE")),\n}\n')
    assert ("env_var", "added", "ENGINE_TRACE", None, None, None) in surface(
        analyse(repo.change("Trace", {"engine/envs.py": grown}))
    )


def test_a_variable_read_in_another_language(repo: Repo) -> None:
    rust = 'fn threads() -> usize {\n    std::env::var("ENGINE_THREADS").map(|v| v.parse().unwrap()).unwrap_or(1)\n}\n'
    commit = repo.change("Read threads from the environment", {"src/threads.rs": rust})
    assert ("env_var", "added", "ENGINE_THREADS", None, None, None) in surface(analyse(commit))


def test_config_field_default_change(repo: Repo) -> None:
    config = "from dataclasses import dataclass\n\n\n@dataclass\nclass SchedulerConfig:\n    max_num_seqs: int = 256\n"
    repo.change("Scheduler config", {"engine/config/scheduler.py": config})
    commit = repo.change("Fewer sequences", {"engine/config/scheduler.py": config.replace("256", "128")})
    assert surface(analyse(commit)) == {("config_key", "default_changed", "max_num_seqs", "256", "128", None)}


def test_the_parameters_of_a_method_in_a_config_module_are_no_config_keys(repo: Repo) -> None:
    method = (
        "    def _set_from_env(\n"
        "        self,\n"
        "        field_name: str,\n"
        "        to_bool: bool = True,\n"
        "        to_int: bool = False,  # parse as a number\n"
        "    ) -> None:\n"
        "        pass\n"
    )
    config = "from dataclasses import dataclass\n\n\n@dataclass\nclass ProfilerConfig:\n    delay: int = 0\n\n"
    repo.change("Profiler config", {"engine/config/profiler.py": config + method})
    dropped = repo.change("Drop the env fallback", {"engine/config/profiler.py": config})
    assert not surface(analyse(dropped))
    # A field of the class is still a key.
    grown = config.replace("    delay: int = 0\n", "    delay: int = 0\n    max_iterations: int = 10\n")
    assert surface(analyse(repo.change("Bound the profile", {"engine/config/profiler.py": grown}))) == {
        ("config_key", "added", "max_iterations", None, None, None)
    }


def test_http_routes_and_registered_architectures(repo: Repo) -> None:
    server = 'app = FastAPI()\n\n\n@app.get("/health")\ndef health():\n    return {}\n'
    registry = '_MODELS = {\n    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),\n}\n'
    repo.change("Server", {"engine/server.py": server, "engine/models/registry.py": registry})
    commit = repo.change(
        "Add a model and a route",
        {
            "engine/server.py": server + '\n\n@app.post("/v1/score")\ndef score():\n    return {}\n',
            "engine/models/registry.py": registry.replace("}\n", '    "GemmaForCausalLM": ("gemma", "Gemma"),\n}\n'),
        },
    )
    found = surface(analyse(commit))
    assert ("http_route", "added", "POST /v1/score", None, None, None) in found
    assert ("model_arch", "added", "GemmaForCausalLM", None, None, None) in found
    assert not any(name == "LlamaForCausalLM" or name == "GET /health" for _, _, name, *_ in found)


def test_dependency_floor_raised_in_non_python_manifests(repo: Repo) -> None:
    repo.change(
        "Manifests",
        {
            "package.json": '{\n  "dependencies": {\n    "express": "^4.18.0"\n  }\n}\n',
            "Cargo.toml": '[dependencies]\nserde = "1.0.100"\n',
        },
    )
    commit = repo.change(
        "Raise floors",
        {
            "package.json": '{\n  "dependencies": {\n    "express": "^5.1.0"\n  }\n}\n',
            "Cargo.toml": '[dependencies]\nserde = "1.0.200"\n',
        },
    )
    found = surface(analyse(commit))
    assert ("dependency_floor", "raised_floor", "express", "4.18.0", "5.1.0", None) in found
    assert ("dependency_floor", "raised_floor", "serde", "1.0.100", "1.0.200", None) in found


def test_deprecation_that_warns_then_raises_names_its_replacement(repo: Repo) -> None:
    warns = (
        "import warnings\n\n\ndef check(args):\n    if args.legacy:\n"
        '        warnings.warn("`--legacy` is deprecated, use `--mode` instead", DeprecationWarning)\n'
    )
    commit = repo.change("Deprecate legacy", {"engine/checks.py": warns})
    assert ("deprecation", "deprecated", "--legacy", None, None, "--mode") in surface(analyse(commit))
    raises = warns.replace("warnings.warn(", "raise ValueError(").replace(", DeprecationWarning)", ")")
    commit = repo.change("Legacy now fails", {"engine/checks.py": raises})
    assert ("deprecation", "now_raises", "--legacy", None, None, "--mode") in surface(analyse(commit))


def test_a_new_warning_beside_a_guard_that_raises_another_error_is_a_deprecation_not_one_that_raises(
    repo: Repo,
) -> None:
    guarded = (
        "import warnings\n\n\ndef marked_scope(kwargs):\n"
        '    if "scope" in kwargs and "loop_scope" in kwargs:\n'
        "        raise UsageError(_DUPLICATE_SCOPE)\n"
        '    return kwargs.get("loop_scope") or kwargs.get("scope", "function")\n'
    )
    repo.change("Add scopes", {"engine/markers.py": guarded})
    warns = (
        "import warnings\n\n"
        '_SCOPE_DEPRECATION = """\\\nThe "scope" argument has been deprecated. Use "loop_scope" instead.\n"""\n\n\n'
        "def marked_scope(kwargs):\n"
        '    if "scope" in kwargs:\n'
        '        if "loop_scope" in kwargs:\n'
        "            raise UsageError(_DUPLICATE_SCOPE)\n"
        "        warnings.warn(DeprecationWarning(_SCOPE_DEPRECATION))\n"
        '    return kwargs.get("loop_scope") or kwargs.get("scope", "function")\n'
    )
    result = analyse(repo.change("Deprecate the scope argument", {"engine/markers.py": warns}))
    assert ("deprecation", "deprecated", "scope", None, None, "loop_scope") in surface(result)
    assert not any(change.change.value == "now_raises" for change in result.surface)
    assert not result.flags.breaking


def test_a_warning_the_commit_keeps_while_editing_its_neighbours_neither_starts_nor_ends(repo: Repo) -> None:
    warns = (
        "import warnings\n\n\ndef configure(config):\n"
        '    scope = config.getini("default_fixture_scope")\n'
        "    if not scope:\n"
        "        warnings.warn(DeprecationWarning(_UNSET_SCOPE_DEPRECATION))\n"
        '    config.addinivalue_line("markers", "engine: run in the engine")\n'
    )
    repo.change("Warn when the scope is unset", {"engine/plugin.py": warns})
    validated = warns.replace(
        "    if not scope:\n",
        '    _validate(scope, "default_fixture_scope")\n    if not scope:\n',
    ).replace(
        "    config.addinivalue_line(",
        '\n    test_scope = config.getini("default_test_scope")\n'
        '    _validate(test_scope, "default_test_scope")\n    config.addinivalue_line(',
    )
    result = analyse(repo.change("Validate the default scopes", {"engine/plugin.py": validated}))
    assert not [change for change in result.surface if change.kind.value in ("deprecation", "removal")]
    assert not result.flags.breaking


def test_a_warning_the_title_calls_obsolete_ends_no_deprecation(repo: Repo) -> None:
    warns = (
        "import warnings\n\n\ndef prepare(func, names):\n"
        '    if "event_loop" in names:\n'
        "        warnings.warn(\n"
        '            DeprecationWarning(f"{func.__name__} requests the deprecated event_loop fixture.")\n'
        "        )\n"
        "    return func\n"
    )
    repo.change("Warn about event_loop", {"engine/fixtures.py": warns})
    quiet = "import warnings\n\n\ndef prepare(func, names):\n    return func\n"
    title = "Removed obsolete deprecation warning about event_loop being requested"
    result = analyse(repo.change(title, {"engine/fixtures.py": quiet}))
    assert not result.flags.breaking
    assert result.importance == Importance.low
    # The same warning removed without that word ends a transition period.
    repo.change("Warn again", {"engine/fixtures.py": warns})
    assert analyse(repo.change("Removed the event_loop warning", {"engine/fixtures.py": quiet})).flags.breaking


def test_public_functions_of_public_modules_only(repo: Repo) -> None:
    commit = repo.change(
        "Helpers",
        {"engine/api.py": "def generate(prompt):\n    return prompt\n", "engine/_impl.py": "def hidden():\n    pass\n"},
    )
    found = surface(analyse(commit))
    assert ("public_api", "added", "generate", None, None, None) in found
    assert not any(name == "hidden" for _, _, name, *_ in found)


def test_tests_declare_no_surface(repo: Repo) -> None:
    commit = repo.change("Test the cli", {"tests/test_cli.py": _CLI})
    assert analyse(commit).surface == []


# --------------------------------------------------------------------------- the surface as evidence

_SETTINGS = (
    'from dataclasses import dataclass\n\n\n@dataclass\nclass RetryConfig:\n    policy: str = "{policy}"\n{extra}'
)


def test_a_changed_default_of_a_config_key_is_a_high_user_facing_behaviour_change(repo: Repo) -> None:
    repo.change("Add retries", {"engine/config/retry.py": _SETTINGS.format(policy="again", extra="")})
    commit = repo.change("Tune retries", {"engine/config/retry.py": _SETTINGS.format(policy="give-up", extra="")})
    analysis = analyse(commit)
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.high)
    assert analysis.flags.user_facing
    assert "`policy`: again → give-up" in analysis.importance_reason


_RUST_CONFIG = """use serde::Deserialize;

#[derive(Deserialize)]
pub struct BranchConfig<'a> {
    pub symbol: &'a str,
{fields}    pub disabled: bool,
}

impl BranchConfig<'_> {
    pub fn shown(&self) -> bool {
        !self.disabled
    }
}
"""


def test_a_public_field_of_a_rust_configuration_struct_is_a_config_key(repo: Repo) -> None:
    repo.change("Add the branch module", {"src/configs/branch.rs": _RUST_CONFIG.replace("{fields}", "")})
    added = _RUST_CONFIG.replace("{fields}", "    pub ignore_bare_repo: bool,\n")
    analysis = analyse(repo.change("feat(branch): add ignore_bare_repo", {"src/configs/branch.rs": added}))
    assert surface(analysis) == {("config_key", "added", "ignore_bare_repo", None, None, None)}
    assert any("`ignore_bare_repo`" in bullet for bullet in analysis.summary)
    removed = analyse(
        repo.change(
            "refactor(branch): drop symbol", {"src/configs/branch.rs": added.replace("    pub symbol: &'a str,\n", "")}
        )
    )
    assert ("config_key", "removed", "symbol", None, None, None) in surface(removed)
    assert removed.flags.breaking


def test_a_config_key_added_beside_an_unchanged_default_is_no_default_change(repo: Repo) -> None:
    repo.change("Add retries", {"engine/config/retry.py": _SETTINGS.format(policy="again", extra="")})
    extra = "    attempts: int = 3\n"
    commit = repo.change("Tune retries", {"engine/config/retry.py": _SETTINGS.format(policy="again", extra=extra)})
    analysis = analyse(commit)
    assert analysis.importance != Importance.high
    assert "again" not in analysis.importance_reason


_PYPROJECT = '[project]\nname = "engine"\ndependencies = [\n    "requests>={version}",\n]\n'


def test_a_raised_dependency_floor_is_a_medium_build_change(repo: Repo) -> None:
    repo.change("Package", {"pyproject.toml": _PYPROJECT.format(version="2.28")})
    commit = repo.change("Tidy packaging", {"pyproject.toml": _PYPROJECT.format(version="3.1")})
    analysis = analyse(commit)
    assert (analysis.type, analysis.importance) == (ChangeType.build, Importance.medium)
    assert "`requests` 2.28 → 3.1" in analysis.importance_reason


@pytest.mark.parametrize(("old", "new"), [("2.28", "2.31"), ("0.5.1", "0.5.2"), ("1.4.0", "1.4.9")])
def test_a_floor_raised_by_a_compatible_step_is_a_build_change_that_breaks_nothing(
    repo: Repo, old: str, new: str
) -> None:
    repo.change("Package", {"pyproject.toml": _PYPROJECT.format(version=old)})
    analysis = analyse(repo.change("Update dependencies", {"pyproject.toml": _PYPROJECT.format(version=new)}))
    assert (analysis.type, analysis.importance, analysis.flags.breaking) == (ChangeType.build, Importance.low, False)


@pytest.mark.parametrize(("old", "new"), [("0.11", "0.12"), ("1.9", "2.0")])
def test_a_library_floor_raised_by_an_incompatible_step_binds_users_but_breaks_none(
    repo: Repo, old: str, new: str
) -> None:
    repo.change("Package", {"pyproject.toml": _PYPROJECT.format(version=old)})
    analysis = analyse(repo.change("Update dependencies", {"pyproject.toml": _PYPROJECT.format(version=new)}))
    assert (analysis.type, analysis.importance, analysis.flags.breaking) == (ChangeType.build, Importance.medium, False)


_STORAGE_LOADER = "".join(
    f"def load_shard_{i}(client, bucket, key):\n"
    f'    """Stream shard {i} of a checkpoint from object storage."""\n'
    f"    return client.get_object(bucket, key + '.{i}').read()\n\n\n"
    for i in range(16)
)


def test_a_library_floor_a_larger_source_change_needs_leaves_the_type_to_the_source(repo: Repo) -> None:
    repo.change("Package", {"pyproject.toml": _PYPROJECT.format(version="2.28")})
    needs = {"pyproject.toml": _PYPROJECT.format(version="2.31"), "engine/storage.py": _STORAGE_LOADER}
    analysis = analyse(repo.change("Load checkpoints from object storage", needs))
    assert analysis.type == ChangeType.feat
    # A title that names the library makes the bump the commit's subject, however much source it adapts.
    repo.change("Package", {"pyproject.toml": _PYPROJECT.format(version="2.28"), "engine/storage.py": ""})
    assert analyse(repo.change("Update to requests 2.31", needs)).type == ChangeType.build


_LANGUAGE_FLOOR = '[project]\nname = "engine"\nrequires-python = ">={version}"\n'
_RUST_FLOOR = '[package]\nname = "engine"\nrust-version = "{version}"\n'


@pytest.mark.parametrize(
    ("manifest", "text", "breaking", "importance"),
    [("pyproject.toml", _LANGUAGE_FLOOR, True, Importance.high), ("Cargo.toml", _RUST_FLOOR, False, Importance.medium)],
)
def test_a_raised_language_floor_breaks_users_unless_their_package_manager_resolves_around_it(
    repo: Repo, manifest: str, text: str, breaking: bool, importance: Importance
) -> None:
    repo.change("Package", {manifest: text.format(version="1.70")})
    analysis = analyse(repo.change("Tidy packaging", {manifest: text.format(version="1.80")}))
    assert (analysis.type, analysis.importance, analysis.flags.breaking) == (ChangeType.build, importance, breaking)


_PACKAGE_JSON = """{{
  "name": "engine",
  "dependencies": {{
    "router": "^2.1.0"
  }},
  "devDependencies": {{
    "mocha": "^{version}"
  }}
}}
"""
_CARGO = '[package]\nname = "engine"\n\n[dependencies]\nserde = "1.0"\n\n[dev-dependencies]\ntokio = "{version}"\n'


@pytest.mark.parametrize(
    ("manifest", "text"),
    [("package.json", _PACKAGE_JSON), ("Cargo.toml", _CARGO), ("requirements-ci.txt", "pytest=={version}\n")],
)
def test_a_development_dependency_or_an_exact_pin_raised_is_no_floor_users_meet(
    repo: Repo, manifest: str, text: str
) -> None:
    repo.change("Package", {manifest: text.format(version="10.2.0")})
    analysis = analyse(repo.change("Tidy packaging", {manifest: text.format(version="11.0.0")}))
    assert (analysis.type, analysis.importance, analysis.flags.breaking) == (ChangeType.build, Importance.low, False)


def test_a_dependency_floor_raised_beside_a_development_section_is_still_read(repo: Repo) -> None:
    before = _PACKAGE_JSON.format(version="10.2.0")
    repo.change("Package", {"package.json": before})
    analysis = analyse(repo.change("Tidy packaging", {"package.json": before.replace("^2.1.0", "^3.0.0")}))
    assert ("dependency_floor", "raised_floor", "router", "2.1.0", "3.0.0", None) in surface(analysis)


_CARGO_LIBRARY = '[package]\nname = "engine"\n\n[dependencies]\ngix = "{version}"\n'


@pytest.mark.parametrize(
    ("manifest", "text", "importance"),
    [
        ("pyproject.toml", _PYPROJECT, Importance.medium),
        ("Cargo.toml", _CARGO_LIBRARY, Importance.low),
        (
            "package.json",
            '{{\n  "name": "engine",\n  "dependencies": {{\n    "gix": "^{version}"\n  }}\n}}\n',
            Importance.low,
        ),
    ],
)
def test_an_incompatible_library_step_binds_users_only_where_one_version_is_installed(
    repo: Repo, manifest: str, text: str, importance: Importance
) -> None:
    """pip installs one version of a library for everything; Cargo and npm install each its own."""
    repo.change("Package", {manifest: text.format(version="0.73.0")})
    analysis = analyse(repo.change("Update dependencies", {manifest: text.format(version="0.74.0")}))
    assert (analysis.type, analysis.importance, analysis.flags.breaking) == (ChangeType.build, importance, False)


def test_a_commit_scoped_to_development_dependencies_raises_no_floor(repo: Repo) -> None:
    repo.change("Package", {"pyproject.toml": _PYPROJECT.format(version="2.28")})
    commit = repo.change("build(deps-dev): bump requests", {"pyproject.toml": _PYPROJECT.format(version="2.31")})
    assert analyse(commit).flags.breaking is False


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("const methods = require('methods')\n", "const methods = http.METHODS\n"),
        ("import methods from 'methods'\n", "const methods = http.METHODS\n"),
    ],
)
def test_a_dependency_dropped_with_its_last_javascript_import_takes_nothing_from_users(
    repo: Repo, before: str, after: str
) -> None:
    manifest = '{\n  "dependencies": {\n    "methods": "~1.1.2",\n    "qs": "6.14.0"\n  }\n}\n'
    repo.change("Package", {"package.json": manifest, "lib/app.js": before})
    dropped = manifest.replace('    "methods": "~1.1.2",\n', "")
    analysis = analyse(repo.change("Use the standard library", {"package.json": dropped, "lib/app.js": after}))
    assert analysis.flags.breaking is False


@pytest.mark.parametrize(
    ("manifest", "text"),
    [
        ("pyproject.toml", '[project]\nname = "engine"\nrequires-python = ">={version}"\n'),
        ("setup.py", 'setup(\n    name="engine",\n    python_requires=">={version}",\n)\n'),
    ],
)
def test_a_raised_python_floor_is_a_breaking_build_change(repo: Repo, manifest: str, text: str) -> None:
    repo.change("Package", {manifest: text.format(version="3.8")})
    analysis = analyse(repo.change("Drop Python 3.8 support", {manifest: text.format(version="3.9")}))
    assert (analysis.type, analysis.flags.breaking) == (ChangeType.build, True)
    assert [(c.name, c.old, c.new) for c in analysis.surface] == [(c, "3.8", "3.9") for c in _PYTHON_FLOOR[manifest]]


_PYTHON_FLOOR = {"pyproject.toml": ["requires-python"], "setup.py": ["python_requires"]}


_INIT = '"""The package."""\nfrom ._client import Client\n\n__all__ = [\n    "Client",\n{extra}]\n'


def test_a_name_the_package_root_newly_exports_is_a_high_feature(repo: Repo) -> None:
    repo.change("Package", {"engine/__init__.py": _INIT.format(extra=""), "engine/_auth.py": "class Auth: ...\n"})
    grown = {
        "engine/__init__.py": _INIT.format(extra='    "NetRCAuth",\n'),
        "engine/_auth.py": "class NetRCAuth: ...\n",
    }
    analysis = analyse(repo.change("Read credentials from netrc", grown))
    assert (analysis.type, analysis.importance, analysis.flags.user_facing) == (ChangeType.feat, Importance.high, True)
    assert "`NetRCAuth`" in analysis.importance_reason


def test_a_name_the_package_root_stops_exporting_is_breaking(repo: Repo) -> None:
    repo.change("Package", {"engine/__init__.py": _INIT.format(extra='    "NetRCAuth",\n')})
    analysis = analyse(repo.change("Tidy the package", {"engine/__init__.py": _INIT.format(extra="")}))
    assert analysis.flags.breaking and analysis.importance in (Importance.medium, Importance.high)


def test_a_new_definition_in_a_submodule_is_not_a_new_public_api(repo: Repo) -> None:
    repo.change("Package", {"engine/models/llama.py": "class Llama: ...\n"})
    grown = {"engine/models/llama.py": "class Llama: ...\n\n\nclass LlamaAttention: ...\n"}
    assert analyse(repo.change("Tidy models", grown)).importance != Importance.high


def test_a_lowered_dependency_floor_raises_nothing(repo: Repo) -> None:
    repo.change("Package", {"pyproject.toml": _PYPROJECT.format(version="2.31")})
    commit = repo.change("Tidy packaging", {"pyproject.toml": _PYPROJECT.format(version="2.28")})
    assert analyse(commit).importance == Importance.low


_REGISTRY = '_MODELS = {{\n    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),\n{extra}}}\n'


def test_a_registered_model_architecture_is_a_user_facing_feature(repo: Repo) -> None:
    repo.change("Models", {"engine/models/registry.py": _REGISTRY.format(extra="")})
    extra = '    "MistralForCausalLM": ("mistral", "MistralForCausalLM"),\n'
    commit = repo.change("Tidy models", {"engine/models/registry.py": _REGISTRY.format(extra=extra)})
    analysis = analyse(commit)
    assert analysis.type == ChangeType.feat
    assert analysis.flags.user_facing


_SUPPORTED = "\n_PREVIOUSLY_SUPPORTED = {{\n{gone}}}\n"


def test_an_architecture_the_registry_drops_is_a_breaking_removal(repo: Repo) -> None:
    extra = '    "MotifForCausalLM": ("motif", "MotifForCausalLM"),\n'
    repo.change("Models", {"engine/models/registry.py": _REGISTRY.format(extra=extra) + _SUPPORTED.format(gone="")})
    # The release that last supported it is recorded under its name: a record, not a registration.
    record = '    "MotifForCausalLM": "0.10.2",\n'
    dropped = _REGISTRY.format(extra="") + _SUPPORTED.format(gone=record)
    analysis = analyse(repo.change("Tidy models", {"engine/models/registry.py": dropped}))
    assert ("model_arch", "removed", "MotifForCausalLM", None, None, None) in surface(analysis)
    assert (analysis.type, analysis.flags.breaking) == (ChangeType.feat, True)
    assert analysis.importance != Importance.low


def test_an_architecture_renamed_or_replaced_in_the_registry_breaks_nothing(repo: Repo) -> None:
    extra = '    "MotifForCausalLM": ("motif", "MotifForCausalLM"),\n'
    repo.change("Models", {"engine/models/registry.py": _REGISTRY.format(extra=extra)})
    renamed = '    "Motif1ForCausalLM": ("motif", "MotifForCausalLM"),\n'
    analysis = analyse(repo.change("Follow upstream", {"engine/models/registry.py": _REGISTRY.format(extra=renamed)}))
    assert ("model_arch", "renamed", "Motif1ForCausalLM", "MotifForCausalLM", "Motif1ForCausalLM", None) in surface(
        analysis
    )
    assert not analysis.flags.breaking
    # Removed in one place while others are registered elsewhere: the registry is reworked.
    reworked = {
        "engine/models/registry.py": _REGISTRY.format(extra=""),
        "engine/models/extra.py": '_EXTRA = {\n    "Motif2ForCausalLM": ("motif", "Motif2ForCausalLM"),\n}\n',
    }
    assert not analyse(repo.change("Rework", reworked)).flags.breaking


def test_a_registry_key_that_names_no_architecture_is_no_feature(repo: Repo) -> None:
    repo.change("Models", {"engine/models/registry.py": _REGISTRY.format(extra="")})
    extra = '    "mistral_alias": ("mistral", "LlamaForCausalLM"),\n'
    commit = repo.change("Tidy models", {"engine/models/registry.py": _REGISTRY.format(extra=extra)})
    assert analyse(commit).type != ChangeType.feat


# --------------------------------------------------------------------------- breaking changes read from the surface


def test_a_changed_default_and_a_raised_floor_are_breaking(repo: Repo) -> None:
    repo.change("Add retries", {"engine/config/retry.py": _SETTINGS.format(policy="again", extra="")})
    flipped = analyse(repo.change("Tune", {"engine/config/retry.py": _SETTINGS.format(policy="fail", extra="")}))
    assert flipped.flags.breaking
    repo.change("Package", {"pyproject.toml": _LANGUAGE_FLOOR.format(version="3.9")})
    raised = analyse(repo.change("Tidy packaging", {"pyproject.toml": _LANGUAGE_FLOOR.format(version="3.10")}))
    # The language's floor leaves every older installation behind, whatever the title says: high.
    assert (raised.flags.breaking, raised.importance) == (True, Importance.high)


_METRICS = """from prometheus_client import Counter, Gauge


class Metrics:
    def __init__(self, labels):
        self.requests = Counter("engine_requests_total", "Requests served.", labels)
        self.queue = self._gauge_cls(
            name="engine:queue_depth",
            documentation="Requests waiting.",
        )
"""


def test_a_removed_metric_is_a_breaking_feature_change(repo: Repo) -> None:
    repo.change("Metrics", {"engine/metrics.py": _METRICS})
    trimmed = _METRICS.replace(
        '        self.queue = self._gauge_cls(\n            name="engine:queue_depth",\n'
        '            documentation="Requests waiting.",\n        )\n',
        "",
    )
    analysis = analyse(repo.change("Tidy metrics", {"engine/metrics.py": trimmed}))
    assert ("metric", "removed", "engine:queue_depth", None, None, None) in surface(analysis)
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.medium)
    assert analysis.flags.breaking
    assert "engine_requests_total" not in {c.name for c in analysis.surface}


def test_a_counter_of_characters_is_no_metric(repo: Repo) -> None:
    commit = repo.change("Count", {"engine/stats.py": 'from collections import Counter\n\nLETTERS = Counter("abc")\n'})
    assert not [c for c in analyse(commit).surface if c.kind == "metric"]


_SHIM = """import warnings


def __getattr__(name):
    if name == "load":
        from engine.io import load

        warnings.warn(
            "`engine.compat.load` "
            "has been moved to `engine.io.load`. "
            "The old name will be removed in a future version.",
            DeprecationWarning,
        )
        return load
    raise AttributeError(name)
"""


def test_a_refactor_that_leaves_a_deprecated_alias_at_the_old_home_is_still_a_refactor(repo: Repo) -> None:
    repo.change("Add io", {"engine/compat.py": "def load(path):\n    return path\n"})
    moved = {"engine/compat.py": _SHIM, "engine/io.py": "def load(path):\n    return path\n"}
    analysis = analyse(repo.change("Refactor the loading interface", moved))
    assert ("deprecation", "deprecated", "engine.compat.load", None, None, "engine.io.load") in surface(analysis)
    assert analysis.type == ChangeType.refactor
    assert analysis.importance == Importance.medium  # users still have a transition to make


def test_a_deprecated_shim_removed_ends_the_transition(repo: Repo) -> None:
    repo.change("Move load", {"engine/compat.py": _SHIM, "engine/io.py": "def load(path):\n    return path\n"})
    analysis = analyse(repo.change("Tidy compat", {}, removed=("engine/compat.py",)))
    assert ("removal", "removed", "engine.compat.load", None, None, "engine.io.load") in surface(analysis)
    assert analysis.type == ChangeType.feat
    assert analysis.flags.breaking


_HELPER = """from .utils import deprecate


class Pipeline:
    def enable_vae_slicing(self):
        message = "`enable_vae_slicing()` is deprecated and will be removed. Please use `pipe.vae.enable_slicing()`."
        deprecate(
            "enable_vae_slicing",
            "1.0.0",
            message,
        )
        self.vae.enable_slicing()

    def __call__(self, prompt):
        return self.run(prompt)
"""


def test_a_method_that_warns_through_a_deprecation_helper_is_removed_at_the_end_of_its_transition(
    repo: Repo,
) -> None:
    repo.change("Pipelines", {"engine/pipeline.py": _HELPER})
    without = _HELPER[: _HELPER.index("    def enable_vae_slicing")] + _HELPER[_HELPER.index("    def __call__") :]
    analysis = analyse(repo.change("post release", {"engine/pipeline.py": without}))
    assert ("removal", "removed", "enable_vae_slicing()", None, None, "pipe.vae.enable_slicing") in surface(analysis)
    assert (analysis.type, analysis.flags.breaking) == (ChangeType.feat, True)


_REQUIREMENTS = "numpy>=1.26\nray[cgraph]>=2.48.0\n"


def test_a_dependency_dropped_from_the_install_while_still_imported_breaks(repo: Repo) -> None:
    repo.change("Requirements", {"requirements/runtime.txt": _REQUIREMENTS})
    analysis = analyse(repo.change("Slim the install", {"requirements/runtime.txt": "numpy>=1.26\n"}))
    assert ("dependency", "removed", "ray", None, None, None) in surface(analysis)
    assert (analysis.type, analysis.importance) == (ChangeType.build, Importance.high)
    assert analysis.flags.breaking


def test_a_dependency_dropped_with_the_code_that_imported_it_is_no_break(repo: Repo) -> None:
    code = "import ray\n\n\ndef start():\n    return ray.init()\n"
    repo.change("Requirements", {"requirements/runtime.txt": _REQUIREMENTS, "engine/cluster.py": code})
    rewritten = "def start():\n    return None\n"
    commit = repo.change("Drop ray", {"requirements/runtime.txt": "numpy>=1.26\n", "engine/cluster.py": rewritten})
    analysis = analyse(commit)
    assert not [c for c in analysis.surface if c.kind == "dependency"]
    assert not analysis.flags.breaking


def test_a_requirement_moved_between_manifests_is_no_change(repo: Repo) -> None:
    repo.change("Requirements", {"requirements/runtime.txt": _REQUIREMENTS, "requirements/extra.txt": "\n"})
    commit = repo.change(
        "Optional ray",
        {"requirements/runtime.txt": "numpy>=1.26\n", "requirements/extra.txt": "ray[cgraph]>=2.48.0\n"},
    )
    assert not [c for c in analyse(commit).surface if c.kind == "dependency"]


_DEV_PINS = "-e .[full]\n\n# Testing\npytest==7.4.0\ntrio=={trio}\n{anyio}"


def test_an_exact_pin_dropped_from_a_requirements_file_is_no_dependency_dropped(repo: Repo) -> None:
    """A development requirements file locks one environment: a pin it stops listing leaves users' install alone."""
    package = '[project]\nname = "engine"\ndependencies = ["anyio>=3.6.2,<5"]\n'
    code = "import anyio\n\n\ndef run(main):\n    return anyio.run(main)\n"
    files = {"pyproject.toml": package, "engine/loop.py": code}
    repo.change("Package", {**files, "requirements.txt": _DEV_PINS.format(trio="0.22.2", anyio="anyio==4.0.0\n")})
    bumped = {"requirements.txt": _DEV_PINS.format(trio="0.23.2", anyio="")}
    commit = repo.change("Bump trio from 0.22.2 to 0.23.2 (#2395)", bumped)
    analysis = analyse(commit)
    assert not [c for c in analysis.surface if c.kind == "dependency"]
    assert (analysis.type, analysis.importance, analysis.flags.breaking) == (ChangeType.build, Importance.low, False)


def test_a_floor_raised_in_a_cargo_inline_table_is_read(repo: Repo) -> None:
    manifest = '[package]\nname = "engine"\n\n[dependencies]\nnix = {{ default-features = false, version = "{v}" }}\n'
    repo.change("Package", {"Cargo.toml": manifest.format(v="0.29.0")})
    analysis = analyse(repo.change("Update dependencies", {"Cargo.toml": manifest.format(v="0.30.1")}))
    assert ("dependency_floor", "raised_floor", "nix", "0.29.0", "0.30.1", None) in surface(analysis)


def test_a_dependency_made_optional_in_an_inline_table_is_not_dropped(repo: Repo) -> None:
    code = "use tracer::trace;\n\npub fn run() {\n    trace();\n}\n"
    repo.change("Package", {"Cargo.toml": '[dependencies]\ntracer = "0.3.6"\n', "src/lib.rs": code})
    optional = '[features]\ndefault = ["tracing"]\ntracing = ["tracer"]\n\n[dependencies]\n'
    commit = repo.change(
        "Make tracing a feature", {"Cargo.toml": optional + 'tracer = { version = "0.3.7", optional = true }\n'}
    )
    analysis = analyse(commit)
    assert not [c for c in analysis.surface if c.kind == "dependency"]
    assert not analysis.flags.breaking


_FEATURES = '[package]\nname = "engine"\n\n[features]\ndefault = [{defaults}]\ntracing = []\nmultipart = []\n'


def test_a_feature_dropped_from_the_cargo_defaults_is_a_breaking_build_change(repo: Repo) -> None:
    repo.change("Package", {"Cargo.toml": _FEATURES.format(defaults='\n    "tracing",\n    "multipart",\n')})
    analysis = analyse(repo.change("Slimmer builds", {"Cargo.toml": _FEATURES.format(defaults='"tracing"')}))
    assert ("default_feature", "removed", "multipart", None, None, None) in surface(analysis)
    assert (analysis.type, analysis.importance) == (ChangeType.build, Importance.medium)
    assert analysis.flags.breaking
    assert any("enable that feature explicitly" in r.text for r in analysis.recommendations)


def test_a_feature_added_to_the_cargo_defaults_or_the_list_reformatted_breaks_nothing(repo: Repo) -> None:
    repo.change("Package", {"Cargo.toml": _FEATURES.format(defaults='"tracing"')})
    added = analyse(repo.change("More by default", {"Cargo.toml": _FEATURES.format(defaults='"tracing", "multipart"')}))
    assert ("default_feature", "added", "multipart", None, None, None) in surface(added)
    assert not added.flags.breaking
    one_a_line = _FEATURES.format(defaults='\n    "tracing",\n    "multipart",\n')
    reformatted = repo.change("Format", {"Cargo.toml": one_a_line})
    assert not [c for c in analyse(reformatted).surface if c.kind == "default_feature"]


def test_a_new_platform_is_a_high_feature(repo: Repo) -> None:
    base = "class Platform:\n    name = 'base'\n"
    repo.change("Platforms", {"engine/platforms/interface.py": base})
    platform = (
        "from engine.platforms.interface import Platform\n\n\nclass RiscvPlatform(Platform):\n    name = 'riscv'\n"
    )
    analysis = analyse(repo.change("In-tree support", {"engine/platforms/riscv.py": platform}))
    assert ("platform", "added", "RiscvPlatform", None, None, None) in surface(analysis)
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.high)


# --------------------------------------------------------------------------- the diff's shape when nothing names a type


def test_a_small_edit_of_existing_code_is_a_medium_fix(repo: Repo) -> None:
    code = "def offset(k, start):\n    limit = start + k  # clamp?\n    return limit\n"
    repo.change("Offsets", {"engine/offsets.py": code})
    commit = repo.change(
        "small adjustment to offset", {"engine/offsets.py": code.replace("start + k", "min(k, start)")}
    )
    analysis = analyse(commit)
    assert (analysis.type, analysis.importance) == (ChangeType.fix, Importance.medium)
    assert "small edit to existing code in `engine/offsets.py`" in analysis.importance_reason


def _render_steps(owner: str) -> str:
    """Twelve prompt-rendering steps as methods of ``owner``: more lines than a small edit."""
    steps = "".join(
        f"    def _render_step_{i}(self, messages):\n        return [m.strip() + '{i}' for m in messages]\n\n"
        for i in range(12)
    )
    return f"class {owner}:\n{steps}"


def _delegate_rendering(repo: Repo, message: str, beside: dict[str, str]) -> Analysis:
    """Move the rendering steps out of an existing serving module into an existing render module."""
    serve = "    def serve(self, messages):\n        return self._render_step_0(messages)\n"
    serving = _render_steps("Serving") + serve
    repo.change("Serving", {"engine/serving.py": serving, "engine/render.py": "class Render:\n    pass\n"})
    moved = {
        "engine/serving.py": "class Serving:\n    def __init__(self, render):\n        self.render = render\n\n"
        "    def serve(self, messages):\n        return self.render._render_step_0(messages)\n",
        "engine/render.py": _render_steps("Render"),
    }
    return analyse(repo.change(message, {**moved, **beside}))


def test_a_larger_rewrite_of_existing_code_is_a_low_refactor(repo: Repo) -> None:
    analysis = _delegate_rendering(repo, "Complete the render delegation", {})
    # Code moved from one existing module into another, no name the code grows by: a restructuring.
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)
    assert "rewrites existing code (mainly `engine/serving.py`)" in analysis.importance_reason


def test_a_rewrite_beside_a_tooling_change_follows_the_tool(repo: Repo) -> None:
    tooling = {".pre-commit-config.yaml": "repos:\n  - repo: https://github.com/astral-sh/ruff-pre-commit\n"}
    analysis = _delegate_rendering(repo, "Complete the render delegation", tooling)
    # The code is rewritten along with the project's tooling: no restructuring of its own.
    assert analysis.type != ChangeType.refactor
    assert "rewrites existing code" not in analysis.importance_reason


def test_a_comment_only_edit_has_no_shape(repo: Repo) -> None:
    code = "def offset(k, start):\n    # the start\n    return start + k\n"
    repo.change("Offsets", {"engine/offsets.py": code})
    commit = repo.change("wording", {"engine/offsets.py": code.replace("# the start", "# where it starts")})
    assert analyse(commit).type != ChangeType.fix


def test_the_rules_a_commit_fires_are_named(repo: Repo) -> None:
    repo.change("Package", {"pyproject.toml": _PYPROJECT.format(version="2.28")})
    commit = repo.change("[Build] Fix the wheel", {"pyproject.toml": _PYPROJECT.format(version="3.0")})
    analyzer = HeuristicAnalyzer(language="en")
    fired = analyzer.read(heuristic_input(commit, analyzer)).evidence.fired
    assert {"tags.build", "patterns.fix_verb", "surface.raised_floor", "paths.build"} <= fired
    assert not any(rule.startswith("surface.removed") for rule in fired)


def test_a_new_route_is_a_user_facing_feature_of_at_least_medium_importance(repo: Repo) -> None:
    server = 'app = FastAPI()\n\n\n@app.get("/health")\ndef health():\n    return {}\n'
    repo.change("Server", {"engine/server.py": server})
    grown = server + '\n\n@app.post("/v1/score")\ndef score(request):\n    return rank(request)\n'
    analysis = analyse(repo.change("score requests", {"engine/server.py": grown}))
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.medium)
    assert analysis.flags.user_facing
