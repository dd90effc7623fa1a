"""The documented GitHub Actions job: valid by actionlint, and scheduled at 02:00 in Asia/Shanghai."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

WORKFLOW = Path(__file__).resolve().parents[1] / "examples" / "github-actions" / "daily.yml"


def _actionlint() -> str:
    """The actionlint the test extras install beside this interpreter (or on PATH)."""
    beside = Path(sys.executable).with_name("actionlint")
    found = str(beside) if beside.is_file() else shutil.which("actionlint")
    assert found, "actionlint is not installed: it is in the test extras (make test installs it)"
    return found


def test_the_daily_workflow_passes_actionlint() -> None:
    result = subprocess.run(
        [_actionlint(), "-no-color", str(WORKFLOW)], capture_output=True, text=True, timeout=120, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr


def test_actionlint_would_catch_a_broken_workflow(tmp_path: Path) -> None:
    broken = tmp_path / "daily.yml"
    broken.write_text(WORKFLOW.read_text(encoding="utf-8").replace("actions/cache/save@v5", "actions/cache/save"))
    result = subprocess.run([_actionlint(), "-no-color", str(broken)], capture_output=True, text=True, check=False)
    assert result.returncode != 0  # the control: the check above can fail


def test_the_schedule_is_two_in_the_morning_in_shanghai() -> None:
    (cron,) = re.findall(r'cron: "([^"]+)"', WORKFLOW.read_text(encoding="utf-8"))
    minute, hour = (int(field) for field in cron.split()[:2])
    when = datetime(2026, 3, 1, hour, minute, tzinfo=UTC).astimezone(ZoneInfo("Asia/Shanghai"))
    assert (when.hour, when.minute) == (2, 0)


def test_the_workflow_keeps_the_store_between_runs_and_saves_it_after_a_failure() -> None:
    text = WORKFLOW.read_text(encoding="utf-8")
    assert "actions/cache/restore@v5" in text and "actions/cache/save@v5" in text
    save = text[text.index("Save mirror clones and the store") :]
    assert "if: always()" in save.split("uses:")[0]
    assert 'repodaily "${args[@]}"' in text and "run --config repodaily.toml" in text


def test_the_workflow_passes_the_webhook_under_the_name_the_publisher_reads() -> None:
    """A secret passed under a name no publisher reads leaves its target failing every night."""
    from repodaily.publish.chat.settings import FeishuSettings

    passed = set(re.findall(r"^\s+([A-Z_]+): \$\{\{ secrets\.\1 \}\}$", WORKFLOW.read_text(encoding="utf-8"), re.M))
    assert FeishuSettings().webhook_url_env in passed
    assert {"GITHUB_TOKEN", "LLM_API_KEY"} <= passed
