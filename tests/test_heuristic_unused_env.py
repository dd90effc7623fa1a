"""An environment variable the title calls unused leaves the table: a cleanup, not a removed interface.

The diff shows only the table entry going; the title says nothing read it, so setting it
had no effect before the commit and has none after. The same removal under a title that
does not say so is still read as a removed interface, breaking.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_TABLE = (
    "import os\n\n"
    "environment_variables = {\n"
    '    "ENGINE_CACHE": lambda: os.getenv("ENGINE_CACHE", "0"),\n'
    "    # If set, the engine pads batches to the captured graph sizes.\n"
    '    "ENGINE_LEGACY_PAD": lambda: bool(int(os.getenv("ENGINE_LEGACY_PAD", "0"))),\n'
    '    "ENGINE_TRACE": lambda: bool(os.getenv("ENGINE_TRACE")),\n'
    "}\n"
)
_WITHOUT = _TABLE.replace(
    "    # If set, the engine pads batches to the captured graph sizes.\n"
    '    "ENGINE_LEGACY_PAD": lambda: bool(int(os.getenv("ENGINE_LEGACY_PAD", "0"))),\n',
    "",
)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"engine/envs.py": _TABLE})


@pytest.mark.parametrize(
    "title",
    ["[Refactor] Remove Unused Environment Variable `ENGINE_LEGACY_PAD` (#2201)", "[Minor] Remove unused env variable"],
)
def test_removing_an_unused_environment_variable_is_a_cleanup(repo: Repo, title: str) -> None:
    analysis = analyse(repo.change(title, {"engine/envs.py": _WITHOUT}))
    assert not analysis.flags.breaking
    assert analysis.type == ChangeType.refactor
    assert analysis.importance == Importance.low


def test_removing_an_environment_variable_users_set_is_breaking(repo: Repo) -> None:
    analysis = analyse(repo.change("Tidy the environment table", {"engine/envs.py": _WITHOUT}))
    assert analysis.flags.breaking
