"""``batch collect``: the replies of an export's batches, validated and stored in the analysis cache.

Replies are matched to requests by ``custom_id`` (a batch keeps no order) and
read by the analyzer as the synchronous path reads its first answer
(:meth:`~repodaily.analyzers.base.BatchAnalyzer.parse_reply`); each valid one is
stored the moment it is read, under the key the export recorded, so a later
``report`` or ``run`` of those days asks nothing, and a ``collect`` that dies is
resumed by running it again: what is stored is skipped. A request whose reply
failed, is invalid, or never came (an expired batch, an error file), and one the
export left without a line (too big for a batch file), is analysed the synchronous way —
repair round and fallback endpoints included — and stored when that succeeds;
what still fails is left to the report, which falls back as it always does.

A map-reduce takes two rounds: once the replies to all its parts' requests are
in, ``collect`` writes the requests judging each commit from its summaries as a
new export beside the first (``verdicts-…``), to submit and collect in turn.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from repodaily.analyzers.base import Analyzer, MapReduceBatchAnalyzer
from repodaily.batch.api import BatchAPI
from repodaily.batch.export import ExportWriter, batch_form
from repodaily.batch.lines import MAX_REPLY_LINE_BYTES, Reply, read_replies, whole_id
from repodaily.batch.manifest import MANIFEST, Manifest, Request, read_requests
from repodaily.batch.submit import status
from repodaily.errors import AnalysisError, ConfigError, InvalidOutput
from repodaily.models import AnalysisStatus
from repodaily.pipeline import Pipeline, say_failed_analysis
from repodaily.store import Store
from repodaily.user_files import open_regular

log = logging.getLogger(__name__)

__all__ = ["Collected", "Replies", "collect", "replies_from_api", "replies_from_files"]


@dataclass
class Collected:
    """What a collect did, by commit."""

    stored: int = 0  # valid replies stored
    cached: int = 0  # already stored: by an earlier collect, or a report
    synchronous: int = 0  # analysed the synchronous way and stored
    failed: int = 0  # failed that way too: left to the report
    pending: list[str] = field(default_factory=list)  # chunk files whose batch has not finished
    reasons: list[str] = field(default_factory=list)  # why a reply was not used, a line each (at most a few)
    #: Where the second round of the map-reduces whose parts were all summarised was written, if any.
    follow_up: Path | None = None
    judged_next: int = 0  # map-reduces in that second round


_REASONS_KEPT = 5
_IN_MEMORY_BYTES = 8 * 2**20  # a downloaded file larger than this is spooled to a temporary file
_ONE_BY_ONE = "analysing the rest one by one"


class _Collecting:
    """One collect's work: replies read into the cache, failures queued for the synchronous path."""

    def __init__(self, pipeline: Pipeline, manifest: Manifest, replies: Replies) -> None:
        self.pipeline, self.manifest, self.replies = pipeline, manifest, replies
        self.done = Collected(pending=list(replies.pending))
        self.again: list[tuple[Request, Analyzer]] = []
        self.next_round: list[tuple[Request, dict[str, Any]]] = []

    def waiting(self, request: Request) -> bool:
        return request.chunk is not None and request.chunk not in self.replies.finished

    def stored(self, request: Request) -> bool:
        if self.pipeline.store.get_analyses(request.repo, [request.input.sha], request.key):
            self.done.cached += 1
            return True
        return False

    def failed(self, request: Request, analyzer: Analyzer, reason: str) -> None:
        if len(self.done.reasons) < _REASONS_KEPT:
            self.done.reasons.append(f"{request.input.sha[:7]}: {' '.join(reason.split())}")  # one line each
        self.again.append((request, analyzer))

    def body(self, request: Request) -> dict[str, Any]:
        """The reply to ``request``; an AnalysisError saying why there is none to read."""
        reply = self.replies.by_id.get(request.custom_id)
        if reply is None or reply.body is None:
            raise InvalidOutput(reply.error if reply is not None and reply.error else "no reply")
        return reply.body

    def one(self, request: Request) -> None:
        """A request judging its commit: its reply stored, or the commit queued for the synchronous path."""
        if self.waiting(request):
            return
        analyzer = _analyzer(self.pipeline, self.manifest, request)
        if self.stored(request):
            return
        try:
            body = self.body(request)
            if request.notes is None:
                analysis = batch_form(analyzer).parse_reply(request.input, body)
            else:
                analysis = _map_reduce(analyzer).parse_final_reply(request.input, request.notes, body)
        except AnalysisError as exc:
            self.failed(request, analyzer, f"{type(exc).__name__}: {exc}")
            return
        self.pipeline.store.put_analysis(request.repo, request.input.sha, analysis)
        self.done.stored += 1

    def parts(self, parts: list[Request]) -> None:
        """A map-reduce's first round: once every part is summarised, the request of its second round."""
        if any(self.waiting(part) for part in parts):
            return
        first = parts[0]
        analyzer = _analyzer(self.pipeline, self.manifest, first)
        if self.stored(first):
            return
        form = _map_reduce(analyzer)
        try:
            notes = [form.parse_part_reply(first.input, part.part or 0, self.body(part)) for part in parts]
        except AnalysisError as exc:
            self.failed(first, analyzer, f"{type(exc).__name__}: {exc}")
            return
        whole = first.model_copy(update={"custom_id": whole_id(first.custom_id), "part": None, "notes": notes})
        self.next_round.append((whole, form.batch_final_request(first.input, notes)))


