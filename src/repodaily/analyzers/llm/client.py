"""An OpenAI-compatible chat client: one endpoint, its limits, and our errors only.

Everything foreign that can go wrong on the wire becomes one of ours at this
edge (:func:`_foreign_errors` and :meth:`ChatClient._check`), raised ``from`` the
original::

    no whole answer within the deadline   ProviderError, retried
    httpx timeout                         ProviderError, retried
    connect/read/write error, reset       ProviderError, retried
    other httpx errors (bad URL scheme…)  ProviderError, not retried
    HTTP 408/425/429/5xx                  ProviderError, retried (after the server's Retry-After
                                          or x-ratelimit-reset-*, else exponential backoff
                                          with full jitter)
    HTTP 401/403                          AuthError, never retried; later calls fail at once, unsent
    HTTP 4xx (other)                      ProviderError, not retried
    HTTP 3xx (a redirect)                 ProviderError, not followed (the key would go along)
    an error naming response_format       UnsupportedMode (a ProviderError): the caller
                                          asks again in a weaker output mode
    HTTP 400/413 "context length"         ContextTooLong (a ProviderError): the window and the
                                          model's token count it names are learnt, and the
                                          analyzer plans the commit again to fit
    an open circuit (:mod:`.breaker`)     EndpointDown (a ProviderError), not sent
    body over max_response_bytes          ProviderError, not retried
    body that is not a JSON completion    InvalidOutput
    finish_reason == "length"             Truncated

Every wait on the server is bounded. Each request — connecting, sending, and
reading the *whole* body — runs under one deadline (``timeout_for``), so a server
that drips a byte a second holds a call no longer than the deadline times its
attempts; the time a request spends queued behind our own limits is not part of
its deadline. The body is read into memory up to ``max_response_bytes``.

Requests in flight follow an adaptive limit per endpoint (:mod:`.concurrency`):
one at a time until the endpoint has answered once — so a refused key costs
one request whatever the concurrency (:class:`_CredentialGate`) — then the
slots the server reports or the configured concurrency, shrinking when answers
show queueing and growing back. A request that timed out while the server was
answering others waited in its queue, not on a dead server: it goes again under
the lower limit without spending an attempt (at most :data:`_REQUEUES` times).
A server that keeps failing is short-circuited (:mod:`.breaker`). Optional
requests/tokens per minute budgets apply (:mod:`.limits`). The API key is read from the environment
when the client is created, sent only in the Authorization header, and masked
in every error message, in each form a server may echo it back in
(:mod:`repodaily.redact`).
"""

from __future__ import annotations

import asyncio
import itertools
import logging
import math
import random
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

import httpx

from repodaily import json_input
from repodaily.analyzers.llm.breaker import CircuitBreaker
from repodaily.analyzers.llm.concurrency import ConcurrencyLimit, Slot
from repodaily.analyzers.llm.limits import RequestQuota
from repodaily.analyzers.llm.settings import EndpointSettings
from repodaily.context.tokens import count_tokens
from repodaily.credentials import redactor_for
from repodaily.errors import AuthError, InvalidOutput, ProviderError, Truncated
from repodaily.models import Usage
from repodaily.redact import single_line
from repodaily.waits import server_wait

__all__ = ["ChatClient", "ContextTooLong", "Message", "OutputMode", "UnsupportedMode"]

log = logging.getLogger(__name__)

Message = dict[str, str]

