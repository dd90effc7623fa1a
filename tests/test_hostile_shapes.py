"""A commit shaped to make patterns backtrack (one character repeated a hundred thousand times) is read in linear time.

A commit is hostile input. A line of many blanks in a manifest, a public header
or the title, of dashes in a changelog entry, of `a=` in the title, once held a
report for minutes: a pattern that gives back one character of such a run at a
time, or is tried again at every character of it, costs time quadratic (or
cubic) in its length. Each case below puts one run in every place a pattern
reads — title, body, changelog entry, source lines, manifests, a public header,
a Java class, a workflow — in one commit made by git, read as a report reads it
(:class:`test_surface.Repo`). Before the patterns were made linear, seven of the
twelve cases (blanks, tabs, dashes, `a=`, `a`, `(`, `A_`) took longer than the
limit; each takes under a second now. The other five guard the same for shapes
that were already linear.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

_LENGTH = 100_000
_UNITS = [" ", "\t", "-", "=", "a=", "a", "1", "#", "`", "(", "A_", "a."]


def _places(run: str) -> tuple[str, dict[str, str]]:
    """A message and the files of one commit, each carrying ``run`` where a rule reads."""
    message = f"Fix the parser{run}x\n\n{run}x\n"
    files = {
        "CHANGELOG.md": f"# Changes\n\n## Unreleased\n\n- Fix the parser {run}x\n",
        "acme/core.py": f"x = 1\n{run}\ndef f({run}):\n    if {run}:\n        return 1\n# {run}\n",
        "requirements.txt": f"torch{run}x\n{run}\n",
        "pyproject.toml": f"[project]\nname = 'acme'\ndependencies = ['{run}']\n{run}\n",
        "include/acme/log.h": f"int{run}f();\n{run}\n",
        "src/main/java/acme/Log.java": f"public class Log {{\n  public {run}\n  public int {run}(int a);\n}}\n",
        ".github/workflows/ci.yml": f"on: push\npermissions: {run}\njobs:\n  a:\n    {run}\n",
    }
    return message, files


@pytest.mark.timeout(60)
@pytest.mark.parametrize("unit", _UNITS, ids=repr)
def test_a_long_run_of_one_shape_is_read_in_linear_time(tmp_path: Path, unit: str) -> None:
    message, files = _places(unit * (_LENGTH // len(unit)))
    repo = Repo(tmp_path, {"README.md": "# acme\n"} | {path: "x\n" for path in files})
    analysis = analyse(repo.change(message, files))
    assert analysis.type is not None
