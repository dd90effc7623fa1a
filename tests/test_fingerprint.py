"""Fingerprints follow the content of prompts, schemas, rule tables and code: none can go stale.

Edits are made for real, to a copy of the package: resource reads are pointed
at the copy (the package's data files are read through importlib.resources),
and a schema edit, which lives in Python, runs in a fresh interpreter on the
copy. The fingerprints themselves are always the real code's.
"""

from __future__ import annotations

import importlib.resources
import json
import os
import re
import shutil
import subprocess
import sys
from datetime import date, datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import httpx
import pytest
from pipeline_days import day_report

from repodaily import paths
from repodaily.analyzers.heuristic import HeuristicAnalyzer, load_conventions, rules, source
from repodaily.analyzers.llm import EndpointSettings, LLMAnalyzer, LLMSettings, prompts
from repodaily.config import Config, load_config
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import DailyReport, Importance
from repodaily.render import render_markdown
from repodaily.store import Store

PACKAGE = Path(str(importlib.resources.files("repodaily")))
DAY = date(2026, 3, 2)
NOON = datetime(2026, 3, 2, 12, 0, tzinfo=timezone(timedelta(hours=8)))
LLM_SETTINGS = LLMSettings(
    endpoints=[EndpointSettings(name="local", base_url="http://local.test/v1", model="local-model")], language="en"
)


def _forget() -> None:
    """Drop what the process read from the package once, so the next read sees the files as they are now."""
    for cached in (
        source.source_digest,
        prompts.prompt_digest,
        rules._packaged_rules,
        paths._packaged_data,
        paths._packaged_table,
    ):
        cached.cache_clear()
    prompts._ENVIRONMENT.cache.clear()


