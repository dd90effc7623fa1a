"""A simulator of an OpenAI-compatible endpoint, for benchmarks — not a model.

It answers `POST /v1/chat/completions` after a fixed latency with at most C
requests in flight, so a benchmark measures the client's own concurrency and
overhead rather than a model's speed. Requests beyond C wait in a queue (the
default) or, with `reject_beyond_concurrency`, are answered 429 with
`Retry-After`, to exercise a client's rate-limit handling. With `advertise_slots`
it says how many it runs at once as llama.cpp's server does (`GET /props`
answers `{"total_slots": C, ...}`); without, that route is 404 as on hosted
APIs. `go_down()` makes it drop every connection unanswered, as a crashed
backend behind a proxy does, until `come_back()`; `down_after=n` does so once
it has answered n completions. Every reply is a valid
completion whose content is a JSON verdict of the shape the analyzers expect;
`GET /v1/models` lists one model, "simulator".

The module also holds the loopback HTTP plumbing the test suite's fault proxy
shares: a minimal HTTP/1.1 server (request line, headers, Content-Length body,
`Connection: close`) on an asyncio loop in a background thread. Hand-written so
that a server can misbehave exactly as told (reset, stall) and so that sync
and async callers alike can use it.

    python bench/endpoint_simulator.py --latency 2 --concurrency 4 --port 8090
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import json
import math
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from http import HTTPStatus
from types import TracebackType
from typing import Any, Self

LOOPBACK = "127.0.0.1"
SIMULATED_MODEL = "simulator"
_MAX_HEADER_BYTES = 64 * 1024
_MAX_BODY_BYTES = 64 * 1024 * 1024
_START_STOP_TIMEOUT = 10.0

Verdict = dict[str, Any]
VerdictFactory = Callable[[dict[str, Any]], Verdict]


@dataclass(frozen=True)
class HttpRequest:
    """One request as received; header names are lower-cased."""

    method: str
    path: str
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any | None:
        """The body parsed as JSON, or None when it is not JSON."""
        try:
            return json.loads(self.body)
        except ValueError:
            return None


class _BadRequest(Exception):
    """The bytes on the socket are not a request this minimal server reads."""


async def _read_request(reader: asyncio.StreamReader) -> HttpRequest | None:
    """Read one request; None when the peer closed before sending one."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError as exc:
        if not exc.partial:
            return None
        raise _BadRequest("connection closed inside the request head") from exc
    except asyncio.LimitOverrunError as exc:
        raise _BadRequest("request head too large") from exc
    request_line, *header_lines = head.decode("latin-1").split("\r\n")
    try:
        method, path, _version = request_line.split(" ")
    except ValueError as exc:
        raise _BadRequest(f"malformed request line {request_line!r}") from exc
    headers = {}
    for line in filter(None, header_lines):
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    if "chunked" in headers.get("transfer-encoding", "").lower():
        raise _BadRequest("chunked request bodies are not supported; send Content-Length")
    length = int(headers.get("content-length", "0") or 0)
    if not 0 <= length <= _MAX_BODY_BYTES:
        raise _BadRequest(f"unsupported Content-Length {length}")
    body = await reader.readexactly(length) if length else b""
    return HttpRequest(method=method.upper(), path=path, headers=headers, body=body)


async def write_response(
    writer: asyncio.StreamWriter,
    status: int,
    body: bytes,
    headers: Iterable[tuple[str, str]] = (),
) -> None:
    """Write one complete response; the connection closes after it."""
    try:
        reason = HTTPStatus(status).phrase
    except ValueError:
        reason = "Unknown"
    lines = [f"HTTP/1.1 {status} {reason}"]
    lines += [f"{name}: {value}" for name, value in headers]
    lines += [f"Content-Length: {len(body)}", "Connection: close", "", ""]
    writer.write("\r\n".join(lines).encode("latin-1") + body)
    await writer.drain()


async def write_json(
    writer: asyncio.StreamWriter,
    status: int,
    payload: Any,
    headers: Iterable[tuple[str, str]] = (),
) -> None:
    """Write `payload` as a JSON response."""
    body = json.dumps(payload).encode()
    await write_response(writer, status, body, [("Content-Type", "application/json"), *headers])


def openai_error(status: int, message: str) -> dict[str, Any]:
    """An error body shaped like OpenAI's, so clients parse it as they would a real one."""
    codes = {
        400: "invalid_request_error",
        401: "invalid_api_key",
        403: "permission_denied",
        404: "not_found",
        429: "rate_limit_exceeded",
        500: "server_error",
        502: "bad_gateway",
        503: "service_unavailable",
    }
    kind = "invalid_request_error" if status < 500 else "server_error"
    return {"error": {"message": message, "type": kind, "param": None, "code": codes.get(status)}}


def retry_after_headers(seconds: float) -> list[tuple[str, str]]:
    """`Retry-After` (whole seconds when integral) plus the `retry-after-ms` OpenAI also sends."""
    text = str(int(seconds)) if float(seconds).is_integer() else str(seconds)
    return [("Retry-After", text), ("retry-after-ms", str(round(seconds * 1000)))]


