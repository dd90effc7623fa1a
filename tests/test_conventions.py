"""A repository's conventions teach the heuristic analyzer its own tags and paths, from configuration."""

from __future__ import annotations

import asyncio
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from message_parts import parsed_parts
from registered import analyzer_plugin

from repodaily.analyzers import Analyzer
from repodaily.analyzers.heuristic import HeuristicAnalyzer, RuleSet, available_conventions, load_conventions
from repodaily.analyzers.heuristic.conventions import preset_for
from repodaily.config import Config, load_config
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.errors import AnalysisError, ConfigError
from repodaily.models import Analysis, AnalysisInput, AnalysisStatus, Coverage, DailyReport, FileCategory, Importance
from repodaily.pipeline import Pipeline
from repodaily.store import Store

DAY = date(2026, 3, 2)
NOON = datetime(2026, 3, 2, 12, 0, tzinfo=timezone(timedelta(hours=8)))
CORE_CONVENTIONS = '[paths.core]\nglobs = ["csrc/**"]\n'


@analyzer_plugin("always-failing")
class _AlwaysFailing(Analyzer):
    """Stands for a provider that is down, so every commit takes the fallback."""

    name = "always-failing"

    def __init__(self, **_settings: object) -> None:
        pass

    @property
    def fingerprint(self) -> str:
        return "always-failing/1"

    async def analyze(self, item: AnalysisInput) -> Analysis:
        raise AnalysisError("provider unavailable")


@pytest.fixture
def kernel_repo(tmp_path: Path) -> Path:
    """A repository whose one commit restructures 600 lines of C++ kernels, with no tag to say so."""
    builder = RepoBuilder(tmp_path / "engine")
    builder.commit("Initial import", when=NOON - timedelta(days=3), files={"csrc/attention.cu": "// v1\n"})
    kernel = "".join(f"__device__ float op{i}(float x) {{ return x * {i}; }}\n" for i in range(600))
    builder.commit("Restructure the attention kernels", when=NOON, files={"csrc/attention.cu": kernel})
    return builder.path


def _config(
    tmp_path: Path, repo: Path, conventions_line: str = "", analyzer: str = "heuristic", name: str = "acme/engine"
) -> Config:
    path = tmp_path / "repodaily.toml"
    path.write_text(
        f'cache_dir = "{tmp_path / "cache"}"\n'
        f'[analyzer]\nname = "{analyzer}"\n'
        f'[[repos]]\nname = "{name}"\npath = "{repo}"\n{conventions_line}\n',
        encoding="utf-8",
    )
    return load_config(path, environ={})


def _report(config: Config) -> DailyReport:
    with Store(config.cache_path) as store:
        (report,) = asyncio.run(Pipeline(config, store).reports_for(config.repos[0], [DAY]))
    return report


def _analysis(report: DailyReport) -> Analysis:
    (commit,) = report.commits
    return commit.analysis


# --------------------------------------------------------------------------- the three ways to name conventions


def test_shipped_preset_is_found_by_name() -> None:
    assert "vllm" in available_conventions()
    table = load_conventions("vllm")
    assert "csrc/**" in table["paths"]["core"]["globs"]


def test_preset_teaches_the_repositorys_own_tags() -> None:
    subject = "[Spec Decode] Fix crash when the draft model is empty"
    item = AnalysisInput.model_validate(
        {
            "repo": "vllm-project/vllm",
            "sha": "a" * 40,
            **parsed_parts(subject),
            "author_name": "Ada",
            "committed_at": NOON,
            "parents": ["b" * 40],
            "total_additions": 4,
            "total_deletions": 1,
            "receipt": {"budget_tokens": 6000, "tokens_sent": 0},
            "files": [
                {
                    "path": "vllm/v1/spec_decode/eagle.py",
                    "status": "modified",
                    "category": "source",
                    "additions": 4,
                    "deletions": 1,
                    "coverage": "full",
                }
            ],
            "parts": [[]],
        }
    )
    plain = HeuristicAnalyzer(language="en").analyze_sync(item)
    taught = HeuristicAnalyzer(language="en", conventions=load_conventions("vllm")).analyze_sync(item)
    # A crash fix in common code is high; one confined to speculative decoding is medium.
    assert (plain.importance, taught.importance) == (Importance.high, Importance.medium)
    assert "Spec Decode" in taught.importance_reason


def test_file_path_relative_to_the_working_directory(tmp_path: Path) -> None:
    (tmp_path / "conventions").mkdir()
    (tmp_path / "conventions" / "engine.toml").write_text(CORE_CONVENTIONS, encoding="utf-8")
    assert load_conventions("conventions/engine.toml") == {"paths": {"core": {"globs": ["csrc/**"]}}}
    assert load_conventions(str(tmp_path / "conventions" / "engine.toml"))["paths"]["core"]["globs"] == ["csrc/**"]


def test_inline_table_in_the_config_file(tmp_path: Path, kernel_repo: Path) -> None:
    config = _config(tmp_path, kernel_repo, 'conventions = { paths = { core = { globs = ["csrc/**"] } } }')
    assert config.repos[0].conventions == {"paths": {"core": {"globs": ["csrc/**"]}}}
    assert _analysis(_report(config)).importance == Importance.medium


# --------------------------------------------------------------------------- mistakes are config errors that say where


def test_unknown_preset_is_a_config_error_naming_it(tmp_path: Path, kernel_repo: Path) -> None:
    with pytest.raises(ConfigError, match=r"repos\.0\.conventions.*unknown conventions preset 'vlm'.*vllm"):
        _config(tmp_path, kernel_repo, 'conventions = "vlm"')