_RETRIED_STATUS = frozenset({408, 425, 429})
_AUTH_STATUS = frozenset({401, 403})
_MODE_WORDS = ("response_format", "json_schema")
_BACKOFF_BASE_S = 1.0
_BACKOFF_CAP_S = 60.0
# A server asking for a longer pause than this is better answered by the fallback endpoint.
_LONGEST_WAIT_S = 300.0
_ERROR_TEXT_CHARS = 300
# Role markers and message framing the chat template adds around each message.
_TOKENS_PER_MESSAGE = 4
#: Times a request that timed out in a busy server's queue goes again without spending an attempt:
#: enough for the limit to halve from any usual concurrency down to the server's slots.
_REQUEUES = 4
_OVERLOADED_STATUS = frozenset({429, 503})
# Asking the server how many requests it runs at once is a courtesy: it must not hold up the run.
_SLOTS_DEADLINE_S = 5.0
_SLOTS_MAX_BYTES = 1_000_000
#: How often a server's queue gauges are read while answers come in.
_QUEUE_EVERY_S = 5.0
# The Prometheus gauges of requests kept waiting for a slot: vLLM's and SGLang's.
_WAITING_GAUGES = ("vllm:num_requests_waiting", "sglang:num_queue_reqs")


class OutputMode(StrEnum):
    """How an endpoint is asked for JSON, strongest first."""

    json_schema = "json_schema"  # response_format json_schema, strict (OpenAI, vLLM, SGLang, DeepSeek…)
    json_object_schema = "json_object+schema"  # json_object with a schema (llama.cpp, vLLM)
    json_object = "json_object"  # any JSON object
    prompt = "prompt"  # no response_format: the prompt alone asks for JSON

    def weaker(self) -> OutputMode | None:
        modes = list(OutputMode)
        index = modes.index(self)
        return modes[index + 1] if index + 1 < len(modes) else None


class UnsupportedMode(ProviderError):
    """The endpoint rejected the requested ``response_format``."""


class ContextTooLong(ProviderError):
    """The prompt and the answer's room exceed the model's context window.

    ``context_tokens`` is the window and ``prompt_tokens`` the prompt as the model's
    tokenizer counted it, where the server said.
    """

    def __init__(self, message: str, context_tokens: int | None, prompt_tokens: int | None) -> None:
        super().__init__(message)
        self.context_tokens = context_tokens
        self.prompt_tokens = prompt_tokens


# How servers say a prompt does not fit: OpenAI, vLLM and llama-cpp-python ("maximum context length is
# 4096 tokens", code context_length_exceeded), llama.cpp ("exceeds the available context size", n_ctx),
# SGLang ("longer than the model's context length (4096 tokens)").
_CONTEXT_WORDS = ("context length", "context_length", "context size", "context window", "exceed_context")
_CONTEXT_TOKENS = re.compile(r"(?:context length|context size|context window|n_ctx)\D{0,24}?(\d{3,8})", re.I)
# The prompt as the tokenizer counted it: "(4153 in the messages, ...)" (OpenAI, vLLM), "n_prompt_tokens" (llama.cpp),
# "The input (4153 tokens)" (SGLang).
# A count starts where its digits do: tried inside a long run of digits, it would cost time quadratic in it.
_PROMPT_TOKENS = re.compile(r"(?<!\d)(\d+) in the messages|n_prompt_tokens\W{1,4}(\d+)|input \((\d+) tokens\)", re.I)


class _Retryable(ProviderError):
    """A failure that may pass: a timeout, a dropped connection, 429, 5xx.

    ``timed_out`` says the deadline passed with no answer; ``queued`` that it did
    while the server answered other requests, so it waited in the server's queue.
    """

    def __init__(self, message: str, wait_s: float | None = None, *, timed_out: bool = False) -> None:
        super().__init__(message)
        self.wait_s = wait_s
        self.timed_out = timed_out
        self.queued = False


@dataclass(frozen=True)
class _Exchange:
    """One request's answer: status and headers, the body, its place under the limit, and how long it took."""

    response: httpx.Response
    content: bytes
    slot: Slot
    seconds: float


# More tokens than any model's window holds: a usage saying so is not a count (it would skew the totals
# and the pace the concurrency follows), and is read as no count at all.
_MAX_TOKENS_COUNTED = 100_000_000


def _count(counts: dict[str, Any], key: str) -> int:
    """A token count the answer reports: a whole number of tokens one call can use, else 0."""
    value = counts.get(key)
    if isinstance(value, bool) or not isinstance(value, int):
        return 0
    return value if 0 < value <= _MAX_TOKENS_COUNTED else 0


