"""Prompt tokens a provider's prefix cache served: read in each API's dialect, summed, shown.

The answers are the shapes the providers send (fields they add and we ignore
included), served by the scripted endpoint of :mod:`llm_fakes`; the run totals
go through the real pipeline, a real git repository and the real store.
"""

from __future__ import annotations

import asyncio
import json
import sqlite3
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest
from llm_fakes import VERDICT, Server, analyse, analyzer, commit, completion, run

from repodaily.config import load_config
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import DailyReport
from repodaily.pipeline import Pipeline
from repodaily.render import render_markdown
from repodaily.store import Store

NOON = datetime(2026, 3, 2, 12, 0, tzinfo=timezone(timedelta(hours=8)))


def _answer(usage: dict[str, Any], **extra: Any) -> httpx.Response:
    """A completion of the verdict whose ``usage`` (and top-level ``extra`` fields) are a provider's own."""
    body = completion(VERDICT).json()
    return httpx.Response(200, json={**body, "usage": usage, **extra})


# The usage blocks as each server sends them: 2,006 prompt tokens, 1,920 of them from the cache.
OPENAI = {
    "prompt_tokens": 2006,
    "completion_tokens": 300,
    "total_tokens": 2306,
    "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0},
    "completion_tokens_details": {"reasoning_tokens": 0, "audio_tokens": 0},
}
DEEPSEEK = {
    "prompt_tokens": 2006,
    "completion_tokens": 300,
    "total_tokens": 2306,
    "prompt_cache_hit_tokens": 1920,
    "prompt_cache_miss_tokens": 86,
}
LLAMA_CPP_TIMINGS = {"cache_n": 1920, "prompt_n": 86, "prompt_ms": 41.2, "predicted_n": 300, "predicted_ms": 3100.5}
PLAIN = {"prompt_tokens": 2006, "completion_tokens": 300, "total_tokens": 2306}


@pytest.mark.parametrize(
    ("reply", "cached"),
    [
        (_answer(OPENAI), 1920),
        (_answer(DEEPSEEK), 1920),
        (_answer(PLAIN, timings=LLAMA_CPP_TIMINGS), 1920),
        (_answer({**PLAIN, "prompt_tokens_details": None}), 0),  # vLLM without --enable-prompt-tokens-details
        (_answer(PLAIN, timings={"cache_n": 0, "prompt_n": 2006}), 0),  # llama.cpp with a cold cache
        (_answer({**PLAIN, "prompt_tokens_details": {"cached_tokens": "1920"}}), 0),  # not a count
    ],
    ids=["openai", "deepseek", "llama.cpp", "no-details", "cold-cache", "malformed"],
)
def test_cached_prompt_tokens_are_read_in_each_dialect(reply: httpx.Response, cached: int):
    (analysis,) = run(analyse(analyzer(Server(reply))))
    assert (analysis.usage.prompt_tokens, analysis.usage.completion_tokens) == (2006, 300)
    assert analysis.usage.cached_prompt_tokens == cached


def test_a_batch_reply_counts_cached_tokens_as_a_call_does():
    batched = analyzer(Server()).parse_reply(commit(), _answer(OPENAI).json())
    assert batched.usage.cached_prompt_tokens == 1920


# --------------------------------------------------------------------------- the run's totals


@pytest.fixture
def two_commits(tmp_path: Path) -> Path:
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit(
        "Initial import", when=NOON - timedelta(days=1), files={"app/cache.py": "def get(k, s):\n    return s[k]\n"}
    )
    builder.commit(
        "Return None for a missing key", when=NOON, files={"app/cache.py": "def get(k, s):\n    return s.get(k)\n"}
    )
    builder.commit("Explain the cache", when=NOON + timedelta(hours=1), files={"README.md": "# app\n"})
    return builder.path


def _report_and_summary(
    tmp_path: Path, repo: Path, server: Server, language: str
) -> tuple[DailyReport, dict[str, Any], str]:
    """One day through the pipeline's run (which records its totals in the store): report, recorded totals, Markdown."""
    config = load_config(
        None,
        environ={},
        overrides={
            "cache_dir": str(tmp_path / "cache"),
            "language": language,
            "repos": [{"name": "acme/app", "path": str(repo)}],
            "output": {"dir": str(tmp_path / "out"), "formats": ["json"]},
        },
    )
    llm = analyzer(server, language=language)
    llm.writes_highlights = False  # one call per commit: the day's highlights are another test's

    async def go(store: Store) -> object:
        return await Pipeline(config, store, analyzer=llm).run(config.repos, [NOON.date()])

    with Store(config.cache_path) as store:
        asyncio.run(go(store))
    with sqlite3.connect(config.cache_path / "repodaily.db") as db:
        (summary,) = db.execute("SELECT summary FROM runs ORDER BY id DESC LIMIT 1").fetchone()
    (written,) = (tmp_path / "out").rglob("*.json")
    report = DailyReport.model_validate_json(written.read_text(encoding="utf-8"))
    return report, json.loads(summary), render_markdown(report)


@pytest.mark.parametrize(
    ("language", "shown"), [("en", "3,840 prompt tokens served from cache"), ("zh", "提示词缓存命中 3,840 token")]
)
def test_the_run_sums_cached_tokens_and_the_footer_shows_them(
    tmp_path: Path, two_commits: Path, language: str, shown: str
):
    report, summary, markdown = _report_and_summary(tmp_path, two_commits, Server(default=_answer(OPENAI)), language)
    assert len(report.commits) == 2
    assert (report.run.prompt_tokens, report.run.cached_prompt_tokens) == (4012, 3840)
    assert (summary["prompt_tokens"], summary["cached_prompt_tokens"]) == (4012, 3840)
    assert shown in markdown.splitlines()[-1]


def test_the_footer_says_nothing_of_a_cache_that_served_nothing(tmp_path: Path, two_commits: Path):
    report, summary, markdown = _report_and_summary(tmp_path, two_commits, Server(default=_answer(PLAIN)), "en")
    assert report.run.prompt_tokens == 4012 and report.run.cached_prompt_tokens == 0
    assert summary["cached_prompt_tokens"] == 0
    assert "cache" not in markdown.splitlines()[-1]