def test_missing_conventions_file_is_a_config_error_naming_it(tmp_path: Path, kernel_repo: Path) -> None:
    with pytest.raises(ConfigError, match=r"conventions file conventions/nope\.toml: file not found"):
        _config(tmp_path, kernel_repo, 'conventions = "conventions/nope.toml"')


def test_unknown_key_in_a_conventions_file_names_the_file_and_the_key(tmp_path: Path, kernel_repo: Path) -> None:
    (tmp_path / "engine.toml").write_text('[tags.wasm]\nnames = ["wasm"]\ncolour = "red"\n', encoding="utf-8")
    where = r"repodaily\.toml: repos\.0\.conventions.*engine\.toml: tags\.wasm\.colour: unknown key"
    with pytest.raises(ConfigError, match=where):
        _config(tmp_path, kernel_repo, f'conventions = "{tmp_path / "engine.toml"}"')


def test_unknown_key_in_an_inline_table_names_it() -> None:
    with pytest.raises(ConfigError, match=r"inline conventions: paths\.core\.glob: unknown key"):
        load_conventions({"paths": {"core": {"glob": ["csrc/**"]}}})


def test_bad_toml_in_a_conventions_file_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "broken.toml").write_text("[paths.core\n", encoding="utf-8")
    with pytest.raises(ConfigError, match=r"broken\.toml: not valid TOML"):
        load_conventions("broken.toml")


# --------------------------------------------------------------------------- the verdict, the fingerprint, the fallback


def test_core_path_convention_changes_the_verdict_on_a_real_commit(tmp_path: Path, kernel_repo: Path) -> None:
    default = _analysis(_report(_config(tmp_path, kernel_repo)))
    taught = _analysis(_report(_config(tmp_path, kernel_repo, 'conventions = "vllm"')))
    assert (default.type.value, default.importance) == ("refactor", Importance.low)
    assert (taught.type.value, taught.importance) == ("refactor", Importance.medium)
    assert "csrc/attention.cu" in taught.importance_reason


def test_fingerprint_differs_with_and_without_conventions(tmp_path: Path, kernel_repo: Path) -> None:
    default = _report(_config(tmp_path, kernel_repo))
    taught = _report(_config(tmp_path, kernel_repo, 'conventions = "vllm"'))
    assert default.run.analyzer != taught.run.analyzer
    assert _analysis(taught).analyzer == taught.run.analyzer
    # Each fingerprint has its own cache entry: the second report analysed afresh.
    assert (default.run.cached, taught.run.cached) == (0, 0)
    assert _report(_config(tmp_path, kernel_repo, 'conventions = "vllm"')).run.cached == 1


def test_a_preset_applies_to_the_repository_it_declares(tmp_path: Path, kernel_repo: Path) -> None:
    assert preset_for("vllm-project/vllm") == preset_for("vLLM-Project/vLLM") == "vllm"
    assert preset_for("acme/engine") is None
    declared = _analysis(_report(_config(tmp_path, kernel_repo, name="vllm-project/vllm")))
    assert declared.importance == Importance.medium  # the preset's core paths apply unasked
    assert "csrc/attention.cu" in declared.importance_reason


def test_other_conventions_or_an_empty_table_replace_the_declared_preset(tmp_path: Path, kernel_repo: Path) -> None:
    none = _analysis(_report(_config(tmp_path, kernel_repo, "conventions = {}", name="vllm-project/vllm")))
    assert none.importance == Importance.low
    own = 'conventions = { paths = { core = { globs = ["docs/**"] } } }'
    other = _analysis(_report(_config(tmp_path, kernel_repo, own, name="vllm-project/vllm")))
    assert other.importance == Importance.low


def test_a_conventions_file_may_declare_its_repositories(tmp_path: Path) -> None:
    path = tmp_path / "mine.toml"
    path.write_text('repositories = ["acme/engine"]\n' + CORE_CONVENTIONS, encoding="utf-8")
    assert "repositories" not in load_conventions(str(path))
    path.write_text('repositories = "acme/engine"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match="repositories: expected a list"):
        load_conventions(str(path))


def test_fingerprint_follows_the_merged_rules() -> None:
    default = HeuristicAnalyzer(language="en")
    taught = HeuristicAnalyzer(language="en", conventions=load_conventions("vllm"))
    again = HeuristicAnalyzer(language="en", rules=RuleSet.load(load_conventions("vllm")))
    assert default.fingerprint != taught.fingerprint == again.fingerprint


def test_fallback_analyzer_uses_the_repositorys_conventions(tmp_path: Path, kernel_repo: Path) -> None:
    inline = 'conventions = { paths = { core = { globs = ["csrc/**"] } } }'
    analysis = _analysis(_report(_config(tmp_path, kernel_repo, inline, analyzer="always-failing")))
    assert analysis.status == AnalysisStatus.fallback
    assert analysis.importance == Importance.medium


def test_path_conventions_also_decide_what_the_context_stage_reads(tmp_path: Path, kernel_repo: Path) -> None:
    inline = 'conventions = { paths = { vendored = { globs = ["csrc/"], category = "generated", ignorable = true } } }'
    (receipt,) = _analysis(_report(_config(tmp_path, kernel_repo, inline))).coverage.files
    assert (receipt.category, receipt.coverage) == (FileCategory.generated, Coverage.stats_only)
    # A fallback's receipt is of what the fallback read: its own plan, by the conventions it took up.
    (receipt,) = _analysis(_report(_config(tmp_path, kernel_repo, inline, analyzer="always-failing"))).coverage.files
    assert (receipt.category, receipt.coverage) == (FileCategory.generated, Coverage.stats_only)
