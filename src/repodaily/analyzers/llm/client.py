"""An OpenAI-compatible chat client: one endpoint, its limits, and our errors only.

Everything foreign that can go wrong on the wire becomes one of ours at this
edge (:func:`_foreign_errors` and :meth:`ChatClient._check`), raised ``from`` the
original::

    httpx timeout                         ProviderError, retried
    connect/read/write error, reset       ProviderError, retried
    other httpx errors (bad URL scheme…)  ProviderError, not retried
    HTTP 408/425/429/5xx                  ProviderError, retried (after the server's Retry-After
                                          or x-ratelimit-reset-*, else exponential backoff
                                          with full jitter)
    HTTP 401/403                          AuthError, never retried; later calls fail at once
    HTTP 4xx (other)                      ProviderError, not retried
    an error naming response_format       UnsupportedMode (a ProviderError): the caller
                                          asks again in a weaker output mode
    body that is not a JSON completion    InvalidOutput
    finish_reason == "length"             Truncated

Requests in flight are bounded per endpoint, and optional requests/tokens per
minute budgets apply (:mod:`.limits`). The API key is read from the environment
when the client is created, sent only in the Authorization header, and masked
in every error message, in each form a server may echo it back in
(:mod:`repodaily.redact`).
"""

from __future__ import annotations

import asyncio
import json
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from contextlib import contextmanager
from enum import StrEnum
from typing import Any

import httpx

from repodaily.analyzers.llm.limits import RequestQuota, server_wait
from repodaily.analyzers.llm.settings import EndpointSettings
from repodaily.context.tokens import count_tokens
from repodaily.credentials import redactor_for
from repodaily.errors import AuthError, InvalidOutput, ProviderError, Truncated
from repodaily.models import Usage

__all__ = ["ChatClient", "Message", "OutputMode", "UnsupportedMode"]

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


class _Retryable(ProviderError):
    """A failure that may pass: a timeout, a dropped connection, 429, 5xx."""

    def __init__(self, message: str, wait_s: float | None = None) -> None:
        super().__init__(message)
        self.wait_s = wait_s


def _count(counts: dict[str, Any], key: str) -> int:
    value = counts.get(key)
    return value if isinstance(value, int) and value > 0 else 0


