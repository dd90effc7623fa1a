"""The window: which commits landed on the branch in [start, end], and their diffs.

A window is read with two git processes whatever its length: a cheap first-parent
listing (hashes and committer timestamps) picks the exact commits, then one
``git log -p`` over those commits streams every diff. One process per commit would
be about three times slower on a real day of vLLM.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path

from repodaily.errors import SourceError
from repodaily.models import Commit
from repodaily.sources.git.commits import ParsedCommit, parse_log
from repodaily.sources.git.partial import commit_with_missing_blobs
from repodaily.sources.git.process import GitProcess
from repodaily.sources.git.repository import GitRepository, require_branch
from repodaily.sources.git.stream import PATCH_LOG, LineReader

# ``git log --since`` stops at the first commit older than the bound, and committer
# dates on a first-parent line are not monotonic (a fast-forward push can carry a
# commit made days earlier). So the listing walks past the window and only stops
# after a run of commits that are all well before it.
_WINDOW_SLACK = timedelta(days=2)
_OLD_RUN_TO_STOP = 20


def collect_commits(
    repo: GitRepository, start: datetime, end: datetime, *, max_patch_bytes: int = 1_000_000
) -> list[Commit]:
    """Commits first-parent on ``repo.branch`` whose committer date is in [start, end], newest first.

    ``start`` and ``end`` must be timezone-aware. Each commit carries its diff against
    its first parent (merges included), patches cut at ``max_patch_bytes`` per file.
    A many-day window costs the same two git processes as a single day, so callers
    that need many days collect once and split by ``committed_at``.
    """
    if start.tzinfo is None or end.tzinfo is None:
        raise ValueError("start and end must be timezone-aware datetimes")
    ref = require_branch(repo.git_dir, repo.branch, str(repo.git_dir))
    shas = _shas_in_window(repo.git_dir, ref, start, end)
    return _read_commits(repo.git_dir, shas, max_patch_bytes) if shas else []


def _shas_in_window(git_dir: Path, ref: str, start: datetime, end: datetime) -> list[str]:
    """First-parent SHAs committed in [start, end], newest first, from a listing without diffs."""
    first, last = start.timestamp(), end.timestamp()
    stop_before = (start - _WINDOW_SLACK).timestamp()
    shas: list[str] = []
    old_run = 0
    args = ["log", "--first-parent", "--no-show-signature", "--format=%H %ct", ref, "--"]
    with GitProcess(args, git_dir=git_dir) as git:
        for line in git.stdout:
            sha, _, stamp = line.decode("ascii", "replace").strip().partition(" ")
            # git prints no %ct for a committer line it cannot parse, and dates it at the epoch.
            committed = int(stamp) if stamp.isdigit() else 0
            if first <= committed <= last:
                shas.append(sha)
            old_run = old_run + 1 if committed < stop_before else 0
            if old_run >= _OLD_RUN_TO_STOP:
                return shas
        error = git.error()
    if error is not None:
        raise SourceError(f"cannot list commits of {ref} in {git_dir}: {error}")
    return shas


def _read_commits(git_dir: Path, shas: list[str], max_patch_bytes: int) -> list[Commit]:
    """Every commit of ``shas``, in that order, from one ``git log -p`` stream.

    When git dies inside a commit because blobs are absent (a partial clone that
    cannot reach its remote), that commit is rebuilt without them and the stream
    resumes after it; any other failure is a SourceError.
    """
    commits: list[Commit] = []
    while len(commits) < len(shas):
        todo = shas[len(commits) :]
        with GitProcess(PATCH_LOG, git_dir=git_dir, stdin="\n".join(todo).encode("ascii") + b"\n") as git:
            last: ParsedCommit | None = None
            for parsed in parse_log(LineReader(git.stdout, max_patch_bytes), max_patch_bytes):
                if last is not None:
                    commits.append(last.commit())
                last = parsed
            error = git.error()
        if error is None and last is not None:
            commits.append(last.commit())
        elif last is None or (rescued := commit_with_missing_blobs(git_dir, last, max_patch_bytes)) is None:
            raise SourceError(f"cannot read diffs in {git_dir}: {error or 'git printed no commits'}")
        else:
            commits.append(rescued)
    if [c.sha for c in commits] != shas:
        raise SourceError(f"git returned other commits than asked in {git_dir}")
    return commits
