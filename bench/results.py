"""Where every benchmark puts its figures: a JSON file under bench/results/, and a line saying so."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

RESULTS_DIR = Path(__file__).parent / "results"


def write_results(out: str | Path, results: Any) -> None:
    """``results`` as indented UTF-8 JSON at ``out`` (its directory made as needed)."""
    path = Path(out)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"wrote {path}")
