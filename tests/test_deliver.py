"""The deliver step: every configured target gets every report, and one that fails costs only itself."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from repodaily.cli import main
from repodaily.demo.scenario import DEMO_DAY, DEMO_REPO_NAME, build_demo_repo
from repodaily.errors import PublishError
from repodaily.models import DailyReport
from repodaily.plugins import NoSettings, PluginSpec, registry
from repodaily.publish.base import Delivery, PublishContext
from repodaily.render.base import Artefact
from repodaily.store import DB_FILE_NAME


class _Receiver:
    """A target that records what it is given, and can be down: every delivery fails, as a webhook answering 500."""

    received: list[tuple[str, str]] = []
    down = False

    def __init__(self, *, settings: NoSettings, context: PublishContext) -> None:
        self.context = context

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        if self.context.dry_run:
            return Delivery("test-receiver", preview=f"# would send {report.repo} {report.date} to the inbox")
        if _Receiver.down:
            raise PublishError("the receiver answered 500")
        _Receiver.received.append((report.repo, report.date.isoformat()))
        return Delivery("test-receiver", locations=["receiver://inbox"])

    async def aclose(self) -> None:
        pass


@pytest.fixture(scope="module")
def demo_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "repo"
    build_demo_repo(path)
    return path


def _config(tmp_path: Path, demo_repo: Path, *targets: str) -> Path:
    """A config delivering to ``targets``, each a ``[[publish]]`` table's body."""
    tables = "".join(f"\n[[publish]]\n{target}\n" for target in targets)
    path = tmp_path / "repodaily.toml"
    path.write_text(
        f'cache_dir = "{tmp_path / "cache"}"\ntimezone = "Asia/Shanghai"\n[output]\nformats = ["md", "json"]\n'
        f'{tables}\n[[repos]]\nname = "{DEMO_REPO_NAME}"\npath = "{demo_repo}"\nweb_url = ""\n',
        encoding="utf-8",
    )
    return path


def _files(tmp_path: Path) -> str:
    return f'type = "files"\ndir = "{tmp_path / "files"}"'


def test_every_target_gets_every_format(tmp_path: Path, demo_repo: Path) -> None:
    config = _config(tmp_path, demo_repo, _files(tmp_path))
    result = CliRunner().invoke(main, ["run", "--config", str(config), "--date", DEMO_DAY.isoformat()])
    assert result.exit_code == 0, result.stderr
    written = sorted(p.suffix for p in (tmp_path / "files").rglob("*.*"))
    assert written == [".json", ".md"]


def _run(config: Path, *extra: str) -> Result:
    return CliRunner().invoke(main, ["run", "--config", str(config), "--date", DEMO_DAY.isoformat(), *extra])


def test_each_report_is_delivered_once_and_a_failed_target_only_is_retried(tmp_path: Path, demo_repo: Path) -> None:
    registry().add("publisher", PluginSpec("test-receiver", _Receiver))
    _Receiver.received, _Receiver.down = [], True
    config = _config(tmp_path, demo_repo, 'type = "test-receiver"', _files(tmp_path))

    down = _run(config)
    assert down.exit_code == 1  # delivered, but not everywhere
    error = f"repodaily: error: {DEMO_REPO_NAME} {DEMO_DAY} → test-receiver: the receiver answered 500"
    assert error in down.stderr.splitlines()
    md = next((tmp_path / "files").rglob("*.md"))  # the target after the failing one still got it
    assert str(md) in down.stdout.split()
    with sqlite3.connect(tmp_path / "cache" / DB_FILE_NAME) as db:
        ledger = db.execute("SELECT target FROM deliveries").fetchall()
    assert ledger == [("files",)]  # what did go out is recorded; the failure is not

    _Receiver.down = False
    recovered = _run(config)
    assert recovered.exit_code == 0, recovered.stderr
    assert _Receiver.received == [(DEMO_REPO_NAME, DEMO_DAY.isoformat())]  # the missing one, once

    again = _run(config)
    assert again.exit_code == 0 and _Receiver.received == [(DEMO_REPO_NAME, DEMO_DAY.isoformat())]
    assert f"{DEMO_REPO_NAME} {DEMO_DAY} → test-receiver: already delivered" in again.stderr

    forced = _run(config, "--force")
    assert forced.exit_code == 0 and len(_Receiver.received) == 2


def test_a_dry_run_sends_nothing_and_records_nothing(tmp_path: Path, demo_repo: Path) -> None:
    registry().add("publisher", PluginSpec("test-receiver", _Receiver))
    _Receiver.received, _Receiver.down = [], False
    config = _config(tmp_path, demo_repo, 'type = "test-receiver"')
    result = _run(config, "--dry-run")
    assert result.exit_code == 0 and _Receiver.received == []
    assert f"# would send {DEMO_REPO_NAME} {DEMO_DAY} to the inbox" in result.stdout
    assert _run(config).exit_code == 0 and len(_Receiver.received) == 1  # the dry run left no ledger entry
