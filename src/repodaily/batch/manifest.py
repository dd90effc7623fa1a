"""What an export wrote into its directory: ``manifest.json`` (small) and ``requests.jsonl`` (one input a request).

The manifest lists the chunk files with their hashes, and how the config was
read (language, analyzer, each repository's conventions), so ``collect`` builds
the same analyzer. ``requests.jsonl`` keeps each request's input as the
analyzer read it, with its cache key: ``collect`` parses a reply against that
input and stores the analysis under that key, with no git and no re-planning.
The manifest is written last, so a directory with one holds a whole export.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from repodaily.batch.lines import LineFormat
from repodaily.errors import ConfigError
from repodaily.models import AnalysisInput
from repodaily.user_files import open_regular

__all__ = ["MANIFEST", "REQUESTS", "Chunk", "Manifest", "Request", "RequestsFile", "read_manifest", "read_requests"]

MANIFEST = "manifest.json"
REQUESTS = "requests.jsonl"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Chunk(_Strict):
    """One batch file: its name in the directory, the SHA-256 of its bytes, its size.

    The name is a bare file name: ``submit`` uploads the file it names, so a
    manifest edited to name a path (``../``, ``/home/…``) must not read as one.
    """

    file: str
    sha256: str
    lines: int
    bytes: int

    @field_validator("file")
    @classmethod
    def _bare_name(cls, name: str) -> str:
        if name in ("", ".", "..") or "/" in name or "\\" in name:
            raise ValueError("a batch file is named without a directory")
        return name


class Request(_Strict):
    """One commit's request: where its reply is stored, and the input the reply is read against.

    ``chunk`` (the batch file holding its line) is None for a line too big for
    any batch file: ``collect`` analyses that commit the synchronous way.
    """

    custom_id: str
    repo: str
    key: str
    chunk: str | None = None
    input: AnalysisInput
    #: Of a map-reduce's first round: the part (1-based) this request summarises.
    part: int | None = None
    #: Of a map-reduce's second round: the parts' summaries the verdict is asked from.
    notes: list[dict[str, Any]] | None = None


class Manifest(_Strict):
    version: Literal[1] = 1
    line_format: LineFormat
    language: Literal["zh", "en"]
    analyzer: str
    #: Each repository's conventions as the config gave them (None: its preset, if any).
    conventions: dict[str, str | dict[str, Any] | None]
    chunks: list[Chunk]
    #: Requests in the export, and those left to the synchronous path.
    requests: int
    unbatched: int

    def write(self, directory: Path) -> None:
        _atomic_write(directory / MANIFEST, self.model_dump_json(indent=2).encode() + b"\n")


def _atomic_write(path: Path, data: bytes) -> None:
    partial = path.with_name(path.name + ".partial")
    partial.write_bytes(data)
    os.replace(partial, path)


class RequestsFile:
    """``requests.jsonl`` written one request at a time, in place once :meth:`close` d."""

    def __init__(self, directory: Path) -> None:
        self._path = directory / REQUESTS
        self._partial = directory / (REQUESTS + ".partial")
        self._file = self._partial.open("wb")

    def write(self, request: Request) -> None:
        self._file.write(request.model_dump_json().encode() + b"\n")

    def close(self) -> None:
        self._file.close()
        os.replace(self._partial, self._path)


def read_manifest(directory: Path) -> Manifest:
    """The export in ``directory``; a ConfigError naming the directory when there is none or it does not read."""
    path = directory / MANIFEST
    try:
        with open_regular(path) as stream:
            return Manifest.model_validate_json(stream.read())
    except FileNotFoundError:
        raise ConfigError(f"{directory}: no batch export here (no {MANIFEST}); run `repodaily batch export`") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except ValidationError as exc:
        raise ConfigError(f"{path}: not a batch manifest of this version ({exc.error_count()} errors)") from None


def read_requests(directory: Path) -> Iterator[Request]:
    """Each request of the export in ``directory``, in export order."""
    path = directory / REQUESTS
    try:
        with open_regular(path) as lines:
            for number, line in enumerate(lines, start=1):
                try:
                    yield Request.model_validate_json(line)
                except ValidationError:
                    raise ConfigError(f"{path}:{number}: not a request of this export") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
