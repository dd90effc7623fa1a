"""The commit table must reproduce the replaced tool's reference report byte for byte.

Needs the real vLLM history (a clone or bare mirror) at $REPODAILY_VLLM_REPO and the
shared reference report beside the checkout; skipped otherwise.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from click.testing import CliRunner
from report_checks import check_report

from repodaily.cli import main
from repodaily.models import DailyReport

REFERENCE = Path(__file__).resolve().parents[2] / "shared" / "reference" / "argus-vllm-2026-02-09.md"
VLLM = os.environ.get("REPODAILY_VLLM_REPO")

pytestmark = [
    pytest.mark.vllm,
    pytest.mark.skipif(not VLLM, reason="REPODAILY_VLLM_REPO is not set"),
    pytest.mark.skipif(not REFERENCE.is_file(), reason="shared reference report not found"),
]


def _table(markdown: str) -> list[str]:
    """The commit table: the header, the separator and every row up to the first non-table line."""
    lines = markdown.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| 提交时间 |"))
    end = next(i for i in range(start, len(lines)) if not lines[i].startswith("|"))
    return lines[start:end]


def _report(*extra: str) -> str:
    result = CliRunner().invoke(
        main, ["report", VLLM, "--name", "vllm-project/vllm", "--date", "2026-02-09", *extra], catch_exceptions=False
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_table_is_byte_identical_to_the_reference_report():
    expected = _table(REFERENCE.read_text(encoding="utf-8"))
    assert len(expected) == 2 + 22
    assert _table(_report()) == expected


def test_reference_day_passes_the_structural_check_in_both_languages():
    for lang in ("zh", "en"):
        report = DailyReport.model_validate(json.loads(_report("--format", "json", "--lang", lang)))
        assert len(report.commits) == 22
        assert report.commits[0].sha.startswith("d4f123cc48c3")
        assert report.commits[-1].sha.startswith("179ae7da8f48")
        check_report(_report("--lang", lang), report)
