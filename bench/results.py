"""What the benchmarks share: the options of one over a history, how a child is measured, where figures go.

Figures go to a JSON file under bench/results/, with a line saying so.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

RESULTS_DIR = Path(__file__).parent / "results"


def write_results(out: str | Path, results: Any) -> None:
    """``results`` as indented UTF-8 JSON at ``out`` (its directory made as needed)."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")


def history_parser(description: str | None) -> argparse.ArgumentParser:
    """A parser with the options every benchmark over a history has: ``--repo`` and ``--timezone``."""
    parser = argparse.ArgumentParser(description=description, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repo", default=os.environ.get("REPODAILY_VLLM_REPO"), help="git dir of the history")
    parser.add_argument("--timezone", default="Asia/Shanghai")
    return parser


def history_args(parser: argparse.ArgumentParser) -> argparse.Namespace:
    """The parsed options; without a history to read, a usage error (exit code 2)."""
    args = parser.parse_args()
    if not args.repo:
        parser.error("set REPODAILY_VLLM_REPO or pass --repo")
    return args


@dataclass(frozen=True)
class Measured:
    """What one child process cost, as the kernel counted it when the child was reaped (``wait4``).

    CPU and peak memory include the child's own children (the git a backfill runs),
    since each is reaped by its parent before the parent exits: the CPU is added up,
    the peak is the largest process's.
    """

    status: int
    wall_s: float
    cpu_s: float  # user + system
    peak_rss: int  # bytes


def measure(argv: list[str], env: dict[str, str] | None = None, stdout: IO[bytes] | None = None) -> Measured:
    """Run ``argv`` to its end and measure it; its output goes to ``stdout``, else nowhere."""
    started = time.perf_counter()
    child = subprocess.Popen(argv, env=env, stdout=stdout or subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    # Linux reports the peak in KiB.
    return Measured(child.returncode, wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024)
