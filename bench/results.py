"""What the benchmarks share: the options of one over a history, and where its figures go.

Figures go to a JSON file under bench/results/, with a line saying so.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path
from typing import Any

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
