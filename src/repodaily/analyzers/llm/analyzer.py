"""The ``llm`` analyzer: one commit in, one rubric judgement out, from any OpenAI-compatible endpoint.

Per commit, the endpoints are tried in order — the primary, then each fallback —
and the first valid answer wins. An endpoint is given up on once its client
has exhausted its retries (:mod:`.client`), or when it answers invalid or
cut-off output even after the repair and brief rounds (:mod:`.structured`).
When every endpoint fails the last error is raised, and the pipeline falls
back to the heuristic analyzer for that commit; when every endpoint refused
our credentials, that last error is an :class:`~repodaily.errors.AuthError`.
An endpoint's client is asked once whether it takes our key, and afterwards
fails at once without sending (:class:`~.client.ChatClient`), so the analyzer
and the pipeline keep no memory of refusals of their own.

A commit whose diff text exceeds one prompt's budget is map-reduced: the context
stage plans its diff in parts of one prompt each (``AnalysisInput.parts``), each
part is summarised in parallel, and one final call judges the commit from the
file list and the summaries. The calls per commit are capped
(``max_calls_per_commit``), so the analyzer asks the context stage for at most
``max_calls_per_commit - 1`` parts (:attr:`LLMAnalyzer.context_parts`), one when
the cap is below three. It sends every part as planned and cuts nothing, so a
file the receipt calls ``full`` reached the model whole.

It offers the batch form (:class:`~repodaily.analyzers.base.BatchAnalyzer`) for
commits judged in one call: :meth:`LLMAnalyzer.batch_request` is the body the
first call would send, built by the same client code, and
:meth:`LLMAnalyzer.parse_reply` reads a reply as that call's answer is read. A
batch has no repair round and no fallback endpoint, so a reply that fails is an
error, and the caller analyses that commit the usual way.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import logging
import os
import random
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, TypeVar

import httpx
from pydantic import BaseModel, ValidationError

from repodaily.analyzers.base import Analyzer, BatchEndpoint
from repodaily.analyzers.llm.client import ChatClient, ContextTooLong, Message, OutputMode
from repodaily.analyzers.llm.fit import fitted, without_text
from repodaily.analyzers.llm.prompts import ChunkNote, HighlightEntry, Prompts, prompt_digest
from repodaily.analyzers.llm.schema import (
    ChunkSummary,
    HighlightsReply,
    LLMVerdict,
    bounded,
    describe_errors,
    finish_verdict,
    plain,
)
from repodaily.analyzers.llm.settings import EndpointSettings, LLMSettings
from repodaily.analyzers.llm.structured import ask, read_reply, response_format
from repodaily.errors import AnalysisError, ConfigError
from repodaily.models import (
    Analysis,
    AnalysisInput,
    Highlight,
    Importance,
    Provenance,
    RepositoryContext,
    Usage,
    Verdict,
)

__all__ = ["LLMAnalyzer"]

log = logging.getLogger(__name__)

Result = TypeVar("Result")

_SHORT_SHA = 7
# The smallest cap that makes map-reduce worth it: two parts and the final call.
_MIN_MAP_REDUCE_CALLS = 3
# Times a commit is planned again after the model refused its prompt as too long: once for the window the
# server named, once more for the tokenizer's count it named.
_FITTINGS = 2


class LLMAnalyzer(Analyzer):
    """Judges commits with a language model; see the module docstring for the flow."""

    name = "llm"
    writes_highlights = True
    reads_repository = True

    def __init__(
        self,
        *,
        language: Literal["zh", "en"] = "zh",
        endpoints: Sequence[EndpointSettings | Mapping[str, Any]] | None = None,
        settings: LLMSettings | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        environ: Mapping[str, str] | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
        highlights: bool = True,
        **_ignored: object,
    ) -> None:
        """Build from ``settings``, or from ``endpoints`` (config tables welcome) and ``language``.

        ``environ`` (default: the process environment) is where each endpoint's API
        key is read, once, here. ``transport``, ``sleep``, ``clock`` and ``rng`` are
        seams for tests. ``highlights`` false skips the day's highlights call. Other
        keyword arguments are accepted and ignored, so a generic caller may pass every
        analyzer the same settings.
        """
        if settings is None:
            if not endpoints:
                raise ConfigError("the llm analyzer needs at least one endpoint (or LLM_MODEL in the environment)")
            try:
                settings = LLMSettings.model_validate({"endpoints": list(endpoints), "language": language})
            except ValidationError as exc:
                raise ConfigError(f"invalid llm analyzer settings:\n{describe_errors(exc)}") from None
        self.settings = settings
        self.writes_highlights = highlights
        self.prompts = Prompts(settings.language)
        environment = os.environ if environ is None else environ
        #: One client per endpoint, primary first; each remembers its output mode and usage.
        self.clients = [
            ChatClient(endpoint, environ=environment, transport=transport, sleep=sleep, clock=clock, rng=rng)
            for endpoint in settings.endpoints
        ]
        self._fingerprint = _fingerprint(settings)

    @property
    def fingerprint(self) -> str:
        return self._fingerprint

    def fingerprint_for(self, repository: RepositoryContext | None) -> str:
        """:attr:`fingerprint` and a hash of what the prompt says of ``repository``, when it says anything.

        The hash is of the rendered text (:meth:`Prompts.repository`), so a change
        the prompt does not show (a conventions path class, a tag's weight) keeps
        the repository's analyses, and one it shows redoes them.
        """
        shown = self.prompts.repository(repository)
        if not shown:
            return self.fingerprint
        return f"{self.fingerprint}/r{hashlib.sha256(shown.encode()).hexdigest()[:10]}"

    @property
    def prompt_version(self) -> str:
        """The prompts' content hash (:func:`prompt_digest`), for the report's footer."""
        return prompt_digest()

    async def analyze(self, item: AnalysisInput) -> Analysis:
        usage = Usage()
        try:
            (verdict, read), client = await self._first_answer(
                lambda c: self._judge(c, item, usage), f"commit {item.sha[:_SHORT_SHA]}"
            )
        except AnalysisError as exc:
            exc.usage = usage  # the requests sent before the failure count all the same
            raise
        return self._analysis(read, verdict, client, usage)

    @property
    def batch_endpoint(self) -> BatchEndpoint:
        """The primary endpoint, the one :meth:`batch_request` builds its bodies for."""
        primary = self.settings.endpoints[0]
        return BatchEndpoint(primary.base_url, primary.api_key_env, primary.headers)

    def batch_request(self, item: AnalysisInput) -> dict[str, Any] | None:
        """The body :meth:`analyze` posts first, to the primary endpoint, for ``item``; None for a map-reduce.

        It asks in the strict ``json_schema`` mode, the one a new client tries first,
        whatever this analyzer's clients have since learnt of their endpoints: the
        batch services (OpenAI's Batch API, vLLM's ``run-batch``) take it, and a
        decoder held to the schema spares the repair round a batch cannot hold.
        """
        messages = self._one_call(item)
        if messages is None:
            return None
        return self._strict_body(messages, LLMVerdict)

    def _strict_body(self, messages: list[Message], reply: type[BaseModel]) -> dict[str, Any]:
        """The primary endpoint's body for ``messages``, asking for ``reply`` in the strict ``json_schema`` mode."""
        return self.clients[0].request_body(messages, response_format=response_format(OutputMode.json_schema, reply))

    def parse_reply(self, item: AnalysisInput, reply: dict[str, Any]) -> Analysis:
        """The analysis in ``reply``, a chat-completions response body to :meth:`batch_request`.

        It is read and validated as :meth:`analyze` reads its first answer, and the
        analysis says the primary endpoint's model answered in one call. A reply cut
        off, refused, or not a valid verdict raises that answer's AnalysisError
        (Truncated, ProviderError, InvalidOutput), with what the reply cost.
        """
        if len(item.parts) != 1:
            raise ValueError(f"input planned in {len(item.parts)} parts has no batch request to reply to")
        return self._read_verdict(item, reply, Usage(calls=1))

    def _read_verdict(self, item: AnalysisInput, reply: dict[str, Any], usage: Usage) -> Analysis:
        """The analysis in a batch ``reply`` judging ``item``, which cost ``usage`` with the reply's tokens."""
        client = self.clients[0]
        try:
            verdict = finish_verdict(read_reply(client.answer(reply, usage), LLMVerdict))
        except AnalysisError as exc:
            exc.usage = usage
            raise
        return self._analysis(item, verdict, client, usage)

    # -- the batch form of a map-reduce: two rounds

    def batch_part_requests(self, item: AnalysisInput) -> list[dict[str, Any]]:
        """The bodies of the first round of ``item``'s map-reduce, one per part, as :meth:`analyze` posts them."""
        if len(item.parts) == 1:  # judged in one call (batch_request)
            return []
        return [self._strict_body(messages, ChunkSummary) for _, messages in self._part_calls(item)]

    def parse_part_reply(self, item: AnalysisInput, part: int, reply: dict[str, Any]) -> dict[str, Any]:
        """Part ``part`` (1-based)'s summary in ``reply``, as JSON: its paths, the summary, what the reply cost.

        An AnalysisError when the reply is not a valid summary, as :meth:`parse_reply`.
        """
        paths, _ = self._part_calls(item)[part - 1]
        usage = Usage(calls=1)
        try:
            summary = bounded(read_reply(self.clients[0].answer(reply, usage), ChunkSummary))
        except AnalysisError as exc:
            exc.usage = usage
            raise
        return {"paths": paths, "summary": summary.model_dump(mode="json"), "usage": usage.model_dump(mode="json")}

    def batch_final_request(self, item: AnalysisInput, notes: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The second round of ``item``'s map-reduce: the body judging it from its parts' summaries (``notes``)."""
        return self._strict_body(self._final_call(item, _notes(notes)), LLMVerdict)

    def parse_final_reply(
        self, item: AnalysisInput, notes: Sequence[dict[str, Any]], reply: dict[str, Any]
    ) -> Analysis:
        """The analysis in the reply to :meth:`batch_final_request`, counting what the first round cost."""
        spent = [Usage.model_validate(note["usage"]) for note in notes]
        usage = Usage(**{name: sum(getattr(u, name) for u in spent) for name in Usage.model_fields})
        usage.calls += 1
        return self._read_verdict(item, reply, usage)

    def _analysis(self, item: AnalysisInput, verdict: Verdict, client: ChatClient, usage: Usage) -> Analysis:
        """``verdict`` as ``client``'s model answered it for ``item``, at its depth."""
        provenance = Provenance(
            coverage=item.receipt,
            analyzer=self.analysis_key(item.repository, item.pull_request),
            model=client.settings.model,
            usage=usage,
        )
        return Analysis.of(verdict, provenance)

    @property
    def context_parts(self) -> int:
        """One part per chunk call, the final call aside; one part when the cap leaves no room to map-reduce."""
        calls = self.settings.max_calls_per_commit
        return calls - 1 if calls >= _MIN_MAP_REDUCE_CALLS else 1

    async def highlights(self, day_items: Sequence[tuple[str, str, Analysis]], usage: Usage) -> list[Highlight]:
        """The day's three to five key points over its high and medium commits, each citing given SHAs only.

        ``day_items`` holds (sha, subject, analysis). One call; none when no commit
        is high or medium. A point citing no SHA, or one not given, is dropped.
        """
        important = [(sha, subject, a) for sha, subject, a in day_items if a.importance != Importance.low]
        if not important:
            return []
        names = _short_names([sha for sha, _, _ in important])
        entries = [HighlightEntry(names[sha], subject, analysis) for sha, subject, analysis in important]
        messages = self.prompts.highlights(entries)
        reply, _ = await self._first_answer(
            lambda c: ask(c, messages, HighlightsReply, prompts=self.prompts, usage=usage), "the day's highlights"
        )
        known = [sha for sha, _, _ in important]
        highlights = []
        for bullet in bounded(reply).highlights:
            cited = [sha for name in bullet.shas if (sha := _resolve(name, known)) is not None]
            text = plain(bullet.text)
            if text and cited and len(cited) == len(bullet.shas):
                highlights.append(Highlight(text=text, shas=list(dict.fromkeys(cited))))
        return highlights

    async def aclose(self) -> None:
        await asyncio.gather(*(client.aclose() for client in self.clients))

    # -- one commit on one endpoint

    async def _judge(self, client: ChatClient, item: AnalysisInput, usage: Usage) -> tuple[Verdict, AnalysisInput]:
        """The verdict on ``item`` as it fits ``client``'s context window, and that fitted input (its receipt)."""
        planned = fitted(item, client=client, prompts=self.prompts, max_parts=self.context_parts)
        for _ in range(_FITTINGS):
            try:
                return await self._judge_as_planned(client, planned, usage), planned
            except ContextTooLong:
                # Each refusal may teach the window or the tokenizer's count; without news, nothing smaller is sent.
                smaller = fitted(planned, client=client, prompts=self.prompts, max_parts=self.context_parts)
                if smaller is planned:
                    raise
                planned = smaller
        return await self._judge_as_planned(client, planned, usage), planned

    async def _judge_as_planned(self, client: ChatClient, item: AnalysisInput, usage: Usage) -> Verdict:
        if len(item.parts) > self.context_parts:
            # Sending them all would break the call cap, dropping some would break the receipt.
            raise ValueError(f"input planned in {len(item.parts)} parts, this analyzer reads {self.context_parts}")
        messages = self._one_call(item)
        if messages is None:
            notes = await self._summarise_parts(client, item, usage)
            messages = self._final_call(item, notes)
        return finish_verdict(await ask(client, messages, LLMVerdict, prompts=self.prompts, usage=usage))

    def _one_call(self, item: AnalysisInput) -> list[Message] | None:
        """The messages that judge ``item`` reading all its texts, when it was planned in one part; else None."""
        return self.prompts.analyze(item, item.files) if len(item.parts) == 1 else None

    def _part_calls(self, item: AnalysisInput) -> list[tuple[list[str], list[Message]]]:
        """A map-reduce's first round: per part of ``item``, its files' paths and the messages that summarise it."""
        parts = [[item.files[index] for index in part] for part in item.parts]
        return [
            ([file.path for file in part], self.prompts.chunk(item, part, index, len(parts)))
            for index, part in enumerate(parts, start=1)
        ]

    def _final_call(self, item: AnalysisInput, notes: Sequence[ChunkNote]) -> list[Message]:
        """A map-reduce's last call: the commit judged from its file list and its parts' summaries."""
        return self.prompts.analyze(item, [without_text(file) for file in item.files], notes)

    async def _summarise_parts(self, client: ChatClient, item: AnalysisInput, usage: Usage) -> list[ChunkNote]:
        calls = self._part_calls(item)
        asks = [ask(client, messages, ChunkSummary, prompts=self.prompts, usage=usage) for _, messages in calls]
        # Let every part finish before failing, so no request is left running unobserved.
        results = await asyncio.gather(*asks, return_exceptions=True)
        notes = []
        for (paths, _), result in zip(calls, results, strict=True):
            if isinstance(result, BaseException):
                raise result
            notes.append(ChunkNote(paths=paths, summary=bounded(result)))
        return notes

    # -- endpoints in order

    async def _first_answer(
        self, job: Callable[[ChatClient], Awaitable[Result]], what: str
    ) -> tuple[Result, ChatClient]:
        """``job`` on the primary endpoint, then on each fallback; the last error if all fail."""
        last: AnalysisError | None = None
        for client, following in zip(self.clients, [*self.clients[1:], None], strict=True):
            try:
                return await job(client), client
            except AnalysisError as exc:
                last = exc
                if following is None:  # the caller says how the last failure ends, in the one line it costs
                    break
                level = logging.INFO if exc.said_once else logging.WARNING
                log.log(level, "%s: %s failed, asking %s: %s", client.settings.name, what, following.settings.name, exc)
        assert last is not None, "settings guarantee at least one endpoint"
        raise last


def _fingerprint(settings: LLMSettings) -> str:
    """``llm/<primary model>/p<prompt hash>/<language>/<hash of every setting that changes output>``."""
    endpoints = settings.endpoints
    material = {
        "models": [e.model for e in endpoints],
        "temperature": [e.temperature for e in endpoints],
        "max_tokens": [e.max_tokens for e in endpoints],
        "budget_tokens": settings.budget_tokens,
        "max_calls_per_commit": settings.max_calls_per_commit,
    }
    digest = hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:10]
    return f"llm/{endpoints[0].model}/p{prompt_digest()}/{settings.language}/{digest}"


def _notes(notes: Sequence[dict[str, Any]]) -> list[ChunkNote]:
    """The summaries :meth:`LLMAnalyzer.parse_part_reply` gave, read back."""
    return [ChunkNote(paths=list(n["paths"]), summary=ChunkSummary.model_validate(n["summary"])) for n in notes]


def _short_names(shas: list[str]) -> dict[str, str]:
    """Each SHA's shortest prefix of at least seven characters that is unique among ``shas``."""
    length = _SHORT_SHA
    while len({sha[:length] for sha in shas}) < len(set(shas)) and length < max(map(len, shas)):
        length += 1
    return {sha: sha[:length] for sha in shas}


def _resolve(cited: str, known: list[str]) -> str | None:
    """The one given SHA that ``cited`` abbreviates (at least seven characters), else None."""
    cited = cited.strip().lower()
    if len(cited) < _SHORT_SHA:
        return None
    matches = [sha for sha in known if sha.lower().startswith(cited)]
    return matches[0] if len(matches) == 1 else None
