"""Files and hunks: one commit's diff read into per-file drafts with exact counts and a capped patch."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from repodaily.errors import SourceError
from repodaily.models import FileChange, FileStatus
from repodaily.sources.git.stream import HEADER_START, LineReader, decode

_HUNK_RE = re.compile(rb"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_QUOTE_ESCAPES = {
    ord("a"): b"\a",
    ord("b"): b"\b",
    ord("f"): b"\f",
    ord("n"): b"\n",
    ord("r"): b"\r",
    ord("t"): b"\t",
    ord("v"): b"\v",
    ord('"'): b'"',
    ord("\\"): b"\\",
}


@dataclass
class FileDraft:
    """One file's diff while it is being read: paths as bytes, counts, and the kept patch."""

    path: bytes
    max_patch_bytes: int
    old_path: bytes | None = None
    status: FileStatus = FileStatus.modified
    binary: bool = False
    content_missing: bool = False
    additions: int = 0
    deletions: int = 0
    patch: list[bytes] = field(default_factory=list)
    patch_size: int = 0
    truncated: bool = False

    def keep(self, line: bytes) -> None:
        """Add a patch line while it fits the cap; after the first that does not, keep nothing more."""
        if self.truncated:
            return
        if self.patch_size + len(line) > self.max_patch_bytes:
            self.truncated = True
            return
        self.patch.append(line)
        self.patch_size += len(line)

    def finish(self, issues: list[str]) -> FileChange:
        path = _decode_path(self.path, issues)
        return FileChange(
            path=path,
            old_path=_decode_path(self.old_path, issues) if self.old_path is not None else None,
            status=self.status,
            additions=self.additions,
            deletions=self.deletions,
            binary=self.binary,
            patch=decode(b"".join(self.patch), f"patch:{path}", issues),
            patch_truncated=self.truncated,
            content_missing=self.content_missing,
        )


def _decode_path(raw: bytes, issues: list[str]) -> str:
    """A path's text; a non-UTF-8 path is noted as ``path:<its text with replacements>``."""
    text = raw.decode("utf-8", "replace")
    return decode(raw, f"path:{text}", issues)


def parse_files(lines: LineReader, line: bytes, max_patch_bytes: int) -> tuple[list[FileDraft], bytes]:
    """The file sections of one commit's diff; returns them and the next commit's first line."""
    files: list[FileDraft] = []
    while line and not line.startswith(HEADER_START):
        if line.startswith(b"diff --git "):
            draft, line = _parse_file(lines, line, max_patch_bytes)
            files.append(draft)
        else:
            line = lines.line()
    return files, line


def _parse_file(lines: LineReader, diff_line: bytes, max_patch_bytes: int) -> tuple[FileDraft, bytes]:
    """One file's section, from its ``diff --git`` line; returns it and the first line after it."""
    path = _diff_git_path(diff_line[len(b"diff --git ") :].rstrip(b"\n"))
    draft = FileDraft(path=path, max_patch_bytes=max_patch_bytes)
    line = lines.line()
    while line and not line.startswith((b"diff --git ", HEADER_START)):
        if line.startswith(b"@@"):
            line = _parse_hunk(lines, line, draft)
            continue
        if line.startswith(b"\\"):  # "\ No newline at end of file" after a hunk's last line
            draft.keep(line)
        elif line.startswith(b"new file mode "):
            draft.status = FileStatus.added
        elif line.startswith(b"deleted file mode "):
            draft.status = FileStatus.deleted
        elif line.startswith(b"rename from "):
            draft.status, draft.old_path = FileStatus.renamed, _path_token(line[len(b"rename from ") :])
        elif line.startswith(b"rename to "):
            draft.path = _path_token(line[len(b"rename to ") :])
        elif line.startswith(b"Binary files "):
            draft.binary = True
        line = lines.line()
    return draft, line


def _parse_hunk(lines: LineReader, hunk_header: bytes, draft: FileDraft) -> bytes:
    """Count and keep one hunk, reading exactly the lines its header announces.

    Counting by the header rather than by a line's first character means content
    that looks like a header (``diff --git`` inside a patched file) cannot confuse us.
    """
    match = _HUNK_RE.match(hunk_header)
    if match is None:
        raise SourceError(f"unreadable hunk header in git's output: {hunk_header[:80]!r}")
    old_left = int(match.group(1) or 1)
    new_left = int(match.group(2) or 1)
    draft.keep(hunk_header)
    # The loop every patch line of a history goes through: what `keep` does, on local names.
    read, kept, room = lines.line, draft.patch, draft.max_patch_bytes - draft.patch_size
    additions = deletions = 0
    while old_left > 0 or new_left > 0:
        line = read()
        if not line:
            break
        marker = line[:1]
        if marker == b"+":
            new_left -= 1
            additions += 1
        elif marker == b"-":
            old_left -= 1
            deletions += 1
        elif marker != b"\\":
            old_left -= 1
            new_left -= 1
        if not draft.truncated:
            if len(line) > room:
                draft.truncated = True
            else:
                kept.append(line)
                room -= len(line)
    draft.additions += additions
    draft.deletions += deletions
    draft.patch_size = draft.max_patch_bytes - room
    return read()


def _diff_git_path(rest: bytes) -> bytes:
    """The path named by what follows ``diff --git``: ``a/P b/P``, both sides C-quoted when P is unusual.

    Outside renames both sides are the same path, which settles paths that contain
    `` b/`` themselves. A rename names its paths again on ``rename from/to`` lines,
    which replace this guess.
    """
    if rest.startswith(b'"'):
        _, new = _unquote(rest)
        return _path_token(new.removeprefix(b" ")).removeprefix(b"b/")
    half, odd = divmod(len(rest) - len(b"a/ b/"), 2)
    same = rest[2 : 2 + half]
    if not odd and rest == b"a/" + same + b" b/" + same:
        return same
    return rest.partition(b" b/")[2]


def _path_token(raw: bytes) -> bytes:
    raw = raw.rstrip(b"\n")
    return _unquote(raw)[0] if raw.startswith(b'"') else raw


def _unquote(quoted: bytes) -> tuple[bytes, bytes]:
    """Undo git's C-quoting of a path (``"t\\303\\251st"`` → ``tést`` as bytes); returns it and what follows."""
    out = bytearray()
    i = 1
    while i < len(quoted):
        char = quoted[i]
        if char == ord('"'):
            return bytes(out), quoted[i + 1 :]
        if char == ord("\\") and i + 1 < len(quoted):
            octal = quoted[i + 1 : i + 4]
            if len(octal) == 3 and all(ord("0") <= c <= ord("7") for c in octal):
                out.append(int(octal, 8) & 0xFF)
                i += 4
                continue
            out += _QUOTE_ESCAPES.get(quoted[i + 1], quoted[i + 1 : i + 2])
            i += 2
            continue
        out.append(char)
        i += 1
    return bytes(out), b""