def prompt_text(request_json: Any) -> str:
    """All message text of a chat request, in order (string or text-part contents)."""
    if not isinstance(request_json, dict):
        return ""
    parts: list[str] = []
    for message in request_json.get("messages") or []:
        content = message.get("content") if isinstance(message, dict) else None
        if isinstance(content, str):
            parts.append(content)
        elif isinstance(content, list):
            parts += [p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)]
    return "\n".join(parts)


class LoopbackHttpServer:
    """A minimal HTTP/1.1 server on 127.0.0.1, served from its own thread and event loop.

    Subclasses implement `_respond`. One request per connection. Stopping cancels
    whatever is still being answered, so a stalled reply never holds up shutdown.
    """

    def __init__(self, port: int = 0) -> None:
        self._requested_port = port
        self._port: int | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[Any]] = set()

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError(f"{type(self).__name__} is not running")
        return self._port

    @property
    def origin(self) -> str:
        return f"http://{LOOPBACK}:{self.port}"

    def start(self) -> Self:
        """Bind and serve in a background thread; returns once the port is open."""
        if self._loop is not None:
            raise RuntimeError(f"{type(self).__name__} is already running")
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name=type(self).__name__, daemon=True)
        self._thread.start()
        try:
            self._run(self._open())
        except BaseException:
            self._halt_loop()
            raise
        return self

    def stop(self) -> None:
        """Cancel in-flight answers, close the socket and end the thread."""
        if self._loop is None:
            return
        try:
            self._run(self._close())
        finally:
            self._halt_loop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.stop()

    async def _respond(self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        """Answer one request (or deliberately do not); `reader` is past the request's body."""
        raise NotImplementedError

    async def _on_start(self) -> None:
        """Acquire loop-bound resources; runs on the server's loop."""

    async def _on_stop(self) -> None:
        """Release what `_on_start` acquired; runs on the server's loop."""

    def _run(self, coroutine: Any) -> Any:
        assert self._loop is not None
        return asyncio.run_coroutine_threadsafe(coroutine, self._loop).result(_START_STOP_TIMEOUT)

    async def _open(self) -> None:
        await self._on_start()
        self._server = await asyncio.start_server(
            self._serve_connection, LOOPBACK, self._requested_port, limit=_MAX_HEADER_BYTES
        )
        self._port = self._server.sockets[0].getsockname()[1]

    async def _close(self) -> None:
        if self._server is not None:
            self._server.close()
        for task in list(self._connections):
            task.cancel()
        await asyncio.gather(*self._connections, return_exceptions=True)
        if self._server is not None:
            await self._server.wait_closed()
        await self._on_stop()

    def _halt_loop(self) -> None:
        assert self._loop is not None and self._thread is not None
        self._loop.call_soon_threadsafe(self._loop.stop)
        self._thread.join(_START_STOP_TIMEOUT)
        self._loop.close()
        self._loop, self._thread, self._server, self._port = None, None, None, None

    async def _serve_connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            try:
                request = await _read_request(reader)
                if request is not None:
                    await self._respond(request, reader, writer)
            except _BadRequest as exc:
                await write_json(writer, 400, openai_error(400, str(exc)))
            except (ConnectionError, asyncio.IncompleteReadError):
                raise  # not a bug of ours, and there is no one to send a 500 to
            except Exception as exc:
                await write_json(writer, 500, openai_error(500, f"{type(self).__name__} failed: {exc!r}"))
        except (ConnectionError, asyncio.IncompleteReadError):
            pass  # the client went away; nobody is left to answer
        finally:
            self._connections.discard(task)
            writer.close()


def simulated_verdict(request_json: dict[str, Any]) -> Verdict:
    """The default answer: a valid, unremarkable verdict, the same for every commit."""
    return {
        "type": "fix",
        "secondary_types": [],
        "importance": "low",
        "importance_reason": "simulated",
        "flags": {"security": False, "breaking": False, "user_facing": False},
        "summary": [],
        "one_line": "simulated verdict",
        "impact_scope": [],
        "insights": [],
        "risks": [],
        "recommendations": [],
    }


def _estimated_tokens(text: str) -> int:
    """About four characters a token: plausible counts without a tokenizer."""
    return max(1, math.ceil(len(text) / 4))


class EndpointSimulator(LoopbackHttpServer):
    """An OpenAI-compatible endpoint that answers after `latency` seconds, `concurrency` at a time.

    `requests` holds every chat-completion request received, answered or rejected;
    `max_in_flight_seen` is the most answers that were ever being prepared at once;
    `queue_waits` how long each answered request waited for a slot; `rejected`
    counts the 429s sent in `reject_beyond_concurrency` mode, `dropped` the
    connections dropped while down, and `abandoned` the queued requests whose
    client hung up before a slot was free (they are skipped, as llama.cpp and
    vLLM skip them; one already being answered runs to its end).
    """

    def __init__(
        self,
        latency: float = 0.0,
        concurrency: int = 4,
        *,
        reject_beyond_concurrency: bool = False,
        retry_after: float = 1.0,
        advertise_slots: bool = False,
        down_after: int | None = None,
        verdict: VerdictFactory = simulated_verdict,
        port: int = 0,
    ) -> None:
        if latency < 0 or concurrency < 1:
            raise ValueError("latency must be >= 0 and concurrency >= 1")
        super().__init__(port)
        self.latency = latency
        self.concurrency = concurrency
        self.reject_beyond_concurrency = reject_beyond_concurrency
        self.retry_after = retry_after
        self.advertise_slots = advertise_slots
        self._verdict = verdict
        self._down = False
        self.down_after = down_after
        self.answered = 0
        self._slots: asyncio.Semaphore | None = None
        self._in_flight = 0
        self._completion_ids = itertools.count(1)
        self._requests: list[HttpRequest] = []
        self.max_in_flight_seen = 0
        self.queue_waits: list[float] = []
        self.rejected = 0
        self.dropped = 0
        self.abandoned = 0

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    @property
    def requests(self) -> list[HttpRequest]:
        return list(self._requests)

    async def _on_start(self) -> None:
        self._slots = asyncio.Semaphore(self.concurrency)

    def go_down(self) -> None:
        """From now on, drop every connection without an answer."""
        self._down = True

    def come_back(self) -> None:
        self._down = False
        self.down_after = None

    async def _respond(self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        route = (request.method, request.path.split("?", 1)[0])
        if self._down:
            self.dropped += 1
            writer.transport.abort()
            return
        if route == ("GET", "/props") and self.advertise_slots:
            await write_json(writer, 200, {"total_slots": self.concurrency, "model_path": SIMULATED_MODEL})
        elif route == ("GET", "/v1/models"):
            model = {"id": SIMULATED_MODEL, "object": "model", "created": 0, "owned_by": "endpoint_simulator"}
            await write_json(writer, 200, {"object": "list", "data": [model]})
        elif route == ("POST", "/v1/chat/completions"):
            await self._complete(request, reader, writer)
        else:
            await write_json(writer, 404, openai_error(404, f"no route {request.method} {request.path}"))

    async def _complete(self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._requests.append(request)
        body = request.json()
        if not isinstance(body, dict):
            await write_json(writer, 400, openai_error(400, "the body must be a JSON object"))
            return
        assert self._slots is not None
        if self.reject_beyond_concurrency and self._slots.locked():
            self.rejected += 1
            message = f"simulated rate limit: {self.concurrency} requests in flight"
            await write_json(writer, 429, openai_error(429, message), retry_after_headers(self.retry_after))
            return
        queued = time.monotonic()
        async with self._slots:
            if reader.at_eof():  # the client hung up while this waited: not worth a slot (llama.cpp, vLLM)
                self.abandoned += 1
                return
            self.queue_waits.append(time.monotonic() - queued)
            self._in_flight += 1
            self.max_in_flight_seen = max(self.max_in_flight_seen, self._in_flight)
            try:
                await asyncio.sleep(self.latency)
            finally:
                self._in_flight -= 1
        if self._down:  # it went down while this request waited
            self.dropped += 1
            writer.transport.abort()
            return
        await write_json(writer, 200, self._completion(body))
        self.answered += 1
        if self.down_after is not None and self.answered >= self.down_after:
            self.go_down()

    def _completion(self, body: dict[str, Any]) -> dict[str, Any]:
        content = json.dumps(self._verdict(body), ensure_ascii=False)
        prompt_tokens = _estimated_tokens(prompt_text(body))
        completion_tokens = _estimated_tokens(content)
        return {
            "id": f"chatcmpl-simulated-{next(self._completion_ids)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or SIMULATED_MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": content},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Run the OpenAI-compatible endpoint simulator on 127.0.0.1.")
    parser.add_argument("--latency", type=float, default=1.0, help="seconds before each answer (default 1)")
    parser.add_argument("--concurrency", type=int, default=4, help="answers prepared at once (default 4)")
    parser.add_argument("--port", type=int, default=8090, help="port on 127.0.0.1 (default 8090; 0 picks one)")
    parser.add_argument(
        "--reject", action="store_true", help="answer 429 with Retry-After beyond the concurrency instead of queueing"
    )
    parser.add_argument("--advertise-slots", action="store_true", help="report the concurrency at GET /props")
    args = parser.parse_args(argv)
    simulator = EndpointSimulator(
        args.latency,
        args.concurrency,
        reject_beyond_concurrency=args.reject,
        advertise_slots=args.advertise_slots,
        port=args.port,
    )
    with simulator:
        print(f"endpoint simulator at {simulator.base_url} (model {SIMULATED_MODEL!r}); Ctrl-C stops it", flush=True)
        try:
            threading.Event().wait()
        except KeyboardInterrupt:
            pass
    print(f"served {len(simulator.requests)} requests, at most {simulator.max_in_flight_seen} at once")


if __name__ == "__main__":
    _main()
