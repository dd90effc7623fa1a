"""Benchmark: `repodaily run` over many repositories for a week — memory and open descriptors stay flat.

Builds REPOS generated git repositories (default 100) with COMMITS commits on each
of 7 days, writes a config watching them all (heuristic analyzer, files
publisher), and runs the whole CLI (`repodaily run --since … --until …`) as a
child process, sampling its resident set size and open file descriptors from
/proc every 20 ms. Memory and descriptors are flat when the second half of the
run peaks where the first half did: a leak per repository would grow with the
repositories done. The same run is timed with one repository at a time
(`[run] repositories = 1`), so the concurrent figure has a baseline (ratio).
Prints a table and writes JSON (bench/results/soak_bench.json). Linux only.

    python bench/soak_bench.py [--repos 100] [--commits 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

from results import RESULTS_DIR, write_results

from repodaily.demo.repo_builder import RepoBuilder

_SRC = Path(__file__).resolve().parent.parent / "src"
FIRST = date(2026, 2, 2)
DAYS = 7
SAMPLE_S = 0.02


def _build(root: Path, repos: int, commits: int) -> list[Path]:
    """``repos`` repositories under ``root`` with ``commits`` commits a day; reused when already there."""
    paths = []
    for n in range(repos):
        path = root / f"repo-{n:03d}"
        paths.append(path)
        if (path / ".git").is_dir():
            continue
        builder = RepoBuilder(path)
        for offset in range(DAYS):
            day = FIRST + timedelta(days=offset)
            for k in range(commits):
                when = datetime(day.year, day.month, day.day, 9 + k, tzinfo=UTC)
                body = "".join(f"def step_{offset}_{i}(x):\n    return x + {i}\n" for i in range(k + 2))
                builder.commit(
                    f"Add step {offset}.{k} to module {n}",
                    when=when,
                    files={f"src/mod{n}/part{k}.py": body, "README.md": f"Day {day}, change {k}\n"},
                )
    return paths


def _config(path: Path, repos: list[Path], output: Path, at_once: int) -> None:
    lines = [
        'timezone = "UTC"',
        f'cache_dir = "{path.parent / "cache"}"',
        "[analyzer]",
        'name = "heuristic"',
        "[run]",
        f"repositories = {at_once}",
        "[output]",
        f'dir = "{output}"',
    ]
    for n, repo in enumerate(repos):
        lines += ["[[repos]]", f'name = "soak/repo-{n:03d}"', f'path = "{repo}"']
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def _rss_bytes(pid: int) -> int | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    except (FileNotFoundError, ProcessLookupError):
        return None
    return None


def _descriptors(pid: int) -> int | None:
    try:
        return len(os.listdir(f"/proc/{pid}/fd"))
    except (FileNotFoundError, ProcessLookupError):
        return None


def _soak(config: Path) -> dict[str, object]:
    """Run the CLI on ``config``, sampling it; wall seconds and the halves' peaks."""
    env = {**os.environ, "PYTHONPATH": str(_SRC)}
    argv = [sys.executable, "-m", "repodaily", "run", "--config", str(config)]
    argv += ["--since", str(FIRST), "--until", str(FIRST + timedelta(days=DAYS - 1))]
    samples: list[tuple[float, int, int]] = []
    log = config.with_name("stderr.log")
    with log.open("wb") as stderr:  # a line per delivery: more than a pipe holds unread
        started = time.perf_counter()
        child = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=stderr)
        while child.poll() is None:
            rss, fds = _rss_bytes(child.pid), _descriptors(child.pid)
            if rss is not None and fds is not None:
                samples.append((time.perf_counter() - started, rss, fds))
            time.sleep(SAMPLE_S)
        wall = time.perf_counter() - started
    if child.returncode != 0:
        tail = log.read_text(encoding="utf-8", errors="replace").strip()[-500:]
        raise SystemExit(f"run exited {child.returncode}: {tail}")
    half = wall / 2
    first = [s for s in samples if s[0] < half] or samples
    second = [s for s in samples if s[0] >= half] or samples
    return {
        "wall_s": wall,
        "samples": len(samples),
        "peak_rss_mib": max(s[1] for s in samples) / 2**20,
        "rss_first_half_mib": max(s[1] for s in first) / 2**20,
        "rss_second_half_mib": max(s[1] for s in second) / 2**20,
        "fds_first_half": max(s[2] for s in first),
        "fds_second_half": max(s[2] for s in second),
        "fds_at_end": samples[-1][2],
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repos", type=int, default=100)
    parser.add_argument("--commits", type=int, default=3, help="commits per repository per day")
    parser.add_argument("--at-once", type=int, default=4, help="[run] repositories of the measured run")
    parser.add_argument("--keep", help="build (or reuse) the repositories here rather than in a temporary directory")
    parser.add_argument("--out", default=str(RESULTS_DIR / "soak_bench.json"))
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="soak-") as scratch:
        root = Path(args.keep) if args.keep else Path(scratch) / "repos"
        started = time.perf_counter()
        repos = _build(root, args.repos, args.commits)
        print(f"{len(repos)} repositories × {DAYS} days ready in {time.perf_counter() - started:.1f} s", flush=True)
        results: dict[str, dict[str, object]] = {}
        for label, at_once in (("one at a time", 1), (f"{args.at_once} at once", args.at_once)):
            work = Path(scratch) / f"run-{at_once}"
            work.mkdir()
            config = work / "repodaily.toml"
            _config(config, repos, work / "reports", at_once)
            results[label] = _soak(config)
            reports = len(list((work / "reports").rglob("*.md")))
            results[label]["reports"] = reports
    keys = ["wall_s", "peak_rss_mib", "rss_first_half_mib", "rss_second_half_mib"]
    keys += ["fds_first_half", "fds_second_half", "fds_at_end", "reports"]
    print(f"{'':<16}" + "".join(f"{k:>20}" for k in keys))
    for label, row in results.items():
        print(
            f"{label:<16}" + "".join(f"{row[k]:>20.1f}" if isinstance(row[k], float) else f"{row[k]:>20}" for k in keys)
        )
    baseline, measured = results.values()
    ratio = float(measured["wall_s"]) / float(baseline["wall_s"])  # type: ignore[arg-type]
    print(f"wall, at once / one at a time: {ratio:.2f}")
    write_results(
        args.out,
        {"repos": args.repos, "days": DAYS, "commits_per_day": args.commits, "runs": results, "wall_ratio": ratio},
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