class PackageCopy:
    """A copy of the ``repodaily`` package that every resource read of the process is pointed at."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def edit(self, path: str, old: str, new: str) -> None:
        """Replace ``old`` by ``new`` in one file of the copy, as someone editing it would."""
        file = self.root / path
        text = file.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {path}"
        file.write_text(text.replace(old, new, 1), encoding="utf-8")
        _forget()


@pytest.fixture
def package_copy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    root = tmp_path / "site" / "repodaily"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    real_files = importlib.resources.files

    def files(anchor: Any) -> Any:
        name = anchor if isinstance(anchor, str) else anchor.__name__
        top, *below = name.split(".")
        return root.joinpath(*below) if top == "repodaily" else real_files(anchor)

    monkeypatch.setattr(importlib.resources, "files", files)
    _forget()
    yield PackageCopy(root)
    monkeypatch.undo()
    _forget()


def _fingerprints() -> dict[str, str]:
    """Every fingerprint this test module watches, computed by the real code in this process."""
    return {
        "heuristic": HeuristicAnalyzer(language="zh").fingerprint,
        "heuristic-vllm": HeuristicAnalyzer(language="en", conventions=load_conventions("vllm")).fingerprint,
        "llm": LLMAnalyzer(settings=LLM_SETTINGS, environ={}).fingerprint,
        "prompts": LLMAnalyzer(settings=LLM_SETTINGS, environ={}).prompt_version,
    }


@pytest.fixture(scope="module")
def pristine() -> dict[str, str]:
    """The fingerprints of the package as it is."""
    return _fingerprints()


# --------------------------------------------------------------------------- equal inputs, equal fingerprints


def test_the_fingerprints_are_content_hashes_in_the_documented_shapes(pristine: dict[str, str]) -> None:
    hashed = "[0-9a-f]{10}"
    assert re.fullmatch(f"heuristic/{hashed}-{hashed}/zh", pristine["heuristic"])
    assert re.fullmatch(f"heuristic/{hashed}-{hashed}/en", pristine["heuristic-vllm"])
    assert re.fullmatch(hashed, pristine["prompts"])
    assert re.fullmatch(f"llm/local-model/p{pristine['prompts']}/en/{hashed}", pristine["llm"])


def test_an_unchanged_copy_elsewhere_fingerprints_like_the_package(
    pristine: dict[str, str], package_copy: PackageCopy
) -> None:
    assert _fingerprints() == pristine


def test_line_endings_do_not_change_a_fingerprint(pristine: dict[str, str], package_copy: PackageCopy) -> None:
    """A checkout with CRLF line endings (git on Windows) must share the cache of one with LF."""
    for file in package_copy.root.rglob("*"):
        if file.suffix in (".py", ".toml", ".j2"):
            file.write_bytes(file.read_bytes().replace(b"\n", b"\r\n"))
    _forget()
    assert _fingerprints() == pristine


def test_a_fresh_process_computes_the_same_fingerprints(pristine: dict[str, str], tmp_path: Path) -> None:
    """No hash seed, import order or absolute path enters: another run, from another place, agrees."""
    root = tmp_path / "elsewhere" / "repodaily"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    assert _fingerprints_in_fresh_process(root) == pristine


# --------------------------------------------------------------------------- an edit changes the fingerprint


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("analyzers/llm/prompts/analyze.en.md.j2", "", "Answer in plain words.\n"),
        ("analyzers/llm/prompts/chunk.zh.md.j2", "", "{# 只改了一个注释 #}\n"),  # another language counts too
        ("analyzers/llm/prompts/highlights.en.md.j2", "", "\n"),
        ("analyzers/llm/prompts.py", "", "# A change to how the prompts are rendered.\n"),
    ],
    ids=["analyze-template", "chunk-template-zh", "highlights-template", "rendering-module"],
)
def test_editing_a_prompt_changes_the_llm_fingerprint_only(
    pristine: dict[str, str], package_copy: PackageCopy, path: str, old: str, new: str
) -> None:
    package_copy.edit(path, old, new)
    now = _fingerprints()
    assert now["prompts"] != pristine["prompts"] and now["llm"] != pristine["llm"]
    assert now["llm"].startswith(f"llm/local-model/p{now['prompts']}/en/")
    assert (now["heuristic"], now["heuristic-vllm"]) == (pristine["heuristic"], pristine["heuristic-vllm"])


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("analyzers/heuristic/rules.toml", 'docs = "low"', 'docs = "medium"'),
        ("analyzers/heuristic/rules.toml", "# Rules of the offline", "# The rules of the offline"),
        ("analyzers/heuristic/presets/vllm.toml", "", "# A note on the preset.\n"),
        ("paths.toml", '"go.sum"', '"go.sum", "bun.lockb"'),
        ("analyzers/heuristic/decide.py", "", "# A code change is a rule change too.\n"),
        ("sources/message.py", "", "# The subject parsing the heuristic imports.\n"),
    ],
    ids=["rule-value", "rules-comment", "preset", "path-table", "heuristic-module", "imported-module"],
)
def test_editing_a_rule_table_or_the_heuristics_code_changes_its_fingerprint_only(
    pristine: dict[str, str], package_copy: PackageCopy, path: str, old: str, new: str
) -> None:
    package_copy.edit(path, old, new)
    now = _fingerprints()
    assert now["heuristic"] != pristine["heuristic"] and now["heuristic-vllm"] != pristine["heuristic-vllm"]
    assert (now["llm"], now["prompts"]) == (pristine["llm"], pristine["prompts"])


def test_a_rule_value_changes_the_rules_hash_and_a_comment_only_the_code_hash(
    pristine: dict[str, str], package_copy: PackageCopy
) -> None:
    """The rules hash is of the table as loaded; the file itself is hashed with the code."""
    code, rules_hash = pristine["heuristic"].split("/")[1].split("-")
    package_copy.edit("analyzers/heuristic/rules.toml", "# Rules of the offline", "# The rules of the offline")
    commented = HeuristicAnalyzer(language="zh").fingerprint
    assert commented != pristine["heuristic"] and commented.endswith(f"-{rules_hash}/zh")
    package_copy.edit("analyzers/heuristic/rules.toml", 'docs = "low"', 'docs = "medium"')
    assert f"-{rules_hash}/" not in HeuristicAnalyzer(language="zh").fingerprint


def test_editing_the_schema_changes_the_llm_fingerprint_only(pristine: dict[str, str], tmp_path: Path) -> None:
    """The schema is Python, so the edited copy runs in a fresh interpreter; what is hashed is the schema sent."""
    root = tmp_path / "edited" / "repodaily"
    shutil.copytree(PACKAGE, root, ignore=shutil.ignore_patterns("__pycache__"))
    schema = root / "analyzers" / "llm" / "schema.py"
    text = schema.read_text(encoding="utf-8")
    assert "one_line: str = _text(160, min_length=1)" in text
    schema.write_text(text.replace("one_line: str = _text(160,", "one_line: str = _text(200,"), encoding="utf-8")
    now = _fingerprints_in_fresh_process(root)
    assert now["prompts"] != pristine["prompts"] and now["llm"] != pristine["llm"]
    assert (now["heuristic"], now["heuristic-vllm"]) == (pristine["heuristic"], pristine["heuristic-vllm"])


def _fingerprints_in_fresh_process(package: Path) -> dict[str, str]:
    """:func:`_fingerprints` in a new interpreter that imports ``package`` and hashes with another seed."""
    script = (
        "import json, sys, repodaily, test_fingerprint as t\n"
        "assert repodaily.__file__.startswith(sys.argv[1]), repodaily.__file__\n"
        "print(json.dumps(t._fingerprints()))"
    )
    environment = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(package.parent), str(Path(__file__).parent)]),
        "PYTHONHASHSEED": "12345",
    }
    result = subprocess.run(
        [sys.executable, "-c", script, str(package)],
        env=environment,
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    return json.loads(result.stdout)


# --------------------------------------------------------------------------- the cache after an edit


@pytest.fixture
def day_repo(tmp_path: Path) -> Path:
    """One day with one documentation commit."""
    builder = RepoBuilder(tmp_path / "app")
    builder.commit("Initial import", when=NOON - timedelta(days=2), files={"app.py": "print('hi')\n"})
    builder.commit("[Doc] Explain the install steps", when=NOON, files={"README.md": "# app\n\npip install app\n"})
    return builder.path


def _config(tmp_path: Path, repo: Path) -> Config:
    path = tmp_path / "repodaily.toml"
    path.write_text(
        f'cache_dir = "{tmp_path / "cache"}"\nlanguage = "en"\n[[repos]]\nname = "acme/app"\npath = "{repo}"\n',
        encoding="utf-8",
    )
    return load_config(path, environ={})


def _report(config: Config, analyzer: LLMAnalyzer | None = None) -> DailyReport:
    """One day's report through the real pipeline and the real SQLite store under the cache directory."""
    return day_report(config, DAY, analyzer)


