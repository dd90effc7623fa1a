"""Commits read from a ``git log -p`` stream: headers and parsed messages, each commit with its files."""

from __future__ import annotations

import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta, timezone

from repodaily.models import Commit, FileChange
from repodaily.sources.git.patch import FileDraft, parse_files
from repodaily.sources.git.stream import HEADER_END, HEADER_START, LineReader, decode
from repodaily.sources.message import parse_message

_RAW_DATE_RE = re.compile(rb"(\d+) ([+-]\d+)")
# git stores 64-bit seconds; a datetime ends in 9999, and a moment must stay
# showable in every timezone, so the last day of 9999 is out too.
_LATEST_SECONDS = datetime(9999, 12, 30, tzinfo=UTC).timestamp()
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)

log = logging.getLogger(__name__)


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
    date_issues: list[str]


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
    date_issues: list[str] = []
    header = _Header(
        sha=sha.decode("ascii"),
        parents=parents.decode("ascii").split(),
        author_name=decode(author, "author", issues),
        author_email=decode(email, "author", issues),
        authored_at=_parse_date(authored, "author date", date_issues),
        committer_name=decode(committer, "committer", issues),
        committed_at=_parse_date(committed, "committer date", date_issues),
        message=decode(message, "message", issues),
        encoding_issues=issues,
        date_issues=date_issues,
    )
    for issue in date_issues:
        log.info("commit %s: %s", header.sha[:7], issue)
    return header


def _parse_date(raw: bytes, field_name: str, issues: list[str]) -> datetime:
    """A ``--date=raw`` date (``<seconds> <±HHMM>``) as an aware datetime, whatever the header holds.

    git keeps what a commit's writer put there. An offset that is no real one
    (minutes past 59, a day or more: ``+9999``) keeps the exact instant and reads
    as UTC. A date git cannot parse (a broken ident: a missing ``>``, no offset, a
    negative number; git prints nothing for it) or one past 9999 reads as the Unix
    epoch, where git itself puts dates it cannot use. Each oddity is described in
    ``issues``; the commit is read all the same.
    """
    match = _RAW_DATE_RE.fullmatch(raw)
    if match is None or int(match[1]) > _LATEST_SECONDS:
        problem = "git cannot parse it" if match is None else f"timestamp {match[1].decode()} is out of range"
        issues.append(f"{field_name}: {problem}; read as 1970-01-01 UTC")
        return _EPOCH
    seconds, signed = int(match[1]), int(match[2])
    hours, minutes = divmod(abs(signed), 100)
    offset = timedelta(hours=hours, minutes=minutes)
    if minutes >= 60 or offset >= timedelta(days=1):
        issues.append(f"{field_name}: offset {match[2].decode()} is not a UTC offset; read as UTC")
        return datetime.fromtimestamp(seconds, UTC)
    return datetime.fromtimestamp(seconds, timezone(-offset if signed < 0 else offset))


def _build_commit(header: _Header, files: list[FileChange], issues: list[str]) -> Commit:
    return Commit(
        **parse_message(header.message).message_parts(),
        sha=header.sha,
        parents=header.parents,
        author_name=header.author_name,
        author_email=header.author_email,
        authored_at=header.authored_at,
        committer_name=header.committer_name,
        committed_at=header.committed_at,
        files=files,
        encoding_issues=issues,
        date_issues=header.date_issues,
    )