async def collect(pipeline: Pipeline, directory: Path, manifest: Manifest, replies: Replies) -> Collected:
    """Store the analyses the replies give, for requests of finished chunks and those without a line.

    ``replies`` holds the replies read, by ``custom_id``, and which chunks
    finished. A request of a finished chunk without a reply, or whose reply is not
    a valid analysis, is analysed the synchronous way; requests of other chunks
    wait for a later collect. Map-reduces whose parts were all summarised get their
    second round written as a new export under ``directory`` (``Collected.follow_up``).
    """
    work = _Collecting(pipeline, manifest, replies)
    parts: dict[str, list[Request]] = {}
    for request in read_requests(directory):
        if request.part is None:
            work.one(request)
        else:
            parts.setdefault(whole_id(request.custom_id), []).append(request)
    for group in parts.values():
        work.parts(group)
    if work.next_round:
        work.done.follow_up = _write_next_round(directory, manifest, work.next_round)
        work.done.judged_next = len(work.next_round)
    await _synchronously(pipeline, work.again, work.done)
    return work.done


def _write_next_round(directory: Path, manifest: Manifest, requests: list[tuple[Request, dict[str, Any]]]) -> Path:
    """The export of a map-reduce's second round, in a directory named after what it holds (so written once)."""
    names = hashlib.sha256("\n".join(sorted(r.custom_id for r, _ in requests)).encode()).hexdigest()[:_NEXT_HASH]
    follow_up = directory / f"verdicts-{names}"
    if (follow_up / MANIFEST).exists():
        return follow_up
    out = ExportWriter(follow_up, line_format=manifest.line_format)
    for request, body in requests:
        out.add(request, body, manifest.conventions.get(request.repo))
    out.finish(language=manifest.language, analyzer=manifest.analyzer)
    return follow_up


_NEXT_HASH = 10


def _analyzer(pipeline: Pipeline, manifest: Manifest, request: Request) -> Analyzer:
    """The analyzer of the request's repository, as the export made it; a ConfigError if it now keys otherwise."""
    analyzer = pipeline.analyzers_for(request.repo, manifest.conventions.get(request.repo))[0]
    if analyzer.analysis_key(request.input.repository, request.input.pull_request) != request.key:
        raise ConfigError(
            "the analyzer's settings changed since the export (its cache key differs); "
            "collect with the config it was exported with, or export again"
        )
    return analyzer


