"""Partial clones: a commit whose blobs are absent, rebuilt from what the repository does hold."""

from __future__ import annotations

import io
import os
import re
from pathlib import Path

from repodaily.models import Commit, FileStatus
from repodaily.sources.git.blobs import missing_objects
from repodaily.sources.git.commits import ParsedCommit, parse_log
from repodaily.sources.git.patch import FileDraft, parse_files
from repodaily.sources.git.process import run_git
from repodaily.sources.git.stream import DIFF_OPTIONS, HEADER_LOG, LineReader

_RAW_STATUS = {"A": FileStatus.added, "D": FileStatus.deleted}
_NULL_OID = re.compile(r"^0+$")


def commit_with_missing_blobs(git_dir: Path, parsed: ParsedCommit, max_patch_bytes: int) -> Commit | None:
    """The commit git could not diff, rebuilt around the blobs it lacks; None when none are lacking.

    Files whose content is present get their patch as usual; each absent one is
    listed with its status and ``content_missing`` set, counts unknown (0).
    """
    header = parsed.header
    trees = [header.parents[0], header.sha] if header.parents else ["--root", header.sha]
    raw = run_git(["diff-tree", "-r", "-z", "--no-abbrev", "--no-renames", *trees], git_dir=git_dir)
    entries = _raw_entries(raw.stdout)
    oids = {oid for _, old, new, _ in entries for oid in (old, new) if not _NULL_OID.match(oid)}
    missing = missing_objects(git_dir, oids)
    absent = [(status, path) for status, old, new, path in entries if old in missing or new in missing]
    if not absent:
        return None
    excludes = [f":(exclude,literal){os.fsdecode(path)}" for _, path in absent]
    diff = run_git(["diff-tree", "-r", "-p", *DIFF_OPTIONS, *trees, "--", *excludes], git_dir=git_dir)
    if diff.returncode != 0:
        return None
    lines = LineReader(io.BytesIO(diff.stdout), max_patch_bytes)
    present, _ = parse_files(lines, lines.line(), max_patch_bytes)
    unreadable = [
        FileDraft(path=path, max_patch_bytes=max_patch_bytes, status=status, content_missing=True)
        for status, path in absent
    ]
    return ParsedCommit(header, sorted(present + unreadable, key=lambda draft: draft.path)).commit()


def commit_by_sha_with_missing_blobs(git_dir: Path, sha: str, max_patch_bytes: int) -> Commit | None:
    """:func:`commit_with_missing_blobs` for a commit git printed nothing of: its header is read alone.

    git fetches what a diff lacks from a partial clone's remote before it prints the
    commit (renames are found by comparing contents), so when that fetch fails, git
    dies with none of the commit printed.
    """
    headers = run_git(HEADER_LOG, git_dir=git_dir, stdin=f"{sha}\n".encode("ascii"))
    lines = LineReader(io.BytesIO(headers.stdout), max_patch_bytes)
    parsed = next(parse_log(lines, max_patch_bytes), None)
    return None if parsed is None else commit_with_missing_blobs(git_dir, parsed, max_patch_bytes)


def _raw_entries(raw: bytes) -> list[tuple[FileStatus, str, str, bytes]]:
    """(status, old blob, new blob, path) from ``git diff-tree --raw -z --no-renames``."""
    fields = raw.split(b"\x00")
    entries = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        _, _, old, new, status = meta.decode("ascii").split(" ")
        entries.append((_RAW_STATUS.get(status[:1], FileStatus.modified), old, new, path))
    return entries
