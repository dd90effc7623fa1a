"""The deliver step: every configured target gets every report, and one that fails costs only itself."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

import pytest
from click.testing import CliRunner

from repodaily.cli import main
from repodaily.demo.scenario import DEMO_DAY, DEMO_REPO_NAME, build_demo_repo
from repodaily.errors import PublishError
from repodaily.models import DailyReport
from repodaily.plugins import NoSettings, PluginSpec, registry
from repodaily.publish.base import Delivery, PublishContext
from repodaily.render.base import Artefact
from repodaily.store import DB_FILE_NAME


class _Refusing:
    """A target that is down: every delivery fails, as a webhook answering 500 would."""

    def __init__(self, *, settings: NoSettings, context: PublishContext) -> None:
        pass

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        raise PublishError("the receiver answered 500")

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


def test_a_target_that_fails_does_not_keep_the_report_from_the_others(tmp_path: Path, demo_repo: Path) -> None:
    registry().add("publisher", PluginSpec("test-refusing", _Refusing))
    config = _config(tmp_path, demo_repo, 'type = "test-refusing"', _files(tmp_path))
    result = CliRunner().invoke(main, ["run", "--config", str(config), "--date", DEMO_DAY.isoformat()])
    assert result.exit_code == 3
    assert result.stderr.splitlines() == ["repodaily: error: test-refusing: the receiver answered 500"]
    md = next((tmp_path / "files").rglob("*.md"))  # the target after the failing one still got it
    assert result.stdout.split() == [str(md), str(md.with_suffix(".json"))]
    with sqlite3.connect(tmp_path / "cache" / DB_FILE_NAME) as db:
        (paths,) = db.execute("SELECT paths FROM reports").fetchone()
    assert str(md) in paths  # the store records what did go out
