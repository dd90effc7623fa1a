"""The heuristic reads the whole patch, and what it extracts of the user-visible surface.

Every commit is made by git in a temporary repository (:class:`RepoBuilder`) and
read by the git source, so the patches are exactly what a real run reads.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.context import build_input
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import Analysis, AnalysisInput, Commit, Coverage
from repodaily.sources.git import collect_commits, open_repository

_DAY = datetime(2026, 2, 9, tzinfo=UTC)
_BEFORE = datetime(2026, 2, 8, 12, tzinfo=UTC)
_ON_THE_DAY = datetime(2026, 2, 9, 12, tzinfo=UTC)


class Repo:
    """A repository whose first commit holds ``before``; :meth:`change` commits on the report day and reads it back."""

    def __init__(self, path: Path, before: dict[str, str]) -> None:
        self.path = path
        self.builder = RepoBuilder(path / "work")
        self.builder.commit("Initial import", when=_BEFORE, files=before)

    def change(self, message: str, files: dict[str, str], removed: tuple[str, ...] = ()) -> Commit:
        for relpath in removed:
            self.builder.remove(relpath)
        self.builder.commit(message, when=_ON_THE_DAY, files=files)
        repository = open_repository(str(self.builder.path), cache_dir=self.path / "cache")
        commits = collect_commits(repository, _DAY, _DAY.replace(hour=23, minute=59))
        return commits[0]


def heuristic_input(commit: Commit, analyzer: HeuristicAnalyzer, budget_tokens: int = 6000) -> AnalysisInput:
    return build_input(
        "acme/engine",
        commit,
        budget_tokens=budget_tokens,
        paths=analyzer.path_table,
        whole_patch=analyzer.reads_whole_patch,
    )


def analyse(commit: Commit, budget_tokens: int = 6000) -> Analysis:
    analyzer = HeuristicAnalyzer(language="en")
    return analyzer.analyze_sync(heuristic_input(commit, analyzer, budget_tokens))


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"README.md": "# engine\n"})


# --------------------------------------------------------------------------- the whole patch


def _long_cli(flags: list[str]) -> str:
    """A command-line module with many helper functions before the parser, so its options come late in the patch."""
    helpers = "".join(f"def helper_{i}(value):\n    return value * {i} + len(str(value))\n\n\n" for i in range(120))
    options = "".join(f'    parser.add_argument(\n        "{flag}",\n        type=int,\n    )\n' for flag in flags)
    return f"import argparse\n\n\n{helpers}def make_parser():\n    parser = argparse.ArgumentParser()\n{options}"


def test_a_late_hunk_the_prompt_budget_cuts_is_read_by_the_heuristic(repo: Repo) -> None:
    before = _long_cli(["--workers", "--legacy-mode"])
    repo.change("Initial cli", {"engine/cli.py": before})
    after = before.replace("return value *", "return value +").replace(
        '        "--legacy-mode",\n', '        "--mode",\n'
    )
    commit = repo.change("Tidy the command line", {"engine/cli.py": after})
    analyzer = HeuristicAnalyzer(language="en")
    # What one small prompt would hold stops before the parser: the removed option is not in it.
    prompt = build_input("acme/engine", commit, budget_tokens=300, paths=analyzer.path_table)
    assert prompt.files[0].coverage == Coverage.clipped
    assert "--legacy-mode" not in prompt.files[0].text
    item = heuristic_input(commit, analyzer, budget_tokens=300)
    assert item.files[0].coverage == Coverage.full
    assert item.receipt.files[0].tokens_sent == item.receipt.files[0].tokens_total
    assert "--legacy-mode" in item.files[0].text
    analysis = analyzer.analyze_sync(item)
    assert analysis.coverage.count(Coverage.full) == 1