def test_a_cached_heuristic_analysis_is_not_served_after_a_rule_edit(
    tmp_path: Path, day_repo: Path, package_copy: PackageCopy
) -> None:
    config = _config(tmp_path, day_repo)
    first = _report(config)
    assert (first.run.cached, first.commits[0].analysis.importance) == (0, Importance.low)
    assert _report(config).run.cached == 1  # the cache serves an unchanged analyzer

    package_copy.edit("analyzers/heuristic/rules.toml", 'docs = "low"', 'docs = "medium"')
    edited = _report(config)
    assert edited.run.cached == 0 and edited.run.analyzer != first.run.analyzer
    (commit,) = edited.commits
    assert (commit.analysis.analyzer, commit.analysis.importance) == (edited.run.analyzer, Importance.medium)
    assert _report(config).run.cached == 1
    with Store(config.cache_path) as store:  # the old analysis is still stored, under the old key only
        (old,) = store.get_analyses("acme/app", [commit.sha], first.run.analyzer).values()
    assert old.importance == Importance.low


def test_a_cached_llm_analysis_is_not_served_after_a_prompt_edit(
    tmp_path: Path, day_repo: Path, package_copy: PackageCopy
) -> None:
    asked: list[httpx.Request] = []

    def endpoint(request: httpx.Request) -> httpx.Response:
        if request.method == "GET":  # how many requests the server runs at once: it does not say
            return httpx.Response(404)
        asked.append(request)
        flags = {"security": False, "breaking": False, "user_facing": False}
        verdict = {"type": "docs", "importance": "low", "flags": flags, "one_line": "Explains the install steps."}
        choice = {"index": 0, "message": {"role": "assistant", "content": json.dumps(verdict)}, "finish_reason": "stop"}
        usage = {"prompt_tokens": 100, "completion_tokens": 20}
        return httpx.Response(200, json={"id": "1", "model": "local-model", "choices": [choice], "usage": usage})

    def llm() -> LLMAnalyzer:
        return LLMAnalyzer(settings=LLM_SETTINGS, transport=httpx.MockTransport(endpoint), environ={})

    config = _config(tmp_path, day_repo)
    first = _report(config, llm())
    assert (first.run.cached, len(asked)) == (0, 1)
    assert _report(config, llm()).run.cached == 1 and len(asked) == 1  # a rerun asks nothing

    package_copy.edit("analyzers/llm/prompts/analyze.en.md.j2", "five minutes a day", "two minutes a day")
    edited = _report(config, llm())
    assert (edited.run.cached, len(asked)) == (0, 2), "the model must be asked again, with the edited prompt"
    assert "two minutes a day" in json.loads(asked[-1].content)["messages"][0]["content"]
    assert edited.run.prompt_version != first.run.prompt_version
    assert edited.commits[0].analysis.analyzer == edited.run.analyzer != first.run.analyzer
    assert f"prompt {edited.run.prompt_version}" in render_markdown(edited)
