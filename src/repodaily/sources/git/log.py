"""The window: which commits landed on the branch in [start, end], and their diffs.

A span of windows is read with few git processes whatever its length: a cheap
first-parent listing (hashes and committer timestamps) picks the exact commits,
then ``git log -p`` over those commits streams every diff, a fresh process per
few hundred commits so git's own memory stays bounded. One process per commit
would be about three times slower on a real day of vLLM.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from datetime import datetime, timedelta
from pathlib import Path

from repodaily.errors import SourceError
from repodaily.models import Commit
from repodaily.sources.git.blobs import fetch_absent_blobs
from repodaily.sources.git.commits import ParsedCommit, parse_log
from repodaily.sources.git.partial import commit_by_sha_with_missing_blobs, commit_with_missing_blobs
from repodaily.sources.git.process import GitProcess, git_text_or_none
from repodaily.sources.git.repository import GitRepository, require_branch
from repodaily.sources.git.stream import PATCH_LOG, LineReader
from repodaily.sources.windows import bucket, check_windows

# ``git log --since`` stops at the first commit older than the bound, and committer
# dates on a first-parent line are not monotonic (a fast-forward push can carry a
# commit made days earlier). So the listing walks past the window and only stops
# after a run of commits that are all well before it.
_WINDOW_SLACK = timedelta(days=2)
_OLD_RUN_TO_STOP = 20
# git keeps every commit and tree it has diffed, so one ``git log -p`` over a year of
# vLLM grows past 250 MB; a fresh process per this many commits stays near 90 MB. A
# fresh process is not free: it starts with cold caches and inflates again the trees
# its predecessor had at hand, about 50 ms of git's CPU each on vLLM (per 200 commits
# git stays near 65 MB but spends 15% more CPU over a month).
_COMMITS_PER_PROCESS = 500


def collect_commits(
    repo: GitRepository, start: datetime, end: datetime, *, max_patch_bytes: int = 1_000_000
) -> list[Commit]:
    """Commits first-parent on ``repo.branch`` whose committer date is in [start, end], newest first.

    ``start`` and ``end`` must be timezone-aware. Each commit carries its diff against
    its first parent (merges included), patches cut at ``max_patch_bytes`` per file.
    Callers that report day by day use :func:`collect_days`, which holds one day in
    memory at a time.
    """
    [(_, commits)] = collect_days(repo, [(start, end)], max_patch_bytes=max_patch_bytes)
    return commits


def collect_days(
    repo: GitRepository, windows: Sequence[tuple[datetime, datetime]], *, max_patch_bytes: int = 1_000_000
) -> Generator[tuple[int, list[Commit]], None, None]:
    """Each window's commits, newest first, one window at a time: ``(index into windows, commits)``.

    ``windows`` are inclusive, timezone-aware (start, end) pairs in ascending order
    that do not overlap (report days). The whole span costs one listing and one
    ``git log -p`` per :data:`_COMMITS_PER_PROCESS` commits however many windows
    it has, and the stream is consumed one window at a time, so memory holds one
    day of diffs, not the span's: a ten-year backfill peaks where a single day
    does. Closing the iterator early ends the git process behind it.
    """
    check_windows(windows)
    if not windows:
        return
    ref = require_branch(repo.git_dir, repo.branch, str(repo.git_dir))
    buckets = bucket(_listed(repo.git_dir, ref, windows[0][0], windows[-1][1]), windows)
    ordered = [sha for shas in buckets for sha in shas]
    stream = _stream_commits(repo, ordered, max_patch_bytes)
    try:
        for index, shas in enumerate(buckets):
            yield index, [next(stream) for _ in shas]
    finally:
        stream.close()


def _listed(git_dir: Path, ref: str, start: datetime, end: datetime) -> list[tuple[str, int]]:
    """(SHA, committer timestamp) of first-parent commits in [start, end], newest first, without diffs."""
    first, last = start.timestamp(), end.timestamp()
    stop_before = (start - _WINDOW_SLACK).timestamp()
    listed: list[tuple[str, int]] = []
    old_run = 0
    oldest = ("", 0)
    args = ["log", "--first-parent", "--no-show-signature", "--format=%H %ct", ref, "--"]
    with GitProcess(args, git_dir=git_dir) as git:
        for line in git.stdout:
            sha, _, stamp = line.decode("ascii", "replace").strip().partition(" ")
            # git prints no %ct for a committer line it cannot parse, and dates it at the epoch.
            committed = int(stamp) if stamp.isdigit() else 0
            if first <= committed <= last:
                listed.append((sha, committed))
            old_run = old_run + 1 if committed < stop_before else 0
            if old_run >= _OLD_RUN_TO_STOP:
                return listed
            oldest = (sha, committed)
        error = git.error()
    if error is not None:
        raise SourceError(f"cannot list commits of {ref} in {git_dir}: {error}")
    if oldest[1] >= first and _is_shallow_boundary(git_dir, oldest[0]):
        cut = datetime.fromtimestamp(oldest[1], start.tzinfo).isoformat(sep=" ")
        raise SourceError(
            f"the history of {ref} in {git_dir} is cut at {oldest[0][:7]} ({cut}), a shallow clone's boundary, "
            "on or after the first day asked: the commits before it and its own diff are unknown; "
            "fetch the history (git fetch --unshallow, or --shallow-since)"
        )
    return listed


def _is_shallow_boundary(git_dir: Path, sha: str) -> bool:
    """Whether ``sha`` is where a shallow clone's history stops: git shows it parentless, its diff the whole tree.

    A CI checkout is shallow by default (one commit deep): read as it is, a day
    cut there would look complete, fewer commits and one of them adding every file.
    """
    shallow = git_text_or_none(["rev-parse", "--git-path", "shallow"], git_dir=git_dir)
    if shallow is None:
        return False
    try:
        return sha.encode("ascii") in (git_dir / shallow).read_bytes().split()
    except OSError:  # no such file: not shallow
        return False


def _stream_commits(repo: GitRepository, shas: list[str], max_patch_bytes: int) -> Generator[Commit, None, None]:
    """Every commit of ``shas``, in that order, streamed by ``git log -p``, each as soon as it is read.

    A new git process takes over every :data:`_COMMITS_PER_PROCESS` commits; a
    blobless mirror first fetches the blobs those commits' diffs need, in one
    request. When git dies inside a commit because blobs are absent (a partial
    clone that cannot reach its remote, or a damaged repository), that commit is
    rebuilt without them and the stream resumes after it; any other failure is a
    SourceError.
    """
    git_dir = repo.git_dir
    done = 0
    fetching = True  # until a fetch fails: the remote is not tried again for every restart
    while done < len(shas):
        end = min(done + _COMMITS_PER_PROCESS, len(shas))
        todo = shas[done:end]
        fetching = fetching and fetch_absent_blobs(repo, todo)
        with GitProcess(PATCH_LOG, git_dir=git_dir, stdin="\n".join(todo).encode("ascii") + b"\n") as git:
            last: ParsedCommit | None = None
            for parsed in parse_log(LineReader(git.stdout, max_patch_bytes), max_patch_bytes):
                if last is not None:
                    yield _expected(last.commit(), shas[done], git_dir)
                    done += 1
                last = parsed
            error = git.error()
        if error is None and last is not None:
            commit = last.commit()
        else:
            commit = _after_failure(git_dir, last, shas[done], done + 1 < end, max_patch_bytes, error)
        yield _expected(commit, shas[done], git_dir)
        done += 1


def _after_failure(
    git_dir: Path, last: ParsedCommit | None, sha: str, more_asked: bool, max_patch_bytes: int, error: str | None
) -> Commit:
    """Commit ``sha`` after git stopped early: rebuilt around the blobs it lacks, or whole.

    git dies inside the diff of a commit whose blob it cannot read, so the last
    commit printed is that one. But a partial clone fetches a commit's absent blobs
    before printing it: when that fetch fails, the last commit printed is whole (it
    lacks nothing), and the next process dies before printing anything.
    """
    if last is not None:
        rescued = commit_with_missing_blobs(git_dir, last, max_patch_bytes)
        if rescued is None and more_asked:
            return last.commit()
    else:
        rescued = None if error is None else commit_by_sha_with_missing_blobs(git_dir, sha, max_patch_bytes)
    if rescued is None:
        raise SourceError(f"cannot read diffs in {git_dir}: {error or 'git printed no commits'}")
    return rescued


def _expected(commit: Commit, sha: str, git_dir: Path) -> Commit:
    if commit.sha != sha:
        raise SourceError(f"git returned other commits than asked in {git_dir}")
    return commit