def _gauge_total(metrics: str, names: tuple[str, ...]) -> int | None:
    """The sum over label sets of the Prometheus samples named one of ``names``; None when none is there."""
    total: float | None = None
    for line in metrics.splitlines():
        name, _, rest = line.partition("{") if "{" in line else line.partition(" ")
        if name.strip() in names:
            try:
                total = (total or 0.0) + float(rest.rsplit(" ", 1)[-1])
            except ValueError:
                continue
    return None if total is None else round(total)


def _names_mode(text: str) -> bool:
    """Whether an error body speaks of the requested output format."""
    lowered = text.lower()
    return any(word in lowered for word in _MODE_WORDS)


@contextmanager
def _foreign_errors(endpoint: str, redact: Callable[[str], str]) -> Iterator[None]:
    """Turn httpx failures into ours, naming the endpoint and never the key."""
    try:
        yield
    except httpx.TimeoutException as exc:
        raise _Retryable(f"{endpoint}: no answer in time ({type(exc).__name__})", timed_out=True) from exc
    except (httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError) as exc:
        raise _Retryable(f"{endpoint}: connection failed ({type(exc).__name__}: {redact(str(exc))})") from exc
    except httpx.HTTPError as exc:
        raise ProviderError(f"{endpoint}: request failed ({type(exc).__name__}: {redact(str(exc))})") from exc


class _CredentialGate:
    """Whether an endpoint takes our key, learnt from one request before the others are sent.

    Until a request has its answer, the others wait: with a refused key the first
    401/403 is the only request of the run, whatever the concurrency, and every
    request waiting behind it then fails at once, unsent. Any other status opens
    the gate for good as soon as its headers arrive (a dripping body does not
    hold the others back). So does a request that ends with no answer at all (a
    deadline passed, a dropped connection): it says nothing about the key, but
    holding everyone behind it would send a hung endpoint's requests one by one,
    a deadline each, where side by side they cost one deadline per attempt — and a
    server that refuses a key does so at once, before any work.

    This is the one place that decides: the analyzer, the pipeline and ``doctor``
    only see the AuthError it raises.
    """

    def __init__(self, endpoint: str, unsent_key: str = "") -> None:
        self._endpoint = endpoint
        self._unsent_key = unsent_key
        self._settled = asyncio.Event()
        self._probing = False
        self._refused: int | None = None

    @asynccontextmanager
    async def turn(self) -> AsyncIterator[None]:
        """Wait until a request may be sent; raise AuthError, unsent, once the key was refused."""
        if not self._settled.is_set():
            if self._probing:
                await self._settled.wait()
            else:
                self._probing = True  # this request goes alone
        if self._refused is not None:
            raise AuthError(
                f"{self._endpoint}: HTTP {self._refused}, credentials refused earlier in this run; not asked again"
                + self._unsent_key
            )
        try:
            yield
        finally:
            self.settle(None)

    def settle(self, status: int | None) -> None:
        """Record what a request learnt: its HTTP status, or (None) that it is over without one."""
        if status in _AUTH_STATUS and self._refused is None:
            self._refused = status
            log.error(
                "%s refused the credentials (HTTP %d); nothing more is sent to it%s",
                self._endpoint,
                status,
                self._unsent_key,
            )
        self._settled.set()


