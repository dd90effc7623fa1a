"""A commit as GitHub's REST API gives it (``GET /repos/{owner}/{repo}/commits/{sha}``) made into a :class:`Commit`.

GitHub's ``files`` are git's first-parent diff of the commit, one entry a file,
with ``status``, exact ``additions``/``deletions`` and the ``patch``: the hunks
git prints after a file's header, from the first ``@@`` on, without the last
newline. That is what the git source keeps as ``FileChange.patch``, so the
newline is put back and the text is capped at ``max_patch_bytes`` by the same
rule (whole lines while they fit), and analyzers and receipts read the same
text whichever source read the commit.

GitHub leaves ``patch`` out in two cases, told apart by the counts: a diff too
large to show has lines counted (``patch_truncated``: the counts stay exact, the
text is gone), a binary file has none. A file with no lines and no patch that
is not binary is a pure rename or copy, a change of mode only (GitHub gives it
no blob ``sha``), or an empty file (the empty blob's ``sha``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from repodaily.models import Commit, FileChange, FileStatus
from repodaily.sources.message import parse_message

__all__ = ["commit_from", "file_change", "when"]

# GitHub's words for git's statuses; "changed" is a change of mode, "unchanged" a copy left as it was.
_STATUS = {
    "added": FileStatus.added,
    "removed": FileStatus.deleted,
    "modified": FileStatus.modified,
    "renamed": FileStatus.renamed,
    "copied": FileStatus.copied,
    "changed": FileStatus.modified,
    "unchanged": FileStatus.modified,
}
_EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"


def when(text: str) -> datetime:
    """An ISO 8601 time as GitHub writes it (``2026-02-09T02:00:00Z``), aware."""
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def file_change(entry: Mapping[str, Any], max_patch_bytes: int) -> FileChange:
    """One entry of a commit's ``files``."""
    status = _STATUS.get(str(entry.get("status")), FileStatus.modified)
    additions, deletions = int(entry.get("additions") or 0), int(entry.get("deletions") or 0)
    patch = entry.get("patch")
    counted = additions + deletions > 0
    text, truncated = _capped(patch, max_patch_bytes) if isinstance(patch, str) else ("", counted)
    textless = status in (FileStatus.renamed, FileStatus.copied) or entry.get("sha") in (None, _EMPTY_BLOB)
    return FileChange(
        path=str(entry["filename"]),
        old_path=entry.get("previous_filename") if status in (FileStatus.renamed, FileStatus.copied) else None,
        status=status,
        additions=additions,
        deletions=deletions,
        binary=patch is None and not counted and not textless,
        patch=text,
        patch_truncated=truncated,
    )


def _capped(patch: str, max_bytes: int) -> tuple[str, bool]:
    """``patch`` with its last newline, whole lines while their UTF-8 fits ``max_bytes``; and whether it was cut."""
    if not patch:
        return "", False
    kept: list[str] = []
    room = max_bytes
    # Lines end at "\n" only, as git's do: a "\r" or a form feed inside a line stays in it.
    for line in (f"{part}\n" for part in patch.removesuffix("\n").split("\n")):
        size = len(line.encode("utf-8"))
        if size > room:
            return "".join(kept), True
        kept.append(line)
        room -= size
    return "".join(kept), False


def commit_from(data: Mapping[str, Any], files: Sequence[FileChange], *, files_incomplete: bool) -> Commit:
    """The commit of a ``GET …/commits/{sha}`` answer, with ``files`` read from all its pages."""
    meta = data["commit"]
    author, committer = meta["author"], meta["committer"]
    return Commit(
        **parse_message(str(meta["message"])).message_parts(),
        sha=str(data["sha"]),
        parents=[str(parent["sha"]) for parent in data.get("parents") or []],
        author_name=str(author.get("name") or ""),
        author_email=str(author.get("email") or ""),
        authored_at=when(author["date"]),
        committer_name=str(committer.get("name") or ""),
        committed_at=when(committer["date"]),
        files=list(files),
        files_incomplete=files_incomplete,
    )
