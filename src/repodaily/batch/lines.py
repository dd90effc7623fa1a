"""Lines of a batch file: their ids, their two formats, chunks within a provider's limits, and replies read back.

OpenAI's Batch API (and ``vllm run-batch``) take a line
``{"custom_id", "method": "POST", "url": "/v1/chat/completions", "body"}``;
other providers take ``{"custom_id", "body"}`` alone (the ``slim`` format).
Output lines come back in any order, shaped
``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``
by OpenAI and vLLM alike, so they are matched to requests by ``custom_id`` only.
An output file is read a line at a time, and a line is read only up to
:data:`MAX_REPLY_LINE_BYTES`: a file of hundreds of megabytes, or one line that
long, costs no more memory than its replies.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import IO, Any, BinaryIO

from repodaily import json_input

__all__ = [
    "CHAT_COMPLETIONS",
    "MAX_BYTES",
    "MAX_LINES",
    "MAX_REPLY_LINE_BYTES",
    "ChunkWriter",
    "LineFormat",
    "Reply",
    "custom_id",
    "encode_line",
    "part_id",
    "whole_id",
    "read_replies",
]

#: OpenAI's limits on one batch's input file.
MAX_LINES = 50_000
MAX_BYTES = 100 * 1024 * 1024
#: The longest output line read as a reply: one completion is far shorter (the synchronous path reads
#: 4 MB of an answer at most); a longer line answers nothing of ours and is skipped unread.
MAX_REPLY_LINE_BYTES = 16 * 1024 * 1024
#: The endpoint every line is for: a batch file serves one endpoint.
CHAT_COMPLETIONS = "/v1/chat/completions"
_ID_PREFIX = "rd-"
_ID_HASH = 40  # hex digits after the prefix: 43 characters, within OpenAI's 64


class LineFormat(StrEnum):
    """How a request line is spelled for the provider that reads it."""

    openai = "openai"  # OpenAI's Batch API, vLLM's run-batch: method and url on every line
    slim = "slim"  # custom_id and body only


def custom_id(repo: str, sha: str, key: str) -> str:
    """The id of a commit's request: the same for the same repository, commit and cache key, 43 characters.

    A hash, so it fits the provider's 64 characters whatever a repository is
    called, and says nothing of it to a provider's dashboard.
    """
    material = json.dumps([repo, sha, key]).encode()
    return _ID_PREFIX + hashlib.sha256(material).hexdigest()[:_ID_HASH]


def part_id(whole: str, part: int) -> str:
    """The id of part ``part`` (1-based) of a map-reduce's first round, beside its commit's id ``whole``."""
    return f"{whole}-p{part}"


def whole_id(request_id: str) -> str:
    """The commit's id a part's id (:func:`part_id`) was made from."""
    return request_id.rsplit("-p", 1)[0]


def encode_line(request_id: str, body: dict[str, Any], line_format: LineFormat) -> bytes:
    """One line of a batch file, newline included, in ``line_format``."""
    line: dict[str, Any] = {"custom_id": request_id}
    if line_format == LineFormat.openai:
        line |= {"method": "POST", "url": CHAT_COMPLETIONS}
    line["body"] = body
    return json.dumps(line, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"


class ChunkWriter:
    """Writes lines into ``batch-0001.jsonl``, ``batch-0002.jsonl``… in ``directory``, each within the limits.

    A file is closed when the next line would take it past ``max_lines`` lines or
    ``max_bytes`` bytes. :meth:`close` returns each file's name, SHA-256, lines and bytes.
    """

    def __init__(self, directory: Path, *, max_lines: int = MAX_LINES, max_bytes: int = MAX_BYTES) -> None:
        if max_lines < 1 or max_bytes < 1:
            raise ValueError("max_lines and max_bytes must be positive")
        self.directory, self.max_lines, self.max_bytes = directory, max_lines, max_bytes
        self.written: list[tuple[str, str, int, int]] = []
        self._file: BinaryIO | None = None
        self._name = ""
        self._hash = hashlib.sha256()
        self._lines = self._bytes = 0

    def add(self, line: bytes) -> str:
        """Write ``line``; the name of the file it went into. A ValueError for a line no file can hold."""
        if len(line) > self.max_bytes:
            raise ValueError(f"a line of {len(line)} bytes exceeds the {self.max_bytes} bytes of a batch file")
        if self._file is not None and (self._lines == self.max_lines or self._bytes + len(line) > self.max_bytes):
            self._finish()
        if self._file is None:
            self._name = f"batch-{len(self.written) + 1:04d}.jsonl"
            self._file = (self.directory / self._name).open("wb")
            self._hash, self._lines, self._bytes = hashlib.sha256(), 0, 0
        self._file.write(line)
        self._hash.update(line)
        self._lines += 1
        self._bytes += len(line)
        return self._name

    def close(self) -> list[tuple[str, str, int, int]]:
        """Close the last file; (name, sha256, lines, bytes) of every file written."""
        if self._file is not None:
            self._finish()
        return self.written

    def _finish(self) -> None:
        assert self._file is not None
        self._file.close()
        self._file = None
        self.written.append((self._name, self._hash.hexdigest(), self._lines, self._bytes))


@dataclass(frozen=True)
class Reply:
    """What a batch said to one request: the chat-completions body, or why there is none."""

    custom_id: str
    body: dict[str, Any] | None
    error: str | None


def read_replies(stream: IO[bytes]) -> Iterator[Reply | None]:
    """Each line of an output or error file, read into a :class:`Reply`; None for a line that is not one.

    A line is not a reply when it is not a JSON object naming its ``custom_id``
    (cut short, not UTF-8, another file's) or is longer than :data:`MAX_REPLY_LINE_BYTES`.
    A response with a status other than 200, an ``error`` object, or no body is a
    reply with an error: its request goes to the synchronous path.
    """
    while (raw := _next_line(stream)) != b"":
        if raw is None:
            yield None
            continue
        if not raw.strip():
            continue
        try:
            line = json_input.loads(raw)
        except ValueError:
            line = None
        yield _reply(line) if isinstance(line, dict) and isinstance(line.get("custom_id"), str) else None


def _next_line(stream: IO[bytes]) -> bytes | None:
    """The next line of ``stream``; b"" at its end; None for a line over the cap, read past without keeping it."""
    raw = stream.readline(MAX_REPLY_LINE_BYTES + 1)
    if len(raw) <= MAX_REPLY_LINE_BYTES:
        return raw
    while not raw.endswith(b"\n") and raw:
        raw = stream.readline(1 << 20)
    return None


def _reply(line: dict[str, Any]) -> Reply:
    request_id: str = line["custom_id"]
    response = line.get("response")
    error = line.get("error")
    if error:
        message = error.get("message") if isinstance(error, dict) else str(error)
        return Reply(request_id, None, str(message or "failed"))
    if not isinstance(response, dict):
        return Reply(request_id, None, "no response")
    status = response.get("status_code", 200)
    body = response.get("body", response if "choices" in response else None)
    if status != 200 or not isinstance(body, dict):
        detail = body.get("error") if isinstance(body, dict) else None
        message = detail.get("message") if isinstance(detail, dict) else detail
        return Reply(request_id, None, f"HTTP {status}" + (f": {message}" if message else ""))
    return Reply(request_id, body, None)
