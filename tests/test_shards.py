"""`repodaily run --shard I/N`: N jobs report on every configured repository exactly once."""

from __future__ import annotations

import os
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.errors import ConfigError
from repodaily.shards import Shard

SHANGHAI = ZoneInfo("Asia/Shanghai")
names = st.lists(st.from_regex(r"[a-z0-9-]{1,12}/[a-z0-9._-]{1,20}", fullmatch=True), unique=True, max_size=40)


@settings(max_examples=200, derandomize=True, database=None)
@given(names=names, count=st.integers(min_value=1, max_value=9))
def test_n_shards_hold_every_repository_exactly_once(names: list[str], count: int) -> None:
    shards = [Shard(index, count) for index in range(count)]
    for name in names:
        assert sum(shard.holds(name) for shard in shards) == 1, name


def test_a_repository_keeps_its_shard_across_processes_and_versions() -> None:
    """SHA-256, not Python's salted hash(): pinned, so a change of the function shows here."""
    pinned = ("huggingface/transformers", "rust-lang/rust")
    held = {name: [i for i in range(4) if Shard(i, 4).holds(name)] for name in pinned}
    assert held == {"huggingface/transformers": [1], "rust-lang/rust": [2]}


@pytest.mark.parametrize("text", ["4/4", "-1/4", "1", "a/b", "0/0", "1/2/3", "１/４", "0/٤"])
def test_a_shard_that_is_not_I_of_N_is_a_config_error(text: str) -> None:
    with pytest.raises(ConfigError, match="expected I/N"):
        Shard.parse(text)


def test_the_jobs_of_a_matrix_write_every_report_once(tmp_path: Path) -> None:
    repos = []
    for n in range(6):
        builder = RepoBuilder(tmp_path / f"repo-{n}")
        builder.commit(f"Start project {n}", when=datetime(2026, 3, 2, 10, tzinfo=SHANGHAI), files={"a.py": "A = 1\n"})
        repos.append(f'[[repos]]\nname = "acme/project-{n}"\npath = "{builder.path}"\n')
    config = tmp_path / "repodaily.toml"
    config.write_text(f'[output]\ndir = "{tmp_path / "out"}"\n\n' + "\n".join(repos), encoding="utf-8")
    written: list[set[str]] = []
    for index in range(3):
        before = {p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.md")}
        env = {**os.environ, "XDG_CACHE_HOME": str(tmp_path / f"cache-{index}")}
        result = CliRunner(env=env).invoke(
            main, ["run", "--config", str(config), "--date", "2026-03-02", "--shard", f"{index}/3"]
        )
        assert result.exit_code == 0, result.output
        after = {p.relative_to(tmp_path / "out").as_posix() for p in (tmp_path / "out").rglob("*.md")}
        written.append(after - before)
    assert sorted(name for job in written for name in job) == sorted(
        f"2026/acme/project-{n}/2026-03-02.md" for n in range(6)
    )


def test_a_bad_shard_is_one_line_and_exit_2(tmp_path: Path) -> None:
    config = tmp_path / "repodaily.toml"
    config.write_text(f'[[repos]]\nname = "acme/app"\npath = "{tmp_path}"\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["run", "--config", str(config), "--shard", "3/3"])
    assert result.exit_code == 2
    assert result.output.strip().count("\n") == 0 and "expected I/N" in result.output
