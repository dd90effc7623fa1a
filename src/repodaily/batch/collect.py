"""``batch collect``: the replies of an export's batches, validated and stored in the analysis cache.

Replies are matched to requests by ``custom_id`` (a batch keeps no order) and
read by the analyzer as the synchronous path reads its first answer
(:meth:`~repodaily.analyzers.base.BatchAnalyzer.parse_reply`); each valid one is
stored the moment it is read, under the key the export recorded, so a later
``report`` or ``run`` of those days asks nothing, and a ``collect`` that dies is
resumed by running it again: what is stored is skipped. A request whose reply
failed, is invalid, or never came (an expired batch, an error file), and one the
export left without a line (a map-reduce), is analysed the synchronous way —
repair round and fallback endpoints included — and stored when that succeeds;
what still fails is left to the report, which falls back as it always does.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from repodaily.analyzers.base import Analyzer
from repodaily.batch.api import BatchAPI
from repodaily.batch.export import batch_form
from repodaily.batch.lines import Reply, read_replies
from repodaily.batch.manifest import Manifest, Request
from repodaily.batch.submit import status
from repodaily.errors import AnalysisError, ConfigError
from repodaily.models import AnalysisStatus
from repodaily.pipeline import Pipeline
from repodaily.store import Store

__all__ = ["Collected", "Replies", "collect", "replies_from_api", "replies_from_files"]


@dataclass
class Collected:
    """What a collect did, by request."""

    stored: int = 0  # valid replies stored
    cached: int = 0  # already stored: by an earlier collect, or a report
    synchronous: int = 0  # analysed the synchronous way and stored
    failed: int = 0  # failed that way too: left to the report
    pending: list[str] = field(default_factory=list)  # chunk files whose batch has not finished
    reasons: list[str] = field(default_factory=list)  # why a reply was not used, a line each (at most a few)


_REASONS_KEPT = 5


async def collect(
    pipeline: Pipeline,
    manifest: Manifest,
    requests: Iterable[Request],
    replies: Replies,
) -> Collected:
    """Store the analyses of the requests of finished chunks, and of those without a chunk.

    ``replies`` holds the replies read, by ``custom_id``, and which chunks finished. A request of a finished
    chunk without a reply, or whose reply is not a valid analysis, is analysed
    the synchronous way; requests of other chunks wait for a later collect.
    """
    done = Collected(pending=list(replies.pending))
    again: list[tuple[Request, Analyzer]] = []
    for request in requests:
        if request.chunk is not None and request.chunk not in replies.finished:
            continue
        analyzer = _analyzer(pipeline, manifest, request)
        if pipeline.store.get_analyses(request.repo, [request.input.sha], request.key):
            done.cached += 1
            continue
        reply = replies.by_id.get(request.custom_id)
        reason = reply.error if reply is not None else "no reply"
        if reply is not None and reply.body is not None:
            try:
                analysis = batch_form(analyzer).parse_reply(request.input, reply.body)
            except AnalysisError as exc:
                reason = f"{type(exc).__name__}: {exc}"
            else:
                pipeline.store.put_analysis(request.repo, request.input.sha, analysis)
                done.stored += 1
                continue
        if request.chunk is not None and len(done.reasons) < _REASONS_KEPT:
            done.reasons.append(f"{request.input.sha[:7]}: {reason}")
        again.append((request, analyzer))
    await _synchronously(pipeline, again, done)
    return done


def _analyzer(pipeline: Pipeline, manifest: Manifest, request: Request) -> Analyzer:
    """The analyzer of the request's repository, as the export made it; a ConfigError if it now keys otherwise."""
    analyzer = pipeline.analyzers_for(request.repo, manifest.conventions.get(request.repo))[0]
    if analyzer.analysis_key(request.input.repository, request.input.pull_request) != request.key:
        raise ConfigError(
            "the analyzer's settings changed since the export (its cache key differs); "
            "collect with the config it was exported with, or export again"
        )
    return analyzer


async def _synchronously(pipeline: Pipeline, todo: Sequence[tuple[Request, Analyzer]], done: Collected) -> None:
    """Each request analysed the synchronous way, as many at once as the config allows; stored when it succeeds."""
    semaphore = asyncio.Semaphore(pipeline.config.analyzer.concurrency)

    async def _one(request: Request, analyzer: Analyzer) -> None:
        async with semaphore:
            try:
                analysis = await analyzer.analyze(request.input)
            except AnalysisError:
                done.failed += 1
                return
        if analysis.status == AnalysisStatus.ok:
            pipeline.store.put_analysis(request.repo, request.input.sha, analysis)
            done.synchronous += 1
        else:
            done.failed += 1

    async def one(request: Request, analyzer: Analyzer) -> None:
        await _one(request, analyzer)
        pipeline.progress.advance()

    pipeline.progress.begin("analysing the rest one by one", len(todo))
    await asyncio.gather(*(one(request, analyzer) for request, analyzer in todo))


@dataclass
class Replies:
    """What the provider answered: replies by ``custom_id``, the chunks whose batch finished, those still running."""

    by_id: dict[str, Reply] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)
    pending: list[str] = field(default_factory=list)

    def add(self, content: bytes) -> None:
        for reply in read_replies(content):
            # An error file may name a request the output file answered: the answer wins.
            if reply.body is not None or reply.custom_id not in self.by_id:
                self.by_id[reply.custom_id] = reply


def replies_from_files(contents: Iterable[bytes], requests: Iterable[Request]) -> Replies:
    """The replies in output files read from disk (``vllm run-batch``'s, a provider's download).

    A chunk counts as finished when any of its requests has a reply in them: its
    requests without one were not answered, and are analysed the synchronous way.
    """
    replies = Replies()
    for content in contents:
        replies.add(content)
    replies.finished = {r.chunk for r in requests if r.chunk is not None and r.custom_id in replies.by_id}
    return replies


def replies_from_api(api: BatchAPI, store: Store, endpoint: str, manifest: Manifest) -> Replies:
    """The replies of every finished batch of the export: its output and error files, downloaded."""
    replies = Replies()
    for chunk in status(api, store, endpoint, manifest):
        if not chunk.finished:
            replies.pending.append(f"{chunk.chunk.file} ({chunk.state})")
            continue
        assert chunk.batch is not None  # a finished chunk was submitted
        for key in ("output_file_id", "error_file_id"):
            if file_id := chunk.batch.get(key):
                replies.add(api.content(str(file_id)))
        replies.finished.add(chunk.chunk.file)
    return replies
