"""A fault-injecting reverse proxy between an LLM client and a real OpenAI-compatible server.

Real servers fail rarely and never on cue; a client's retry, timeout and
validation paths need failures on cue. The proxy forwards to a real upstream
(the local llama.cpp server in integration tests) and applies one planned fault
to each `POST .../chat/completions`: an HTTP error status, a reset connection,
a stall, or a rewritten reply (truncated, not JSON, JSON of the wrong shape).
Every other path is forwarded untouched. Each request is recorded, so a test can
assert how many calls were made and what they carried.

    with FaultProxy("http://127.0.0.1:8080/v1") as proxy:
        proxy.set_plan([http_status(429, retry_after=1), RESET, TRUNCATE])
        client = make_client(base_url=proxy.base_url)   # the proxy mirrors the upstream's paths
        ...
        assert len(proxy.chat_calls) == 4

The planned faults are consumed first, one per chat request; then the `always`
fault applies (passthrough unless set). Replies are buffered, so streamed
(`stream: true`) replies pass through whole, and the rewriting faults need a
non-streamed JSON completion (otherwise the client gets a 502 that says why).
"""

from __future__ import annotations

import asyncio
import json
import socket
import struct
import threading
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any
from urllib.parse import urlsplit

import httpx
from endpoint_simulator import (  # shares the loopback HTTP server of the bench simulator
    HttpRequest,
    LoopbackHttpServer,
    openai_error,
    prompt_text,
    retry_after_headers,
    write_json,
    write_response,
)

# RFC 9110 hop-by-hop headers, plus those the forwarding recomputes (host, length, encoding).
_NOT_FORWARDED = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-authenticate",
        "proxy-authorization",
        "proxy-connection",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "content-encoding",
    }
)
NOT_JSON_CONTENT = '{"type": "fix", "importance": "high", "summary": ["the reply stops mid-obj'
WRONG_SCHEMA_CONTENT = '{"answer": 42}'


class FaultKind(StrEnum):
    http_status = "http_status"
    reset = "reset"
    stall = "stall"
    truncate = "truncate"
    invalid_json = "invalid_json"
    wrong_schema = "wrong_schema"
    passthrough = "passthrough"


@dataclass(frozen=True)
class Fault:
    """What the proxy does to one chat request. Build with the helpers below."""

    kind: FaultKind
    status: int | None = None
    retry_after: float | None = None
    seconds: float | None = None


def http_status(status: int, retry_after: float | None = None) -> Fault:
    """Answer `status` with an OpenAI-style error body, and `Retry-After` when given; upstream is not called."""
    if not 400 <= status <= 599:
        raise ValueError(f"an error status is 4xx or 5xx, not {status}")
    return Fault(FaultKind.http_status, status=status, retry_after=retry_after)


def stall(seconds: float) -> Fault:
    """Read the request, then answer nothing for `seconds` (capped by the proxy's `max_stall`) and close."""
    if seconds < 0:
        raise ValueError("a stall lasts zero seconds or more")
    return Fault(FaultKind.stall, seconds=seconds)


RESET = Fault(FaultKind.reset)
"""Read the request, then reset the connection (RST) without a response."""
TRUNCATE = Fault(FaultKind.truncate)
"""Forward, then cut the reply's content in half and set `finish_reason` to "length"."""
INVALID_JSON = Fault(FaultKind.invalid_json)
"""Forward, then replace the reply's content with `NOT_JSON_CONTENT`."""
WRONG_SCHEMA = Fault(FaultKind.wrong_schema)
"""Forward, then replace the reply's content with `WRONG_SCHEMA_CONTENT`: valid JSON, wrong shape."""
PASSTHROUGH = Fault(FaultKind.passthrough)
"""Forward as is."""


@dataclass(frozen=True)
class ProxiedCall:
    """One request the proxy received, and what became of it."""

    method: str
    path: str
    fault: Fault
    request_json: Any | None
    upstream_status: int | None
    """The upstream's status; None when the upstream was not reached."""

    @property
    def prompt(self) -> str:
        """All message text the request carried."""
        return prompt_text(self.request_json)


class _CannotApply(Exception):
    """The upstream's reply is not a completion this fault can rewrite."""


