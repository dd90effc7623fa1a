"""An analysis is a verdict and its provenance; the rubric's depth rule holds for every analyzer's output.

The JSON report keeps its flat ``commits[].analysis`` object in the key order
users have built on, and reloads to the same report.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from repodaily.analyzers import Analyzer
from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.config import Config, load_config
from repodaily.demo.scenario import DEMO_DAY, build_demo_repo
from repodaily.models import (
    DEPTH,
    Analysis,
    AnalysisInput,
    AnalysisStatus,
    ChangeType,
    CoverageReceipt,
    DailyReport,
    Importance,
    Insight,
    Provenance,
    Recommendation,
    Usage,
    Verdict,
)
from repodaily.pipeline import Pipeline
from repodaily.render import render_json
from repodaily.store import Store

DEEP_FIELDS = ("summary", "impact_scope", "insights", "risks", "recommendations")

# The JSON format's keys in their order, as reports have had them since schema version 1.
REPORT_KEYS = [
    "schema_version",
    "repo",
    "repo_url",
    "date",
    "timezone",
    "language",
    "commits",
    "stats",
    "links",
    "highlights",
    "releases",
    "pull_context",
    "run",
    "extra",
]
COMMIT_KEYS = [
    "sha",
    "short_sha",
    "url",
    "committed_at",
    "author",
    "subject",
    "message_lines",
    "pr_number",
    "pr_url",
    "pull_request",
    "encoding_issues",
    "missing_files",
    "date_issues",
    "files_incomplete",
    "analysis",
]
ANALYSIS_KEYS = [
    "type",
    "secondary_types",
    "importance",
    "importance_reason",
    "flags",
    "summary",
    "one_line",
    "impact_scope",
    "insights",
    "risks",
    "recommendations",
    "coverage",
    "analyzer",
    "model",
    "usage",
    "status",
    "note",
    "surface",  # added later, at the end: the format only ever grows
]


def _full_verdict(importance: Importance) -> Verdict:
    """A verdict that writes every field, whatever its importance shows."""
    return Verdict(
        type=ChangeType.fix,
        importance=importance,
        importance_reason="why",
        summary=["what it does"],
        one_line="in one line",
        impact_scope=["parser"],
        insights=[Insight(aspect="performance", text="faster")],
        risks=["a risk"],
        recommendations=[Recommendation(audience="users", text="upgrade")],
    )


def _provenance() -> Provenance:
    return Provenance(
        coverage=CoverageReceipt(budget_tokens=100, tokens_sent=10),
        analyzer="test/1",
        model="m",
        usage=Usage(calls=1, prompt_tokens=10, completion_tokens=5, seconds=0.5),
        status=AnalysisStatus.ok,
    )


def _shown(verdict: Verdict) -> set[str]:
    return {name for name in DEEP_FIELDS if getattr(verdict, name)}


def test_depth_rule_keeps_what_each_importance_shows_and_low_only_its_one_line():
    shown = {level: _shown(_full_verdict(level).at_depth()) for level in Importance}
    assert shown == {
        Importance.high: set(DEEP_FIELDS),
        Importance.medium: {"summary", "impact_scope", "recommendations"},
        Importance.low: set(),
    }
    assert set(DEPTH[Importance.high]) == set(DEEP_FIELDS)
    low = _full_verdict(Importance.low).at_depth()
    assert (low.one_line, low.importance_reason) == ("in one line", "why")


def test_an_analysis_is_made_at_its_depth_and_splits_back_into_its_parts():
    verdict, provenance = _full_verdict(Importance.medium), _provenance()
    analysis = Analysis.of(verdict, provenance)
    assert analysis.verdict == verdict.at_depth()
    assert analysis.provenance == provenance
    assert analysis.insights == [] and analysis.summary == ["what it does"]
    assert Analysis.of(analysis.verdict, analysis.provenance) == analysis


class _BrokenHeuristic(HeuristicAnalyzer):
    """The offline analyzer with an internal error: the pipeline has no fallback left but its placeholder."""

    @property
    def fingerprint(self) -> str:
        return "broken"  # nothing from the cache

    async def analyze(self, item: AnalysisInput) -> Analysis:
        raise RuntimeError("broken")


@pytest.fixture(scope="module")
def demo_config(tmp_path_factory: pytest.TempPathFactory) -> Config:
    """The demo repository, judged by the heuristic analyzer."""
    root = tmp_path_factory.mktemp("verdict")
    build_demo_repo(root / "repo")
    config_path = root / "repodaily.toml"
    config_path.write_text(
        f'cache_dir = "{root / "cache"}"\n[analyzer]\nname = "heuristic"\n'
        f'[[repos]]\nname = "demo-org/inferno"\npath = "{root / "repo"}"\n',
        encoding="utf-8",
    )
    return load_config(config_path, environ={})


def _demo_day(config: Config, analyzer: Analyzer | None = None) -> DailyReport:
    with Store(config.cache_path) as store:
        pipeline = Pipeline(config, store, analyzer=analyzer)
        (report,) = asyncio.run(pipeline.reports_for(config.repos[0], [DEMO_DAY]))
    return report


@pytest.fixture(scope="module")
def demo_report(demo_config: Config) -> DailyReport:
    """The demo day through the whole pipeline."""
    return _demo_day(demo_config)


def test_the_pipeline_placeholder_for_a_failed_analysis_is_a_verdict_at_its_depth(demo_config: Config):
    report = _demo_day(demo_config, _BrokenHeuristic(language="en"))
    for commit in report.commits:
        analysis = commit.analysis
        assert analysis.status == AnalysisStatus.failed and "broken" in analysis.note
        assert analysis.verdict == analysis.verdict.at_depth()
        assert analysis.one_line == commit.subject


def test_heuristic_verdicts_of_a_real_repository_are_at_their_depth(demo_report: DailyReport):
    analyses = [c.analysis for c in demo_report.commits]
    assert {a.importance for a in analyses} == set(Importance)  # every depth is exercised
    for analysis in analyses:
        assert analysis.verdict == analysis.verdict.at_depth(), analysis.one_line
        assert _shown(analysis) <= set(DEPTH[analysis.importance])
        assert analysis.one_line
    assert all(_shown(a) == set() for a in analyses if a.importance == Importance.low)


def test_report_json_round_trips_with_the_keys_in_their_order(demo_report: DailyReport, tmp_path: Path):
    text = render_json(demo_report)
    data = json.loads(text)
    assert list(data) == REPORT_KEYS
    for commit in data["commits"]:
        assert list(commit) == COMMIT_KEYS
        assert list(commit["analysis"]) == ANALYSIS_KEYS
    reloaded = DailyReport.model_validate_json(text)
    assert reloaded == demo_report
    assert render_json(reloaded) == text
