"""Benchmark: `repodaily site` over 30 stored days of a real history, against rendering the same days as Markdown.

First makes the stored reports (not timed): `repodaily report` with the heuristic
analyzer over the 30 days (default 2026-01-06..2026-02-04 of vllm-project/vllm,
Asia/Shanghai), then the day after into a copy of that store. Then times,
alternating, in this process:

  markdown     every stored report of the 30 days read from the store and rendered as Markdown (the baseline)
  site         `build_site` of the 30 days into an empty directory
  incremental  `build_site` of the 31 days over the site of the 30 (one more day, as a daily job does)

and, as whole processes, `repodaily site` from nothing (what a CI job pays,
interpreter start included). Reports medians and the ratios to the baseline, run
by run, because machines are noisy; the largest day page and the shared assets
in bytes. Prints a table and writes JSON (bench/results/site_bench.json).

    REPODAILY_VLLM_REPO=/path/to/vllm.git python bench/site_bench.py [--runs 5]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import date, timedelta
from pathlib import Path

from results import RESULTS_DIR, history_args, history_parser, write_results

_SRC = Path(__file__).resolve().parent.parent / "src"
sys.path.insert(0, str(_SRC))

from repodaily.render.markdown import render_markdown  # noqa: E402
from repodaily.site.builder import build_site  # noqa: E402
from repodaily.store import Store  # noqa: E402

_BASE_URL = "https://example.github.io/reports/"


def _config(root: Path, args: argparse.Namespace) -> Path:
    path = root / "repodaily.toml"
    path.write_text(
        f'cache_dir = "{root / "cache"}"\ntimezone = "{args.timezone}"\nlanguage = "{args.lang}"\n'
        f'[analyzer]\nname = "heuristic"\n[output]\ndir = "{root / "reports"}"\n',
        encoding="utf-8",
    )
    return path


def _report(args: argparse.Namespace, config: Path, first: date, last: date) -> None:
    command = [sys.executable, "-m", "repodaily", "report", args.repo, "--name", args.name, "--config", str(config)]
    command += ["--since", first.isoformat(), "--until", last.isoformat(), "--output", str(config.parent / "reports")]
    env = {**os.environ, "PYTHONPATH": str(_SRC)}
    done = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode not in (0, 1):
        sys.exit(f"site_bench: `repodaily report` failed: {done.stderr.strip()}")


def _timed(work: Callable[[], object]) -> float:
    started = time.perf_counter()
    work()
    return time.perf_counter() - started


def _markdown(cache: Path, args: argparse.Namespace) -> int:
    with Store(cache) as store:
        return sum(len(render_markdown(report)) for report in store.reports(args.name, args.lang))


def _site(cache: Path, outdir: Path, args: argparse.Namespace) -> object:
    with Store(cache) as store:
        return build_site(store, [args.name], args.lang, outdir, base_url=_BASE_URL)


def _cli_site(config: Path, outdir: Path) -> None:
    env = {**os.environ, "PYTHONPATH": str(_SRC)}
    command = [sys.executable, "-m", "repodaily", "site", str(outdir), "--config", str(config), "--base-url", _BASE_URL]
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def _sizes(site: Path) -> dict[str, int]:
    days = sorted(site.glob("r/*/*/days/*.html"), key=lambda p: p.stat().st_size)
    return {
        "largest_day_page_bytes": days[-1].stat().st_size,
        "median_day_page_bytes": days[len(days) // 2].stat().st_size,
        "shared_assets_bytes": sum(p.stat().st_size for p in (site / "assets").iterdir() if p.name.startswith("site.")),
        "search_index_bytes": (site / "assets" / "search-index.js").stat().st_size,
        "site_bytes": sum(p.stat().st_size for p in site.rglob("*") if p.is_file()),
        "files": sum(1 for p in site.rglob("*") if p.is_file()),
    }


def main() -> int:
    parser = history_parser(__doc__)
    parser.add_argument("--name", default="vllm-project/vllm")
    parser.add_argument("--last", default="2026-02-04", help="last day of the 30")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--lang", default="zh", choices=["zh", "en"])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", default=str(RESULTS_DIR / "site_bench.json"))
    args = history_args(parser)
    last = date.fromisoformat(args.last)
    first = last - timedelta(days=args.days - 1)
    with tempfile.TemporaryDirectory() as scratch:
        root = Path(scratch)
        thirty, more = root / "thirty", root / "more"
        thirty.mkdir()
        print(f"storing {args.days} days of reports ({first}..{last}) with the heuristic analyzer …", flush=True)
        config = _config(thirty, args)
        _report(args, config, first, last)
        shutil.copytree(thirty, more, ignore=shutil.ignore_patterns("reports"))
        more_config = _config(more, args)
        _report(args, more_config, last + timedelta(days=1), last + timedelta(days=1))
        base = root / "site-30"
        _site(thirty / "cache", base, args)
        timings: dict[str, list[float]] = {"markdown": [], "site": [], "incremental": [], "site_process": []}
        written: list[int] = []
        for run in range(args.runs + 1):  # the first round warms caches and is dropped
            timings["markdown"].append(_timed(lambda: _markdown(thirty / "cache", args)))
            fresh = root / f"site-{run}"
            timings["site"].append(_timed(lambda fresh=fresh: _site(thirty / "cache", fresh, args)))
            again = root / f"again-{run}"
            shutil.copytree(base, again)
            started = time.perf_counter()
            built = _site(more / "cache", again, args)
            timings["incremental"].append(time.perf_counter() - started)
            written.append(len(built.files.written))  # type: ignore[attr-defined]
            process = root / f"process-{run}"
            timings["site_process"].append(_timed(lambda process=process: _cli_site(config, process)))
        sizes = _sizes(base)
    medians = {name: statistics.median(values[1:]) for name, values in timings.items()}
    site_ratios = [s / m for s, m in zip(timings["site"][1:], timings["markdown"][1:], strict=True)]
    incremental_ratios = [i / m for i, m in zip(timings["incremental"][1:], timings["markdown"][1:], strict=True)]
    print(
        f"{'days':>4} {'markdown s':>10} {'site s':>7} {'site/md':>8} {'site process s':>15} "
        f"{'+1 day s':>9} {'+1/md':>6} {'files +1':>8}"
    )
    print(
        f"{args.days:>4} {medians['markdown']:>10.3f} {medians['site']:>7.3f} {statistics.median(site_ratios):>8.2f} "
        f"{medians['site_process']:>15.3f} {medians['incremental']:>9.3f} "
        f"{statistics.median(incremental_ratios):>6.2f} {written[-1]:>8}"
    )
    print("  ".join(f"{key} {value:,}" for key, value in sizes.items()))
    write_results(
        args.out,
        {"first": first.isoformat(), "last": last.isoformat(), "language": args.lang, "runs": args.runs}
        | {"median_s": medians, "site_to_markdown": site_ratios, "incremental_to_markdown": incremental_ratios}
        | {"incremental_files_written": written[1:], "sizes": sizes, "timings_s": timings},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
