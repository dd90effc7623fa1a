"""``batch submit`` and ``batch status``: each chunk of an export sent once, and how far its batch got.

A chunk is known by the SHA-256 of its bytes, per endpoint, in the store: its
uploaded file is recorded before its batch is created, and its batch the moment
the provider answers. A second ``submit`` sends nothing already sent; one after
a crash between upload and creation re-uploads nothing, and first looks for a
batch the dead run may have created over that file before it could record it.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from repodaily.batch.api import BatchAPI
from repodaily.batch.lines import LineFormat
from repodaily.batch.manifest import Chunk, Manifest
from repodaily.errors import ConfigError
from repodaily.store import Store
from repodaily.user_files import open_regular

__all__ = ["ChunkStatus", "Sent", "chunk_bytes", "status", "submit"]

#: Batch states after which nothing more will be answered.
FINISHED = frozenset({"completed", "expired", "cancelled", "failed"})


@dataclass(frozen=True)
class Sent:
    """A chunk and its batch: created by this submit (``new``), or found already sent."""

    chunk: Chunk
    batch_id: str
    new: bool


def chunk_bytes(directory: Path, chunk: Chunk) -> bytes:
    """The bytes of ``chunk``'s file, as exported; a ConfigError when it is missing or was edited since."""
    path = directory / chunk.file
    try:
        with open_regular(path) as stream:
            data = stream.read()
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if hashlib.sha256(data).hexdigest() != chunk.sha256:
        raise ConfigError(f"{path} changed since it was exported; export again into a new directory")
    return data


def submit(api: BatchAPI, store: Store, endpoint: str, directory: Path, manifest: Manifest) -> list[Sent]:
    """Send every chunk of the export not yet sent to ``endpoint`` (its base URL); each chunk's batch."""
    if manifest.line_format != LineFormat.openai:
        raise ConfigError(
            f"{directory} holds {manifest.line_format} lines, which OpenAI's Batch API does not take;"
            " export with --line-format openai to submit, or hand these files to their provider"
        )
    sent = []
    for chunk in manifest.chunks:
        known = store.batch_submission(endpoint, chunk.sha256)
        if known is not None and known.batch_id is not None:
            sent.append(Sent(chunk, known.batch_id, new=False))
            continue
        found = None
        if known is None:
            file_id = api.upload(chunk.file, chunk_bytes(directory, chunk))
            store.record_batch_file(endpoint, chunk.sha256, file_id)
        else:
            file_id = known.file_id
            found = api.created_from(file_id)
        batch = found or api.create(file_id, {"repodaily_chunk": chunk.sha256})
        store.record_batch(endpoint, chunk.sha256, str(batch["id"]))
        sent.append(Sent(chunk, str(batch["id"]), new=found is None))
    return sent


@dataclass(frozen=True)
class ChunkStatus:
    """A chunk's batch as the provider describes it; ``batch`` None when the chunk was never submitted."""

    chunk: Chunk
    batch: dict[str, Any] | None

    @property
    def state(self) -> str:
        return str(self.batch.get("status", "unknown")) if self.batch is not None else "not submitted"

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    def counts(self) -> str:
        """``completed/total, failed N`` from the batch's request_counts."""
        counts = (self.batch or {}).get("request_counts") or {}
        return f"{counts.get('completed', 0)}/{counts.get('total', self.chunk.lines)}, failed {counts.get('failed', 0)}"


def status(api: BatchAPI, store: Store, endpoint: str, manifest: Manifest) -> list[ChunkStatus]:
    """Each chunk of the export with its batch as the provider now describes it."""
    found = []
    for chunk in manifest.chunks:
        known = store.batch_submission(endpoint, chunk.sha256)
        batch = api.get(known.batch_id) if known is not None and known.batch_id is not None else None
        found.append(ChunkStatus(chunk, batch))
    return found
