"""A report is the same bytes whatever process makes it.

Python orders the members of a set of strings by their hashes, and each
interpreter salts its hashes anew (``PYTHONHASHSEED``), so a set iterated into
a report would change it from run to run: a rerun would look like news, and a
delivery ledger keyed on content would send it twice. Each run here is a fresh
interpreter with its own seed and cache, over a day whose commits give every
stage many names to order: moved and renamed definitions, options, variables,
config keys, dependencies and tests.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from repodaily.demo.repo_builder import RepoBuilder

_BEFORE = datetime(2026, 2, 8, 12, tzinfo=UTC)
_ON_THE_DAY = datetime(2026, 2, 9, 12, tzinfo=UTC)
_SEEDS = ("0", "1", "2", "3")

_FUNCTIONS = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot"]


def _module(order: list[str], suffix: str = "") -> str:
    return "".join(f"def {name}{suffix}(value):\n    return value + {index}\n\n\n" for index, name in enumerate(order))


def _cli(options: dict[str, str]) -> str:
    lines = ["import argparse\n", "parser = argparse.ArgumentParser()\n"]
    lines += [f'parser.add_argument("--{name}", default={default})\n' for name, default in options.items()]
    return "".join(lines)


def _config(fields: dict[str, str]) -> str:
    body = "".join(f"    {name}: int = {default}\n" for name, default in fields.items())
    return f"from dataclasses import dataclass\n\n\n@dataclass\nclass EngineConfig:\n{body}"


@pytest.fixture(scope="module")
def busy_day(tmp_path_factory: pytest.TempPathFactory) -> Path:
    builder = RepoBuilder(tmp_path_factory.mktemp("busy") / "engine")
    builder.commit(
        "Initial import",
        when=_BEFORE,
        files={
            "README.md": "# engine\n",
            "engine/ops.py": _module(_FUNCTIONS),
            "engine/cli.py": _cli({"workers": "1", "batch": "8", "cache": "True", "legacy": "False"}),
            "engine/config.py": _config({"threads": "2", "depth": "3", "width": "4", "height": "5"}),
            "requirements.txt": "torch>=2.4\nnumpy>=1.26\nrequests>=2.31\n",
        },
    )
    builder.commit(
        "Reorder and rework the operations",
        when=_ON_THE_DAY,
        files={
            "engine/ops.py": _module(list(reversed(_FUNCTIONS))) + _module(["golf", "hotel"], "_v2"),
            "tests/test_ops.py": "".join(f"def test_{name}():\n    assert True\n\n\n" for name in _FUNCTIONS),
        },
    )
    builder.commit(
        "Change the defaults and the floors",
        when=_ON_THE_DAY.replace(hour=14),
        files={
            "engine/cli.py": _cli({"workers": "4", "micro-batch": "8", "cache": "False", "mode": "'fast'"}),
            "engine/config.py": _config({"threads": "8", "depth": "1", "breadth": "4", "height": "6"}),
            "requirements.txt": "torch>=2.6\nnumpy>=2.0\nhttpx>=0.27\n",
        },
    )
    return builder.path


def _report(repo: Path, seed: str, root: Path, language: str) -> dict[str, bytes]:
    """Every file one report run writes, by relative path, from an interpreter hashing with ``seed``."""
    output = root / f"seed-{seed}"
    environment = {**os.environ, "PYTHONHASHSEED": seed, "XDG_CACHE_HOME": str(root / f"cache-{seed}")}
    command = [sys.executable, "-m", "repodaily", "report", str(repo), "--name", "acme/engine", "--date", "2026-02-09"]
    command += ["--lang", language, "--timezone", "UTC", "--format", "md", "--format", "json", "--output", str(output)]
    subprocess.run(command, env=environment, check=True, capture_output=True, timeout=300)
    return {str(path.relative_to(output)): _made(path) for path in sorted(output.rglob("*")) if path.is_file()}


def _made(path: Path) -> bytes:
    """The file's bytes; of a JSON report, all but the time the run took, the one thing measured, not made."""
    if path.suffix != ".json":
        return path.read_bytes()
    report = json.loads(path.read_bytes())
    assert isinstance(report["run"].pop("seconds"), float)
    return json.dumps(report, ensure_ascii=False).encode()


@pytest.mark.parametrize("language", ["zh", "en"])
def test_every_hash_seed_writes_the_same_report(busy_day: Path, tmp_path: Path, language: str) -> None:
    reports = {seed: _report(busy_day, seed, tmp_path, language) for seed in _SEEDS}
    first = reports[_SEEDS[0]]
    assert first and any(name.endswith(".md") for name in first) and any(name.endswith(".json") for name in first)
    for seed in _SEEDS[1:]:
        assert reports[seed].keys() == first.keys()
        changed = [name for name in first if reports[seed][name] != first[name]]
        assert not changed, f"PYTHONHASHSEED={seed} wrote other bytes in {changed}"
