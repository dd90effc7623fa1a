"""Benchmark: a URL repository mirrored in full against a blobless partial mirror.

The history (default: vllm-project/vllm, its branch as it stood at the end of
2026-02-05, Asia/Shanghai) is copied into a temporary bare repository and served
over file:// by git's own upload-pack, with `uploadpack.allowFilter` on (the
blobless mirror a URL now gets) or off (the full mirror a server without filters
gets). For each mirror, on an empty cache directory:

  clone    open_repository: the clone, in seconds, and `du` of the mirror's git dir
  window   collect_commits over the 30 days ending that day; the blobless mirror
           first fetches the window's blobs, one request per 200 commits
  again    the same window once more: every blob it needs is in the mirror now
  after    `du` of the mirror once the window has been read, and the blobs it holds
  day      collect_commits over the window's last day alone, on a second fresh
           mirror: what a daily run reads

Times are medians of --runs rounds (a fresh cache each), the kinds alternating.
The commits read through both mirrors (files, patches, counts) must be equal.
Prints a table and writes JSON (bench/results/mirror_bench.json).

    REPODAILY_VLLM_REPO=/path/to/vllm.git python bench/mirror_bench.py [--until 2026-02-05] [--runs 3]

The public vLLM history lacks two blobs added after 2026-02-05; a full clone
cannot be served past them, so the served branch ends on the window's last day.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date, datetime, timedelta
from pathlib import Path
from zoneinfo import ZoneInfo

from results import RESULTS_DIR, history_parser, write_results

from repodaily.models import Commit
from repodaily.plan import day_window
from repodaily.sources.git import collect_commits, open_repository

Window = tuple[datetime, datetime]
KINDS = {"full": False, "blobless": True}  # the kind of mirror → the server's uploadpack.allowFilter


def _git(git_dir: Path, *args: str, stdin: str | None = None) -> str:
    result = subprocess.run(["git", f"--git-dir={git_dir}", *args], input=stdin, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"git {' '.join(args)}: {result.stderr.strip()}")
    return result.stdout.strip()


def _serve(history: str, branch: str, until: str, served: Path) -> str:
    """A bare copy of ``history`` whose one branch is ``branch`` as of ``until``; its tip."""
    subprocess.run(["git", "clone", "-q", "--mirror", history, str(served)], check=True)
    tip = _git(served, "rev-list", "-1", "--first-parent", f"--until={until}", branch)
    _git(served, "update-ref", "--stdin", stdin=_git(served, "for-each-ref", "--format=delete %(refname)") + "\n")
    _git(served, "update-ref", f"refs/heads/{branch}", tip)
    _git(served, "symbolic-ref", "HEAD", f"refs/heads/{branch}")
    return tip


def _disk(path: Path) -> int:
    """Bytes on disk under ``path``, as `du` counts them."""
    return int(
        subprocess.run(["du", "-s", "-B1", str(path)], capture_output=True, text=True, check=True).stdout.split()[0]
    )


def _blobs(git_dir: Path) -> int:
    """How many blobs the repository holds (listing what is there fetches nothing)."""
    listing = _git(git_dir, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype)")
    return listing.split().count("blob")


def _round(url: str, cache: Path, window: Window, day: Window, branch: str) -> tuple[dict[str, float], list[Commit]]:
    """Clone, read the window, read it again; the day on a mirror of its own: seconds and bytes, and the commits."""
    started = time.perf_counter()
    mirror = open_repository(url, cache_dir=cache / "window", branch=branch)
    figures = {"clone_s": time.perf_counter() - started, "clone_bytes": _disk(mirror.git_dir)}
    started = time.perf_counter()
    commits = collect_commits(mirror, *window)
    figures["window_s"] = time.perf_counter() - started
    started = time.perf_counter()
    collect_commits(mirror, *window)
    figures["again_s"] = time.perf_counter() - started
    figures["after_bytes"] = _disk(mirror.git_dir)
    figures["after_blobs"] = _blobs(mirror.git_dir)
    daily = open_repository(url, cache_dir=cache / "day", branch=branch)
    started = time.perf_counter()
    collect_commits(daily, *day)
    figures["day_s"] = time.perf_counter() - started
    return figures, commits


def main() -> int:
    parser = history_parser(__doc__)
    parser.add_argument("--branch", default="main")
    parser.add_argument("--until", default="2026-02-05", help="last day of the window")
    parser.add_argument("--days", type=int, default=30)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--out", default=str(RESULTS_DIR / "mirror_bench.json"))
    args = parser.parse_args()
    if not args.repo:
        print("REPODAILY_VLLM_REPO is not set (nor --repo): skipped")
        return 0
    tz = ZoneInfo(args.timezone)
    last = date.fromisoformat(args.until)
    window = (day_window(last - timedelta(days=args.days - 1), tz).start, day_window(last, tz).end)
    day = (day_window(last, tz).start, window[1])
    with tempfile.TemporaryDirectory(prefix="mirror-bench-") as scratch:
        served = Path(scratch) / "served.git"
        tip = _serve(args.repo, args.branch, window[1].isoformat(), served)
        rounds: dict[str, list[dict[str, float]]] = {kind: [] for kind in KINDS}
        read: dict[str, list[Commit]] = {}
        for run in range(args.runs):
            for kind, allow_filter in KINDS.items():
                _git(served, "config", "uploadpack.allowFilter", str(allow_filter).lower())
                cache = Path(scratch) / f"{kind}-{run}"
                figures, read[kind] = _round(served.as_uri(), cache, window, day, args.branch)
                rounds[kind].append(figures)
    if read["full"] != read["blobless"]:
        raise SystemExit("the commits read through the two mirrors differ")
    medians = {kind: {key: statistics.median(r[key] for r in runs) for key in runs[0]} for kind, runs in rounds.items()}

    mib = 1 << 20
    day_commits = sum(1 for commit in read["full"] if commit.committed_at >= day[0])
    print(f"{len(read['full'])} commits, {window[0].date()} .. {last} ({day_commits} on {last}), tip {tip[:12]}")
    print("the commits read through both mirrors are identical")
    print(
        f"{'mirror':<9} {'clone s':>8} {'clone MiB':>10} {'window s':>9} {'again s':>8} {'after MiB':>10} "
        f"{'blobs':>7} {'day s':>6}"
    )
    for kind, m in medians.items():
        print(
            f"{kind:<9} {m['clone_s']:>8.1f} {m['clone_bytes'] / mib:>10.1f} {m['window_s']:>9.1f} "
            f"{m['again_s']:>8.1f} {m['after_bytes'] / mib:>10.1f} {m['after_blobs']:>7.0f} {m['day_s']:>6.2f}"
        )
    write_results(
        args.out,
        {
            "repo": args.repo,
            "branch": args.branch,
            "tip": tip,
            "window": [window[0].isoformat(), window[1].isoformat()],
            "commits": len(read["full"]),
            "day_commits": day_commits,
            "identical": True,
            "runs": args.runs,
            "median": medians,
            "rounds": rounds,
        },
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
