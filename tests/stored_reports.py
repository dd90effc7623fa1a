"""Reports made by the real pipeline on the demo repository and kept in a real store, for the site's tests.

The demo repository has commits on four days around :data:`DEMO_DAY` (three days
before, the day before, the day, the day after), so a span of five days gives
busy and empty days over two ISO weeks.
"""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

from click.testing import CliRunner

from repodaily.cli import main
from repodaily.demo.scenario import DEMO_DAY, DEMO_REPO_NAME, build_demo_repo

FIRST_DAY = DEMO_DAY - timedelta(days=3)
LAST_DAY = DEMO_DAY + timedelta(days=1)


def write_config(root: Path, repo: Path, language: str = "zh") -> Path:
    """A config watching the demo repository ``repo``, its cache and reports under ``root``."""
    path = root / "repodaily.toml"
    path.write_text(
        f'cache_dir = "{root / "cache"}"\ntimezone = "Asia/Shanghai"\nlanguage = "{language}"\n'
        f'[output]\ndir = "{root / "reports"}"\nformats = ["md"]\n'
        f'[[repos]]\nname = "{DEMO_REPO_NAME}"\npath = "{repo}"\nweb_url = "https://github.com/{DEMO_REPO_NAME}"\n',
        encoding="utf-8",
    )
    return path


def fill_store(root: Path, language: str = "zh", since: date = FIRST_DAY, until: date = LAST_DAY) -> Path:
    """Build the demo repository under ``root``, run `run` over [since, until]; the config's path."""
    repo = root / "repo"
    if not repo.exists():
        build_demo_repo(repo)
    config = write_config(root, repo, language)
    result = CliRunner().invoke(
        main, ["run", "--config", str(config), "--since", since.isoformat(), "--until", until.isoformat()]
    )
    assert result.exit_code in (0, 1), result.output
    return config