def _map_reduce(analyzer: Analyzer) -> MapReduceBatchAnalyzer:
    if not isinstance(analyzer, MapReduceBatchAnalyzer):
        raise ConfigError(f"analyzer {analyzer.name!r} has no batch form for a commit in parts")
    return analyzer


async def _synchronously(pipeline: Pipeline, todo: Sequence[tuple[Request, Analyzer]], done: Collected) -> None:
    """Each request analysed the synchronous way, as many at once as the config allows; stored when it succeeds."""
    semaphore = asyncio.Semaphore(pipeline.config.analyzer.concurrency)

    async def _one(request: Request, analyzer: Analyzer) -> None:
        async with semaphore:
            try:
                analysis = await analyzer.analyze(request.input)
            except AnalysisError as exc:
                say_failed_analysis(request.input.sha[:7], exc)
                done.failed += 1
                return
        if analysis.status == AnalysisStatus.ok:
            pipeline.store.put_analysis(request.repo, request.input.sha, analysis)
            done.synchronous += 1
        else:
            done.failed += 1

    async def one(request: Request, analyzer: Analyzer) -> None:
        await _one(request, analyzer)
        pipeline.progress.advance(_ONE_BY_ONE)

    pipeline.progress.begin(_ONE_BY_ONE, len(todo))
    await asyncio.gather(*(one(request, analyzer) for request, analyzer in todo))


@dataclass
class Replies:
    """What the provider answered: replies by ``custom_id``, the chunks whose batch finished, those still running."""

    by_id: dict[str, Reply] = field(default_factory=dict)
    finished: set[str] = field(default_factory=set)
    pending: list[str] = field(default_factory=list)
    #: The export's custom_ids, when known: a reply to none of them is counted in ``strangers``, not kept,
    #: so another run's output costs its lines' time, not their size in memory.
    asked: frozenset[str] | None = None
    strangers: int = 0
    first_stranger: str = ""

    def add(self, stream: IO[bytes], name: str) -> None:
        """The replies of one file; the lines that are none are counted in one log line."""
        unread = 0
        for reply in read_replies(stream):
            if reply is None:
                unread += 1
            elif self.asked is not None and reply.custom_id not in self.asked:
                self.strangers += 1
                self.first_stranger = self.first_stranger or reply.custom_id
            # An error file may name a request the output file answered: the answer wins.
            elif reply.body is not None or reply.custom_id not in self.by_id:
                self.by_id[reply.custom_id] = reply
        if unread:
            log.warning(
                "%s: %d lines are no reply (not a JSON object naming its custom_id, or over %d MB) and are left out",
                name,
                unread,
                MAX_REPLY_LINE_BYTES // 2**20,
            )


def replies_from_files(paths: Iterable[str], requests: Iterable[Request]) -> Replies:
    """The replies in output files read from disk (``vllm run-batch``'s, a provider's download).

    A chunk counts as finished when any of its requests has a reply in them: its
    requests without one were not answered, and are analysed the synchronous way.
    """
    requests = list(requests)
    replies = Replies(asked=frozenset(request.custom_id for request in requests))
    for path in paths:
        try:
            with open_regular(path) as stream:
                replies.add(stream, path)
        except OSError as exc:
            raise ConfigError(f"--from-file {path}: cannot read: {exc.strerror or exc}") from None
    if replies.strangers and not replies.by_id:
        # Another export's output: analysing every request one by one instead would be a surprise bill.
        raise ConfigError(
            f"--from-file: none of its {replies.strangers} replies answers a request of this export "
            f"(custom_id {replies.first_stranger!r}): is it another export's output?"
        )
    if replies.strangers:
        log.warning("%d replies answer no request of this export and are left out", replies.strangers)
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
                with tempfile.SpooledTemporaryFile(max_size=_IN_MEMORY_BYTES) as spool:
                    api.download(str(file_id), spool)
                    spool.seek(0)
                    replies.add(spool, f"{key} {file_id}")
        replies.finished.add(chunk.chunk.file)
    return replies
