"""``batch export``: every commit a report of the days would analyse, not yet cached, as batch request lines.

The commits, their inputs and cache keys come from the pipeline
(:meth:`~repodaily.pipeline.Pipeline.pending_inputs`), as a report builds them;
each line's body is the analyzer's :meth:`~repodaily.analyzers.base.BatchAnalyzer.batch_request`.
A commit no single request judges (a map-reduce) gets one line per part, the
first of its two rounds (:class:`~repodaily.analyzers.base.MapReduceBatchAnalyzer`);
``collect`` writes the second. A request whose line no batch file can hold is
kept in the export without one, for ``collect`` to analyse the synchronous way.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Any, Literal

from repodaily.analyzers.base import Analyzer, BatchAnalyzer, MapReduceBatchAnalyzer
from repodaily.batch.lines import MAX_BYTES, MAX_LINES, ChunkWriter, LineFormat, custom_id, encode_line, part_id
from repodaily.batch.manifest import MANIFEST, Chunk, Manifest, Request, RequestsFile
from repodaily.config import RepoConfig
from repodaily.errors import ConfigError
from repodaily.models import AnalysisInput
from repodaily.pipeline import Pipeline

__all__ = ["ExportWriter", "batch_form", "export"]


def batch_form(analyzer: Analyzer) -> BatchAnalyzer:
    """``analyzer`` in its batch form; a ConfigError when it has none (the heuristic)."""
    if not isinstance(analyzer, BatchAnalyzer):
        raise ConfigError(f"analyzer {analyzer.name!r} has no batch form; use --analyzer llm")
    return analyzer


class ExportWriter:
    """An export directory being written: the batch files, ``requests.jsonl``, and at last the manifest."""

    def __init__(
        self,
        directory: Path,
        *,
        line_format: LineFormat = LineFormat.openai,
        max_lines: int = MAX_LINES,
        max_bytes: int = MAX_BYTES,
    ) -> None:
        try:
            directory.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"{directory}: cannot create: {exc.strerror or exc}") from None
        if (directory / MANIFEST).exists():
            raise ConfigError(f"{directory} already holds an export; export into another directory")
        self.directory, self.line_format = directory, line_format
        self._chunks = ChunkWriter(directory, max_lines=max_lines, max_bytes=max_bytes)
        self._requests = RequestsFile(directory)
        self.lines = self.unbatched = 0
        self.conventions: dict[str, str | dict[str, Any] | None] = {}

    def add(self, request: Request, body: dict[str, Any] | None, conventions: str | dict[str, Any] | None) -> None:
        """Keep ``request``, with a line carrying ``body`` when there is one and a batch file can hold it."""
        chunk = None
        if body is not None:
            try:
                chunk = self._chunks.add(encode_line(request.custom_id, body, self.line_format))
            except ValueError:  # too big for any batch file: asked the synchronous way
                chunk = None
        self.conventions[request.repo] = conventions
        self.lines += chunk is not None
        self.unbatched += chunk is None
        self._requests.write(request.model_copy(update={"chunk": chunk}))

    def finish(self, *, language: Literal["zh", "en"], analyzer: str) -> Manifest:
        """Close the files and write the manifest: the export is whole."""
        files = self._chunks.close()
        self._requests.close()
        manifest = Manifest(
            line_format=self.line_format,
            language=language,
            analyzer=analyzer,
            conventions=self.conventions,
            chunks=[Chunk(file=name, sha256=sha, lines=lines, bytes=size) for name, sha, lines, size in files],
            requests=self.lines,
            unbatched=self.unbatched,
        )
        manifest.write(self.directory)
        return manifest


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
    out = ExportWriter(directory, line_format=line_format, max_lines=max_lines, max_bytes=max_bytes)
    for repo in repos:
        label = f"exporting {repo.label}"
        pipeline.progress.begin(label, len(set(days)))
        async for _, items in pipeline.pending_inputs(repo, days):
            for item in items:
                _add(out, pipeline.analyzers_for(item.repo, repo.conventions)[0], item, repo.conventions)
            pipeline.progress.advance(label)
    return out.finish(language=pipeline.config.language, analyzer=pipeline.config.analyzer_name)


def _add(out: ExportWriter, analyzer: Analyzer, item: AnalysisInput, conventions: str | dict[str, Any] | None) -> None:
    """The request judging ``item``, or the first round of its map-reduce: a request per part."""
    key = analyzer.analysis_key(item.repository, item.pull_request)
    request = Request(custom_id=custom_id(item.repo, item.sha, key), repo=item.repo, key=key, input=item)
    body = batch_form(analyzer).batch_request(item)
    if body is None and isinstance(analyzer, MapReduceBatchAnalyzer):
        for part, part_body in enumerate(analyzer.batch_part_requests(item), start=1):
            one_part = request.model_copy(update={"custom_id": part_id(request.custom_id, part), "part": part})
            out.add(one_part, part_body, conventions)
    else:
        out.add(request, body, conventions)