class FaultProxy(LoopbackHttpServer):
    """A reverse proxy on 127.0.0.1 that misbehaves on chat completions as planned."""

    def __init__(self, upstream_base_url: str, *, upstream_timeout: float = 600.0, max_stall: float = 60.0) -> None:
        super().__init__()
        upstream = urlsplit(upstream_base_url)
        if upstream.hostname not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"the upstream must be on loopback, not {upstream.hostname!r}")
        self._upstream_origin = f"{upstream.scheme}://{upstream.netloc}"
        self._prefix = upstream.path.rstrip("/")
        self._upstream_timeout = upstream_timeout
        self._max_stall = max_stall
        self._lock = threading.Lock()
        self._plan: deque[Fault] = deque()
        self._always = PASSTHROUGH
        self._calls: list[ProxiedCall] = []
        self._client: httpx.AsyncClient | None = None

    @property
    def base_url(self) -> str:
        """Where the client should point: the upstream's base URL, on the proxy."""
        return f"{self.origin}{self._prefix}"

    @property
    def calls(self) -> list[ProxiedCall]:
        """Every request received, in order."""
        with self._lock:
            return list(self._calls)

    @property
    def chat_calls(self) -> list[ProxiedCall]:
        """The chat-completion requests received, in order."""
        return [call for call in self.calls if self._is_chat(call.method, call.path)]

    def set_plan(self, faults: Iterable[Fault]) -> None:
        """Replace the queue of faults; each chat request consumes the next one."""
        with self._lock:
            self._plan = deque(faults)

    def always(self, fault: Fault) -> None:
        """The fault for chat requests once the plan is used up."""
        with self._lock:
            self._always = fault

    def clear(self) -> None:
        """Forget the plan, the `always` fault and the recorded calls."""
        with self._lock:
            self._plan.clear()
            self._always = PASSTHROUGH
            self._calls.clear()

    async def _on_start(self) -> None:
        self._client = httpx.AsyncClient(timeout=self._upstream_timeout, trust_env=False)

    async def _on_stop(self) -> None:
        if self._client is not None:
            await self._client.aclose()

    def _is_chat(self, method: str, path: str) -> bool:
        return method == "POST" and path.split("?", 1)[0] == f"{self._prefix}/chat/completions"

    def _next_fault(self, request: HttpRequest) -> Fault:
        if not self._is_chat(request.method, request.path):
            return PASSTHROUGH
        with self._lock:
            return self._plan.popleft() if self._plan else self._always

    def _record(self, request: HttpRequest, fault: Fault, upstream_status: int | None) -> None:
        call = ProxiedCall(request.method, request.path, fault, request.json(), upstream_status)
        with self._lock:
            self._calls.append(call)

    async def _respond(self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        fault = self._next_fault(request)
        if fault.kind is FaultKind.http_status:
            assert fault.status is not None
            self._record(request, fault, None)
            headers = retry_after_headers(fault.retry_after) if fault.retry_after is not None else []
            message = f"injected fault: HTTP {fault.status}"
            await write_json(writer, fault.status, openai_error(fault.status, message), headers)
        elif fault.kind is FaultKind.reset:
            self._record(request, fault, None)
            _reset(writer)
        elif fault.kind is FaultKind.stall:
            assert fault.seconds is not None
            self._record(request, fault, None)
            await _wait_for_hangup(reader, min(fault.seconds, self._max_stall))
        else:
            await self._forward(request, fault, writer)

    async def _forward(self, request: HttpRequest, fault: Fault, writer: asyncio.StreamWriter) -> None:
        assert self._client is not None
        try:
            upstream = await self._client.request(
                request.method,
                self._upstream_origin + request.path,
                headers=_forwardable(request.headers.items()),
                content=request.body,
            )
        except httpx.HTTPError as exc:
            self._record(request, fault, None)
            await write_json(writer, 502, openai_error(502, f"fault proxy: upstream unreachable: {exc!r}"))
            return
        self._record(request, fault, upstream.status_code)
        body = upstream.content
        if fault.kind is not FaultKind.passthrough and upstream.status_code == 200:
            try:
                body = _rewrite(body, fault.kind)
            except _CannotApply as exc:
                message = f"fault proxy: cannot apply {fault.kind} to this reply: {exc}"
                await write_json(writer, 502, openai_error(502, message))
                return
        await write_response(writer, upstream.status_code, body, _forwardable(upstream.headers.multi_items()))


def _forwardable(headers: Iterable[tuple[str, str]]) -> list[tuple[str, str]]:
    return [(name, value) for name, value in headers if name.lower() not in _NOT_FORWARDED]


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with RST instead of FIN: SO_LINGER on, zero seconds."""
    sock = writer.get_extra_info("socket")
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


async def _wait_for_hangup(reader: asyncio.StreamReader, seconds: float) -> None:
    """Say nothing until the client hangs up or `seconds` pass, whichever comes first."""
    try:
        await asyncio.wait_for(reader.read(1), seconds)
    except TimeoutError:
        pass


def _rewrite(body: bytes, kind: FaultKind) -> bytes:
    """Apply a rewriting fault to a non-streamed chat completion."""
    try:
        completion = json.loads(body)
        choice = completion["choices"][0]
        content = choice["message"]["content"]
    except (ValueError, KeyError, IndexError, TypeError) as exc:
        raise _CannotApply(f"not a JSON chat completion ({exc!r})") from exc
    if not isinstance(content, str):
        raise _CannotApply("the message has no text content")
    if kind is FaultKind.truncate:
        choice["message"]["content"] = content[: len(content) // 2]
        choice["finish_reason"] = "length"
    elif kind is FaultKind.invalid_json:
        choice["message"]["content"] = NOT_JSON_CONTENT
    elif kind is FaultKind.wrong_schema:
        choice["message"]["content"] = WRONG_SCHEMA_CONTENT
    else:
        raise AssertionError(f"{kind} does not rewrite replies")
    return json.dumps(completion).encode()
