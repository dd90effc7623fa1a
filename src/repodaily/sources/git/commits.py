"""Commits read from a ``git log -p`` stream: headers, messages and trailers, each commit with its files."""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime

from repodaily.models import Commit, FileChange, Trailer
from repodaily.sources.git.patch import FileDraft, parse_files
from repodaily.sources.git.stream import HEADER_END, HEADER_START, LineReader, decode

_TRAILER_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*)$")
_GIT_TRAILER_KEYS = {"signed-off-by", "co-authored-by"}


@dataclass
class _Header:
    """A commit's metadata as git printed it, decoded."""

    sha: str
    parents: list[str]
    author_name: str
    author_email: str
    authored_at: datetime
    committer_name: str
    committed_at: datetime
    message: str
    encoding_issues: list[str]


@dataclass
class ParsedCommit:
    header: _Header
    files: list[FileDraft]

    def commit(self) -> Commit:
        issues = list(self.header.encoding_issues)
        files = [draft.finish(issues) for draft in self.files]
        return _build_commit(self.header, files, issues)


def parse_log(lines: LineReader, max_patch_bytes: int) -> Iterator[ParsedCommit]:
    """Commits from a ``git log -p --format=_FORMAT`` stream, each as soon as it has been read."""
    line = lines.line()
    while line:
        if not line.startswith(HEADER_START):
            line = lines.line()  # the blank line between a message and its diff
            continue
        header_lines = [line]
        while line and HEADER_END not in line:
            line = lines.whole_line()
            header_lines.append(line)
        if not line:
            return  # git stopped inside a header; its exit status tells why
        header = _parse_header(b"".join(header_lines))
        files, line = parse_files(lines, lines.line(), max_patch_bytes)
        yield ParsedCommit(header, files)


def _parse_header(raw: bytes) -> _Header:
    start, end = len(HEADER_START), raw.find(HEADER_END)
    sha, parents, author, email, authored, committer, committed, message = raw[start:end].split(b"\x00", 7)
    issues: list[str] = []
    return _Header(
        sha=sha.decode("ascii"),
        parents=parents.decode("ascii").split(),
        author_name=decode(author, "author", issues),
        author_email=decode(email, "author", issues),
        authored_at=datetime.fromisoformat(authored.decode("ascii")),
        committer_name=decode(committer, "committer", issues),
        committed_at=datetime.fromisoformat(committed.decode("ascii")),
        message=decode(message, "message", issues),
        encoding_issues=issues,
    )


def _build_commit(header: _Header, files: list[FileChange], issues: list[str]) -> Commit:
    subject, body = _split_message(header.message)
    return Commit(
        sha=header.sha,
        parents=header.parents,
        author_name=header.author_name,
        author_email=header.author_email,
        authored_at=header.authored_at,
        committer_name=header.committer_name,
        committed_at=header.committed_at,
        subject=subject,
        body=body,
        trailers=_trailers(header.message),
        files=files,
        encoding_issues=issues,
    )


def _split_message(message: str) -> tuple[str, str]:
    """Subject (the first line) and body (the rest, without surrounding blank lines)."""
    subject, _, body = message.strip("\n").partition("\n")
    return subject.rstrip(), body.lstrip("\n").rstrip()


def _trailers(message: str) -> list[Trailer]:
    """``Key: value`` lines of the message's last paragraph, as ``git interpret-trailers`` reads them.

    The paragraph counts when every line is a trailer (or continues one), or when at
    least a quarter are and one is a git-generated kind such as ``Signed-off-by``; the
    subject paragraph never does.
    """
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", message.strip()) if p.strip()]
    if len(paragraphs) < 2:
        return []
    trailers: list[Trailer] = []
    others = 0
    for line in paragraphs[-1].splitlines():
        if line[:1].isspace() and trailers:
            trailers[-1].value = f"{trailers[-1].value} {line.strip()}"
        elif match := _TRAILER_RE.match(line):
            trailers.append(Trailer(key=match.group(1), value=match.group(2).strip()))
        else:
            others += 1
    if not others:
        return trailers
    generated = any(t.key.lower() in _GIT_TRAILER_KEYS for t in trailers)
    return trailers if generated and 3 * len(trailers) >= others else []
