"""A blobless mirror's absent blobs: the ones a run of commits' diffs need, fetched in one request.

A blobless mirror holds commits and trees. Left alone, ``git log -p`` would fetch
what it lacks commit by commit, one request each: dozens for a day of vLLM,
hundreds for a month. So before the diffs of a run of commits are read, their
trees are compared (which needs no blob), the blobs on either side that are absent
are listed without fetching them, and one ``git fetch`` brings them all.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Sequence
from pathlib import Path

from repodaily.sources.git.process import git_reason, run_git
from repodaily.sources.git.repository import GitRepository, origin_env

# Each commit against its first parent, as the patch stream reads it, without renames:
# a renamed file's two blobs are then listed as a deletion and an addition.
_RAW_LOG = [
    "log",
    "--no-walk=unsorted",
    "--stdin",
    "--root",
    "--diff-merges=first-parent",
    "--no-show-signature",
    "--format=",
    "--raw",
    "--no-renames",
    "--no-abbrev",
]
_NULL_OID = re.compile(r"^0+$")
# A submodule entry names a commit of another repository, never a blob of this one.
_GITLINK_MODE = "160000"

log = logging.getLogger(__name__)


def fetch_absent_blobs(repo: GitRepository, shas: Sequence[str]) -> bool:
    """Fetch, in one request, every blob the diffs of ``shas`` need that a blobless mirror lacks.

    Nothing happens for any other repository. False when the fetch failed, which
    is one log line: the diffs are then read with what the mirror holds, and a file
    whose content is absent is marked so (see ``partial``), as in a report run offline.
    """
    if repo.blob_url is None or not shas:
        return True
    absent = sorted(missing_objects(repo.git_dir, _diff_blobs(repo.git_dir, shas)))
    if not absent:
        return True
    # git's own lazy fetch skips negotiation the same way: the wants are blobs, not history.
    fetched = run_git(
        ["-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags", "--no-write-fetch-head"]
        + ["--stdin", "origin"],
        git_dir=repo.git_dir,
        env=origin_env(repo.blob_url, repo.remote_url or repo.blob_url),
        stdin="".join(f"{oid}\n" for oid in absent).encode("ascii"),
    )
    if fetched.returncode != 0:
        log.warning(
            "cannot fetch %d file contents from %s: %s", len(absent), repo.remote_url, git_reason(fetched.stderr)
        )
    return fetched.returncode == 0


def missing_objects(git_dir: Path, oids: Iterable[str]) -> set[str]:
    """Those of ``oids`` the repository does not hold, found without fetching any.

    ``git cat-file`` would fetch each absent object of a partial clone on the way;
    ``git rev-list --missing`` never fetches, and ``--ignore-missing`` skips what is absent.
    """
    wanted = set(oids)
    if not wanted:
        return set()
    listing = run_git(
        ["rev-list", "--objects", "--no-walk", "--missing=print", "--ignore-missing", "--stdin"],
        git_dir=git_dir,
        stdin="".join(f"{oid}\n" for oid in wanted).encode("ascii"),
    )
    present = {line.split(" ", 1)[0] for line in listing.stdout.decode("ascii", "replace").splitlines()}
    return wanted - present


def _diff_blobs(git_dir: Path, shas: Sequence[str]) -> set[str]:
    """The blobs on both sides of every file each of ``shas`` changes against its first parent."""
    raw = run_git(_RAW_LOG, git_dir=git_dir, stdin="".join(f"{sha}\n" for sha in shas).encode("ascii"))
    blobs = set()
    for line in raw.stdout.decode("utf-8", "replace").splitlines():
        if not line.startswith(":"):
            continue
        old_mode, new_mode, old, new, _ = line[1:].split("\t", 1)[0].split(" ")
        for mode, oid in ((old_mode, old), (new_mode, new)):
            if mode != _GITLINK_MODE and not _NULL_OID.match(oid):
                blobs.add(oid)
    return blobs