@contextmanager
def _foreign_errors(endpoint: str, redact: Callable[[str], str]) -> Iterator[None]:
    """Turn httpx and JSON-decoding failures into ours, naming the endpoint and never the key."""
    try:
        yield
    except httpx.TimeoutException as exc:
        raise _Retryable(f"{endpoint}: no answer in time ({type(exc).__name__})") from exc
    except (httpx.NetworkError, httpx.RemoteProtocolError, httpx.ProxyError) as exc:
        raise _Retryable(f"{endpoint}: connection failed ({type(exc).__name__}: {redact(str(exc))})") from exc
    except httpx.HTTPError as exc:
        raise ProviderError(f"{endpoint}: request failed ({type(exc).__name__}: {redact(str(exc))})") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise InvalidOutput(f"{endpoint}: the response body is not JSON ({exc})") from exc


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
        self._http = httpx.AsyncClient(headers=headers, transport=transport)
        self._slots = asyncio.Semaphore(settings.concurrency)
        self._quota = RequestQuota(
            requests_per_minute=settings.requests_per_minute,
            tokens_per_minute=settings.tokens_per_minute,
            clock=clock,
            sleep=sleep,
        )
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()
        self._auth_error: AuthError | None = None

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
        if self._auth_error is not None:
            raise AuthError(str(self._auth_error))
        limit = max_tokens or self.settings.max_tokens
        body: dict[str, Any] = {
            "model": self.settings.model,
            "messages": messages,
            "temperature": self.settings.temperature,
            "max_tokens": limit,
        }
        if response_format is not None:
            body["response_format"] = response_format
        prompt_tokens = sum(count_tokens(m["content"]) + _TOKENS_PER_MESSAGE for m in messages)
        timeout = self.settings.timeout_for(prompt_tokens)
        started = self._clock()
        try:
            return await self._attempts(body, prompt_tokens + limit, timeout, usage)
        finally:
            elapsed = self._clock() - started
            usage.seconds += elapsed
            self.usage.seconds += elapsed

    async def list_models(self) -> list[str] | None:
        """The model ids the endpoint lists, or None when it has no listing (HTTP 404)."""
        with _foreign_errors(self.settings.name, self._redact):
            response = await self._http.get(f"{self.settings.base_url}/models", timeout=self.settings.timeout_s)
            if response.status_code == 404:
                return None
            self._check(response, asked_format=False)
            data = response.json()
        entries = data.get("data") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise InvalidOutput(f"{self.settings.name}: the model list is not an OpenAI-style list")
        return [str(entry.get("id")) for entry in entries if isinstance(entry, dict)]

    async def _attempts(self, body: dict[str, Any], tokens: int, timeout: float, usage: Usage) -> str:
        attempts = self.settings.max_retries + 1
        for attempt in range(attempts):
            await self._quota.acquire(tokens)
            try:
                async with self._slots:
                    return await self._send(body, timeout, usage)
            except _Retryable as exc:
                wait = self._backoff(exc, attempt)
                if attempt + 1 == attempts or wait is None:
                    raise ProviderError(f"{exc} (gave up after {attempt + 1} attempt(s))") from exc
                log.info("%s; retrying in %.1f s", exc, wait)
                await self._sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    def _backoff(self, exc: _Retryable, attempt: int) -> float | None:
        """The server's wait when it named one (None if too long to be worth it), else full jitter."""
        if exc.wait_s is not None:
            return exc.wait_s if exc.wait_s <= _LONGEST_WAIT_S else None
        return self._rng.uniform(0, min(_BACKOFF_CAP_S, _BACKOFF_BASE_S * 2**attempt))

    async def _send(self, body: dict[str, Any], timeout: float, usage: Usage) -> str:
        name = self.settings.name
        usage.calls += 1
        self.usage.calls += 1
        with _foreign_errors(name, self._redact):
            response = await self._http.post(f"{self.settings.base_url}/chat/completions", json=body, timeout=timeout)
            self._check(response, asked_format="response_format" in body)
            data = response.json()
        if (pause := server_wait(response.headers, refused=False)) is not None:
            self._quota.pause(pause)
        return self._completion(data, usage)

    def _check(self, response: httpx.Response, *, asked_format: bool) -> None:
        """Raise the error an unsuccessful status means."""
        status = response.status_code
        if status < 400:
            return
        name = self.settings.name
        text = self._redact(response.text)  # before cutting, so no fragment of the key survives
        detail = text[:_ERROR_TEXT_CHARS].strip()
        if status in _AUTH_STATUS:
            self._auth_error = AuthError(f"{name}: HTTP {status}, credentials refused: {detail}")
            raise self._auth_error
        if asked_format and status != 429 and any(word in text.lower() for word in _MODE_WORDS):
            # llama-cpp-python answers an unknown response_format with HTTP 500, not 400.
            raise UnsupportedMode(f"{name}: HTTP {status}, response_format refused: {detail}")
        if status in _RETRIED_STATUS or status >= 500:
            raise _Retryable(f"{name}: HTTP {status}: {detail}", server_wait(response.headers, refused=True))
        raise ProviderError(f"{name}: HTTP {status}: {detail}")

    def _completion(self, data: object, usage: Usage) -> str:
        """The answer's text, after counting its tokens; a cut-off answer is an error, not a result."""
        name = self.settings.name
        choices = data.get("choices") if isinstance(data, dict) else None
        choice = choices[0] if isinstance(choices, list) and choices else None
        message = choice.get("message") if isinstance(choice, dict) else None
        if not isinstance(data, dict) or not isinstance(choice, dict) or not isinstance(message, dict):
            raise InvalidOutput(f"{name}: the response is not a chat completion")
        counts = data.get("usage") if isinstance(data.get("usage"), dict) else {}
        for total in (usage, self.usage):
            total.prompt_tokens += _count(counts, "prompt_tokens")
            total.completion_tokens += _count(counts, "completion_tokens")
        if choice.get("finish_reason") == "length":
            raise Truncated(f"{name}: the reply was cut off at max_tokens")
        content = message.get("content")
        if not isinstance(content, str):
            refusal = message.get("refusal")
            raise ProviderError(f"{name}: no answer{f' (refused: {self._redact(str(refusal))})' if refusal else ''}")
        return content

    async def aclose(self) -> None:
        await self._http.aclose()
