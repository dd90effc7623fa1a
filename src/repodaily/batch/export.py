"""``batch export``: every commit a report of the days would analyse, not yet cached, as batch request lines.

The commits, their inputs and cache keys come from the pipeline
(:meth:`~repodaily.pipeline.Pipeline.pending_inputs`), as a report builds them;
each line's body is the analyzer's :meth:`~repodaily.analyzers.base.BatchAnalyzer.batch_request`.
A commit no single request judges (a map-reduce) or whose line no batch file
can hold is kept in the export without a line, for ``collect`` to analyse the
synchronous way.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

from repodaily.analyzers.base import Analyzer, BatchAnalyzer
from repodaily.batch.lines import MAX_BYTES, MAX_LINES, ChunkWriter, LineFormat, custom_id, encode_line
from repodaily.batch.manifest import MANIFEST, Chunk, Manifest, Request, RequestsFile
from repodaily.config import RepoConfig
from repodaily.errors import ConfigError
from repodaily.pipeline import Pipeline

__all__ = ["batch_form", "export"]


def batch_form(analyzer: Analyzer) -> BatchAnalyzer:
    """``analyzer`` in its batch form; a ConfigError when it has none (the heuristic)."""
    if not isinstance(analyzer, BatchAnalyzer):
        raise ConfigError(f"analyzer {analyzer.name!r} has no batch form; use --analyzer llm")
    return analyzer


@dataclass
class _Written:
    """What an export wrote so far: requests in a batch file, those left out, each repository's conventions."""

    requests: int = 0
    unbatched: int = 0
    conventions: dict[str, str | dict[str, Any] | None] = field(default_factory=dict)


async def _write_requests(
    pipeline: Pipeline,
    repos: Sequence[RepoConfig],
    days: Sequence[date],
    chunks: ChunkWriter,
    out: RequestsFile,
    line_format: LineFormat,
) -> _Written:
    written = _Written()
    for repo in repos:
        async for item in pipeline.pending_inputs(repo, days):
            analyzer = pipeline.analyzers_for(item.repo, repo.conventions)[0]
            body = batch_form(analyzer).batch_request(item)
            key = analyzer.analysis_key(item.repository, item.pull_request)
            request_id = custom_id(item.repo, item.sha, key)
            chunk = None
            if body is not None:
                try:
                    chunk = chunks.add(encode_line(request_id, body, line_format))
                except ValueError:  # too big for any batch file: asked the synchronous way
                    chunk = None
            written.conventions[item.repo] = repo.conventions
            written.requests += chunk is not None
            written.unbatched += chunk is None
            out.write(Request(custom_id=request_id, repo=item.repo, key=key, chunk=chunk, input=item))
    return written


async def export(
    pipeline: Pipeline,
    repos: Sequence[RepoConfig],
    days: Sequence[date],
    directory: Path,
    *,
    line_format: LineFormat = LineFormat.openai,
    max_lines: int = MAX_LINES,
    max_bytes: int = MAX_BYTES,
) -> Manifest:
    """Write the export of ``repos`` over ``days`` into ``directory`` (new, or without an export); its manifest."""
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ConfigError(f"{directory}: cannot create: {exc.strerror or exc}") from None
    if (directory / MANIFEST).exists():
        raise ConfigError(f"{directory} already holds an export; export into another directory")
    chunks = ChunkWriter(directory, max_lines=max_lines, max_bytes=max_bytes)
    out = RequestsFile(directory)
    try:
        written = await _write_requests(pipeline, repos, days, chunks, out, line_format)
    finally:
        files = chunks.close()
        out.close()
    config = pipeline.config
    manifest = Manifest(
        line_format=line_format,
        language=config.language,
        analyzer=config.analyzer_name,
        conventions=written.conventions,
        chunks=[Chunk(file=n, sha256=h, lines=lines, bytes=size) for n, h, lines, size in files],
        requests=written.requests,
        unbatched=written.unbatched,
    )
    manifest.write(directory)
    return manifest