class ChatClient:
    """Sends chat completions to one endpoint, retrying what may pass and nothing else."""

    def __init__(
        self,
        settings: EndpointSettings,
        *,
        environ: Mapping[str, str],
        transport: httpx.AsyncBaseTransport | None = None,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        #: Lifetime totals of this client, for ``doctor`` and run summaries.
        self.usage = Usage()
        self._mode = OutputMode.json_schema
        self._mode_confirmed = False
        self._secret = environ.get(settings.api_key_env) or None
        #: Masks every credential of this endpoint, in each form a server may echo it in.
        self._redact = redactor_for(settings, environ=environ)
        headers = dict(settings.headers)
        if self._secret:
            headers["Authorization"] = f"Bearer {self._secret}"
        # No per-read timeouts: each request runs under one total deadline instead (see _exchange).
        self._http = httpx.AsyncClient(headers=headers, transport=transport, timeout=None)
        # A concurrency the user set caps what the server reports; the default gives way to it.
        explicit = "concurrency" in settings.model_fields_set
        self.limit = ConcurrencyLimit(settings.name, settings.concurrency, explicit=explicit, clock=clock)
        self._breaker = CircuitBreaker(settings.name, clock=clock)
        self._answered_at = -math.inf
        self._opening: asyncio.Task[None] | None = None
        self._request_ids = itertools.count()
        #: The model's context window in tokens, once the server has said it (None: not yet).
        self.context_tokens: int | None = None
        #: How many tokens the model's tokenizer makes of what our estimate counts as one, once seen (at least 1).
        self.token_ratio = 1.0
        self._queue_read_at: float | None = -math.inf  # None: the server publishes no queue gauges
        self._queue_reading: asyncio.Task[None] | None = None
        self._quota = RequestQuota(
            requests_per_minute=settings.requests_per_minute,
            tokens_per_minute=settings.tokens_per_minute,
            clock=clock,
            sleep=sleep,
        )
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        # A refusal with no key sent is a variable left unset (or misspelt): the error says which.
        self._unsent_key = "" if self._secret else f"; no key was sent: {settings.api_key_env} (api_key_env) is not set"
        self._gate = _CredentialGate(settings.name, self._unsent_key)

    def __repr__(self) -> str:
        return f"ChatClient({self.settings.name!r}, model={self.settings.model!r}, mode={self._mode.value})"

    # -- output mode negotiation state (the negotiation itself is in .structured)

    @property
    def output_mode(self) -> OutputMode:
        """The strongest output mode not yet ruled out for this endpoint."""
        return self._mode

    @property
    def output_mode_confirmed(self) -> bool:
        """Whether a reply in :attr:`output_mode` has been accepted."""
        return self._mode_confirmed

    def rule_out(self, mode: OutputMode) -> OutputMode:
        """``mode`` does not work here: return the mode to try next.

        The prompt-only mode sends no ``response_format``, so nothing can refuse it;
        it is the floor.
        """
        weaker = mode.weaker() or OutputMode.prompt
        # Concurrent calls may rule out the same mode twice; never climb back up.
        if list(OutputMode).index(weaker) > list(OutputMode).index(self._mode):
            log.info("%s: %s does not work, trying %s", self.settings.name, mode.value, weaker.value)
            self._mode, self._mode_confirmed = weaker, False
        return self._mode

    def confirm(self, mode: OutputMode) -> None:
        if mode == self._mode:
            self._mode_confirmed = True

    # -- requests

    async def complete(
        self,
        messages: list[Message],
        *,
        usage: Usage,
        response_format: dict[str, Any] | None = None,
        max_tokens: int | None = None,
    ) -> str:
        """One chat completion; ``usage`` (and :attr:`usage`) grow by what every attempt cost.

        Raises ProviderError (AuthError, UnsupportedMode), InvalidOutput or Truncated.
        """
        body = self.request_body(messages, response_format=response_format, max_tokens=max_tokens)
        prompt_tokens = sum(count_tokens(m["content"]) + _TOKENS_PER_MESSAGE for m in messages)
        deadline = self.settings.timeout_for(prompt_tokens)
        started = self._clock()
        try:
            return await self._attempts(body, prompt_tokens + body["max_tokens"], deadline, usage)
        except ContextTooLong as exc:
            if exc.prompt_tokens:  # how much more the model's tokenizer counts than our estimate
                self.learn_token_ratio(exc.prompt_tokens / prompt_tokens)
            raise
        finally:
            elapsed = self._clock() - started
            usage.seconds += elapsed
            self.usage.seconds += elapsed

    def request_body(
        self, messages: list[Message], *, response_format: dict[str, Any] | None = None, max_tokens: int | None = None
    ) -> dict[str, Any]:
        """The chat-completions body :meth:`complete` posts; ``max_tokens`` defaults to the endpoint's.

        Built apart from sending, so a batch line can carry exactly what a call would send.
        """
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
            "max_tokens": max_tokens or self.settings.max_tokens,
        }
        if response_format is not None:
            body["response_format"] = response_format
        return body

    async def list_models(self) -> list[str] | None:
        """The model ids the endpoint lists, or None when it has no listing (HTTP 404)."""
        # The listing is no analysis's cost: only the client's lifetime totals count it.
        exchange = await self._request("GET", "/models", deadline=self.settings.timeout_s, usage=Usage())
        if exchange.response.status_code == 404:
            return None
        self._check(exchange.response, exchange.content, asked_format=False)
        data = self._decoded(exchange.content)
        entries = data.get("data") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise InvalidOutput(f"{self.settings.name}: the model list is not an OpenAI-style list")
        return [str(entry.get("id")) for entry in entries if isinstance(entry, dict)]

    def learn_context(self, tokens: int) -> None:
        """The server said its context window holds ``tokens``; the smallest said holds."""
        if tokens > 0 and (self.context_tokens is None or tokens < self.context_tokens):
            log.info("%s: the model's context window holds %d tokens", self.settings.name, tokens)
            self.context_tokens = tokens

    def learn_token_ratio(self, ratio: float) -> None:
        """The model's tokenizer counted ``ratio`` times our estimate of a prompt; the highest seen holds."""
        if ratio > self.token_ratio:
            log.info("%s: the model counts %.2f tokens for each the estimate does", self.settings.name, ratio)
            self.token_ratio = ratio

    async def server_slots(self) -> int | None:
        """How many requests the server says it runs at once, or None when it does not say.

        llama.cpp's server reports ``total_slots`` at ``/props`` and lists its slots
        at ``/slots``, both beside ``/v1``; ``/props`` also tells the context window
        (``n_ctx``), which is learnt on the way. Other servers answer 404 or nothing;
        a failure here is no error, only silence.
        """
        root = self.settings.base_url.removesuffix("/v1")
        for path in ("/props", "/slots"):
            try:
                async with asyncio.timeout(_SLOTS_DEADLINE_S), self._http.stream("GET", root + path) as response:
                    if response.status_code != 200:
                        continue
                    data = json_input.loads(await self._body(response, cap=_SLOTS_MAX_BYTES))
            except (httpx.HTTPError, TimeoutError, ProviderError, ValueError):
                continue
            if isinstance(data, dict) and isinstance(settings := data.get("default_generation_settings"), dict):
                window = settings.get("n_ctx")
                if isinstance(window, int) and not isinstance(window, bool):
                    self.learn_context(window)
            slots = data.get("total_slots") if isinstance(data, dict) else len(data) if isinstance(data, list) else None
            if isinstance(slots, int) and not isinstance(slots, bool) and slots > 0:
                return slots
        return None

    async def _attempts(self, body: dict[str, Any], tokens: int, deadline: float, usage: Usage) -> str:
        attempts, attempt, requeued = self.settings.max_retries + 1, 0, 0
        request = next(self._request_ids)
        while True:
            try:
                return await self._send(body, tokens, deadline, usage, request)
            except _Retryable as exc:
                if exc.queued and requeued < _REQUEUES:
                    requeued += 1
                    log.info("%s, waiting behind other requests; sent again under the lower concurrency", exc)
                    continue
                wait = self._backoff(exc, attempt)
                attempt += 1
                if attempt == attempts or wait is None:
                    raise ProviderError(f"{exc} (gave up after {attempt + requeued} attempt(s))") from exc
                log.info("%s; retrying in %.1f s", exc, wait)
                await self._sleep(wait)

    def _backoff(self, exc: _Retryable, attempt: int) -> float | None:
        """The server's wait when it named one (None if too long to be worth it), else full jitter."""
        if exc.wait_s is not None:
            return exc.wait_s if exc.wait_s <= _LONGEST_WAIT_S else None
        return self._rng.uniform(0, min(_BACKOFF_CAP_S, _BACKOFF_BASE_S * 2**attempt))

    async def _send(self, body: dict[str, Any], tokens: int, deadline: float, usage: Usage, request: int) -> str:
        exchange = await self._request(
            "POST", "/chat/completions", deadline=deadline, usage=usage, tokens=tokens, payload=body, request=request
        )
        self._check(exchange.response, exchange.content, asked_format="response_format" in body)
        data = self._decoded(exchange.content)
        # A limit said to refill later than any wait worth taking is not waited for: the next
        # request goes, and its refusal, if any, decides as any refusal does (_backoff).
        if (pause := server_wait(exchange.response.headers, refused=False)) is not None and pause <= _LONGEST_WAIT_S:
            self._quota.pause(pause)
        reported = data.get("usage") if isinstance(data, dict) else None
        completion_tokens = _count(reported, "completion_tokens") if isinstance(reported, dict) else 0
        self.limit.answered(exchange.slot, exchange.seconds, completion_tokens)
        return self.answer(data, usage, self.usage)

    async def _request(
        self,
        method: str,
        path: str,
        *,
        deadline: float,
        usage: Usage,
        tokens: int = 0,
        payload: Any = None,
        request: int | None = None,
    ) -> _Exchange:
        """Every request goes through here: the gate, the breaker, our limits, then one bounded exchange.

        The request counts in ``usage`` (and :attr:`usage`) as soon as it is attempted,
        whatever becomes of it, a refused connection included; one turned away at the
        gate or by an open circuit is not attempted. Waiting at the gate, for the quota
        or for room under the limit is our own queue, not the server's time, so it
        comes before the deadline starts. ``request`` names the request an attempt belongs
        to, the same for each retry (default: a request of its own).
        """
        request = next(self._request_ids) if request is None else request
        async with self._gate.turn():
            await self._quota.acquire(tokens)
            async with self.limit.slot() as slot:
                self._breaker.check()  # here, not before the wait: the circuit may have opened meanwhile
                for total in (usage, self.usage):
                    total.calls += 1
                url = f"{self.settings.base_url}{path}"
                try:
                    response, content = await self._exchange(method, url, deadline, payload)
                except _Retryable as exc:
                    self._unanswered(exc, slot, request)
                    raise
                seconds = self._clock() - slot.started
            self._answered(response.status_code, content, slot, request)
            return _Exchange(response, content, slot, seconds)

    def _unanswered(self, exc: _Retryable, slot: Slot, request: int) -> None:
        """A request ended with no answer: queued behind others, or a failure the breaker counts."""
        self.limit.open(None)  # holding everyone behind a silent endpoint would send its requests one by one
        if exc.timed_out and slot.started < self._answered_at:
            exc.queued = True
            self.limit.overloaded(slot, "a request timed out in the server's queue")
            return
        self._breaker.failed(str(exc), request)
        if exc.timed_out:
            self.limit.overloaded(slot, "no answer within the deadline")

    def _answered(self, status: int, content: bytes, slot: Slot, request: int) -> None:
        """What an answer says about the server: busy (429, 503), failing (other 5xx), or well.

        A 5xx that names the output format is a refusal of it (llama.cpp's way), not a failure.
        """
        if status in _AUTH_STATUS:
            return
        if status in _OVERLOADED_STATUS:
            self.limit.overloaded(slot, f"HTTP {status}")
        elif status >= 500 and not _names_mode(content.decode("utf-8", "replace")):
            self._breaker.failed(f"HTTP {status}", request)
        else:
            self._breaker.succeeded()
            self._answered_at = self._clock()
            self._read_queue_now_and_then()

    def _read_queue_now_and_then(self) -> None:
        """Every few seconds of answers, read the server's queue gauges aside (:meth:`server_waiting`)."""
        if self._queue_read_at is None or self._clock() - self._queue_read_at < _QUEUE_EVERY_S:
            return
        if self._queue_reading is not None and not self._queue_reading.done():
            return
        self._queue_read_at = self._clock()

        async def read() -> None:
            waiting = await self.server_waiting()
            if waiting is None:
                self._queue_read_at = None  # it has no gauges: not asked again
            else:
                self.limit.server_queue(waiting)

        self._queue_reading = asyncio.create_task(read())

    async def server_waiting(self) -> int | None:
        """How many requests the server keeps waiting for a slot, from its ``/metrics`` (vLLM, SGLang); else None."""
        root = self.settings.base_url.removesuffix("/v1")
        try:
            async with asyncio.timeout(_SLOTS_DEADLINE_S), self._http.stream("GET", root + "/metrics") as response:
                if response.status_code != 200:
                    return None
                text = (await self._body(response, cap=_SLOTS_MAX_BYTES)).decode("utf-8", "replace")
        except (httpx.HTTPError, TimeoutError, ProviderError):
            return None
        return _gauge_total(text, _WAITING_GAUGES)

    def _first_status(self, status: int) -> None:
        """The first answer's status is in: open the limit, at the server's slots when it says (asked aside).

        The status alone says the endpoint answers, as for the credential gate, so the
        others wait for the slot count, not for the first answer's whole body.
        """
        if self._opening is not None or self.limit.opened or status in _AUTH_STATUS:
            return

        async def open_limit() -> None:
            self.limit.open(await self.server_slots() if status < 400 else None)

        self._opening = asyncio.create_task(open_limit())

    async def _exchange(self, method: str, url: str, deadline: float, payload: Any) -> tuple[httpx.Response, bytes]:
        """One HTTP exchange, from connecting to the body's last byte, within ``deadline`` seconds all told."""
        name = self.settings.name
        try:
            async with asyncio.timeout(deadline):
                with _foreign_errors(name, self._redact):
                    async with self._http.stream(method, url, json=payload) as response:
                        self._gate.settle(response.status_code)  # the status alone says whether the key is taken
                        self._first_status(response.status_code)
                        return response, await self._body(response)
        except TimeoutError as exc:
            raise _Retryable(f"{name}: no complete answer within {deadline:g} s", timed_out=True) from exc

    async def _body(self, response: httpx.Response, cap: int | None = None) -> bytes:
        """The body, read into memory up to ``cap`` (default ``max_response_bytes``).

        A completion is bounded by max_tokens and a model list by the provider's
        catalogue, both far below the cap; a bigger body is a broken server or
        gateway, not an answer. It is not retried, as asking again would read
        another cap's worth of the same.
        """
        cap = cap or self.settings.max_response_bytes
        chunks: list[bytes] = []
        size = 0
        async for chunk in response.aiter_bytes():
            size += len(chunk)
            if size > cap:
                raise ProviderError(
                    f"{self.settings.name}: the response body exceeds {cap:,} bytes (max_response_bytes); not read on"
                )
            chunks.append(chunk)
        return b"".join(chunks)

    def _check(self, response: httpx.Response, content: bytes, *, asked_format: bool) -> None:
        """Raise the error an unsuccessful status means."""
        status = response.status_code
        name = self.settings.name
        if 300 <= status < 400:
            # Never followed: the key would go along to wherever it points. Its host is named, not its
            # whole address (a query may carry anything); base_url should be the endpoint's own.
            moved = urlsplit(response.headers.get("location", ""))
            where = f" to {moved.scheme}://{moved.hostname}" if moved.scheme and moved.hostname else ""
            raise ProviderError(f"{name}: HTTP {status}: redirected{where}, not followed; set base_url to the endpoint")
        if status < 400:
            return
        text = self._redact(content.decode("utf-8", "replace"))  # before cutting, so no fragment of the key survives
        # An error page runs over lines; the message quoting it is one, wherever it is shown.
        detail = single_line(text)[:_ERROR_TEXT_CHARS]
        if status in _AUTH_STATUS:
            raise AuthError(f"{name}: HTTP {status}, credentials refused: {detail}{self._unsent_key}")
        if status in (400, 413) and any(word in text.lower() for word in _CONTEXT_WORDS):
            window = _CONTEXT_TOKENS.search(text)
            if window is not None:
                self.learn_context(int(window.group(1)))
            counted = _PROMPT_TOKENS.search(text)
            prompt = int(next(group for group in counted.groups() if group)) if counted else None
            message = f"{name}: HTTP {status}, the prompt does not fit: {detail}"
            raise ContextTooLong(message, self.context_tokens, prompt)
        if asked_format and status != 429 and _names_mode(text):
            # llama-cpp-python answers an unknown response_format with HTTP 500, not 400.
            raise UnsupportedMode(f"{name}: HTTP {status}, response_format refused: {detail}")
        if status in _RETRIED_STATUS or status >= 500:
            raise _Retryable(f"{name}: HTTP {status}: {detail}", server_wait(response.headers, refused=True))
        raise ProviderError(f"{name}: HTTP {status}: {detail}")

    def _decoded(self, content: bytes) -> object:
        try:
            return json_input.loads(content)
        except ValueError as exc:  # JSONDecodeError and UnicodeDecodeError alike
            raise InvalidOutput(f"{self.settings.name}: the response body is not JSON ({exc})") from exc

    def _said_error(self, data: object) -> str:
        """What an error body sent with HTTP 200 says (some gateways answer so), quoted on one line; else nothing."""
        error = data.get("error") if isinstance(data, dict) else None
        said = error.get("message") if isinstance(error, dict) else error
        if not said:
            return ""
        return f"; it says: {single_line(self._redact(str(said)))[:_ERROR_TEXT_CHARS]}"

    def answer(self, data: object, *totals: Usage) -> str:
        """The answer's text in a completion body, after adding its tokens to each of ``totals``.

        A cut-off answer is an error, not a result. It reads and sends nothing, so a
        batch's replies are read here as the calls' are.
        """
        name = self.settings.name
        choices = data.get("choices") if isinstance(data, dict) else None
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(data, dict) or not isinstance(choice, dict) or not isinstance(message, dict):
            raise InvalidOutput(f"{name}: the response is not a chat completion{self._said_error(data)}")
        reported = data.get("usage")
        counts = reported if isinstance(reported, dict) else {}
        # The prompt tokens a prefix cache served, in the first dialect the answer speaks: OpenAI's
        # (also vLLM's, SGLang's, newer llama.cpp's), DeepSeek's, then older llama.cpp's timings.
        dialects = (
            (counts.get("prompt_tokens_details"), "cached_tokens"),
            (counts, "prompt_cache_hit_tokens"),
            (data.get("timings"), "cache_n"),
        )
        cached = next((n for found, key in dialects if isinstance(found, dict) and (n := _count(found, key))), 0)
        for total in totals:
            total.prompt_tokens += _count(counts, "prompt_tokens")
            total.completion_tokens += _count(counts, "completion_tokens")
            total.cached_prompt_tokens += cached
        if choice.get("finish_reason") == "length":
            raise Truncated(f"{name}: the reply was cut off at max_tokens")
        content = message.get("content")
        if not isinstance(content, str):
            refusal = message.get("refusal")
            raise ProviderError(f"{name}: no answer{f' (refused: {self._redact(str(refusal))})' if refusal else ''}")
        return content

    async def aclose(self) -> None:
        for task in (self._opening, self._queue_reading):
            if task is not None and not task.done():
                task.cancel()
        await self._http.aclose()
