"""Sending one message to a webhook: bounded in time, paced, retried only when that is safe.

A chat platform answers HTTP 200 to a message it refused, with its own code in
the body, so each platform reads the answer itself (:data:`Judge`) and says
whether it was delivered, may be tried again (rate limits, a busy server, 429
and 5xx, after the wait the server names in ``Retry-After`` or a growing
backoff), or was refused for good (a bad token or signature, a keyword policy,
a message too long). A refusal is one line with the platform's code and
message, and never the URL: the token is in it.

Every attempt is one exchange — connecting, sending and reading the answer —
within ``timeout_s``; attempts are capped in number and their waits in total,
so a hanging or throttling server cannot hold a run. A request that was sent
but got no answer may have been posted: it is tried again only where the
receiver can tell a repeat (the generic webhook's delivery id), as a duplicate
in a team's chat is worse than a failure the next run makes good.
"""

from __future__ import annotations

import asyncio
import collections
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from urllib.parse import urlsplit

import httpx

from repodaily.errors import PublishError
from repodaily.publish.chat.escape import clip, one_line
from repodaily.redact import Redactor
from repodaily.waits import server_wait

__all__ = ["Answer", "Judge", "Outgoing", "Pace", "Sender", "Verdict", "mask_url"]

#: Bytes of an answer that are read: a chat platform's answer is a line of JSON.
MAX_ANSWER_BYTES = 64 * 1024
# Backoff when the server names no wait: 1 s, 2 s, 4 s … up to this.
_BACKOFF_CAP_S = 30.0
_DETAIL_CHARS = 200


@dataclass(frozen=True)
class Outgoing:
    """One request as it goes out: its URL (with any signature), the exact body bytes, the extra headers."""

    url: str
    body: bytes
    headers: Mapping[str, str] = field(default_factory=dict)
    #: What in the request is derived from the signing secret, masked wherever the request is shown.
    signature: str = ""


@dataclass(frozen=True)
class Answer:
    """What the platform answered: the status, the headers, and the start of the body."""

    status: int
    headers: Mapping[str, str]
    body: bytes

    @property
    def wait(self) -> float | None:
        """The wait ``Retry-After`` asks for, in seconds, when the server names one."""
        return server_wait(self.headers, refused=True)

    def text(self) -> str:
        return self.body.decode("utf-8", "replace")


@dataclass(frozen=True)
class Verdict:
    """What an answer means: delivered, worth another attempt (after ``wait`` s, if said), or refused for good."""

    delivered: bool
    retry: bool = False
    reason: str = ""
    wait: float | None = None

    @classmethod
    def ok(cls) -> Verdict:
        return cls(delivered=True)

    @classmethod
    def again(cls, reason: str, wait: float | None = None) -> Verdict:
        return cls(delivered=False, retry=True, reason=reason, wait=wait)

    @classmethod
    def refused(cls, reason: str) -> Verdict:
        return cls(delivered=False, reason=reason)


#: Reads one answer of a platform.
Judge = Callable[[Answer], Verdict]


def mask_url(url: str) -> str:
    """Where a webhook points, for people: scheme and host, the rest (which carries the token) hidden."""
    parts = urlsplit(url)
    rest = "/…" if parts.path.strip("/") or parts.query else ""
    return f"{parts.scheme}://{parts.hostname or '?'}{f':{parts.port}' if parts.port else ''}{rest}"


class Pace:
    """At most ``count`` requests in any ``window_s`` seconds: a platform's per-robot limit, kept on our side."""

    def __init__(
        self, count: int, window_s: float, *, clock: Callable[[], float], sleep: Callable[[float], Awaitable[object]]
    ) -> None:
        self._count, self._window = count, window_s
        self._clock, self._sleep = clock, sleep
        self._sent: collections.deque[float] = collections.deque()

    async def turn(self) -> None:
        """Wait until one more request keeps within the limit, and count it."""
        while True:
            now = self._clock()
            while self._sent and self._sent[0] <= now - self._window:
                self._sent.popleft()
            if len(self._sent) < self._count:
                self._sent.append(now)
                return
            await self._sleep(self._sent[0] + self._window - now)


class Sender:
    """Posts messages to one webhook for one publisher; :meth:`send` returns once delivered or raises PublishError."""

    def __init__(
        self,
        *,
        target: str,
        timeout_s: float,
        max_attempts: int,
        max_wait_s: float,
        pace: Sequence[tuple[int, float]],
        idempotent: bool,
        redact: Redactor,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.target = target
        self._timeout, self._attempts, self._max_wait = timeout_s, max_attempts, max_wait_s
        self._idempotent = idempotent
        self._redact = redact
        self._sleep = sleep
        self._paces = [Pace(count, window, clock=clock, sleep=sleep) for count, window in pace]
        # No per-read timeouts: each exchange runs under one total deadline instead.
        self._http = httpx.AsyncClient(timeout=None, follow_redirects=False)

    async def send(self, build: Callable[[], Outgoing], judge: Judge) -> int:
        """Send the request ``build`` makes (afresh for each attempt: signatures expire); return the attempts made."""
        waited = 0.0
        for attempt in range(1, self._attempts + 1):
            for pace in self._paces:
                await pace.turn()
            verdict = await self._attempt(build(), judge)
            if verdict.delivered:
                return attempt
            reason = self._redact(clip(one_line(verdict.reason), _DETAIL_CHARS))
            if not verdict.retry:
                raise PublishError(f"{self.target}: {reason}")
            wait = verdict.wait if verdict.wait is not None else min(_BACKOFF_CAP_S, 2.0 ** (attempt - 1))
            if attempt == self._attempts or waited + wait > self._max_wait:
                raise PublishError(f"{self.target}: {reason} (gave up after {attempt} attempt(s))")
            waited += wait
            await self._sleep(wait)
        raise AssertionError("unreachable: the last attempt returns or raises")

    async def _attempt(self, request: Outgoing, judge: Judge) -> Verdict:
        """One exchange within the deadline, read by ``judge``; a transport failure as the verdict it deserves."""
        headers = {"Content-Type": "application/json; charset=utf-8", **request.headers}
        try:
            async with asyncio.timeout(self._timeout):
                async with self._http.stream("POST", request.url, content=request.body, headers=headers) as response:
                    return judge(Answer(response.status_code, response.headers, await _start_of(response)))
        except (httpx.ConnectError, httpx.ConnectTimeout) as exc:  # nothing was sent
            return Verdict.again(f"cannot connect ({type(exc).__name__})")
        except (TimeoutError, httpx.HTTPError) as exc:
            what = "no answer" if isinstance(exc, TimeoutError) else f"the exchange failed ({type(exc).__name__})"
            message = f"{what} within {self._timeout:g} s"
            if self._idempotent:
                return Verdict.again(message)
            return Verdict.refused(f"{message}; it may have been posted, so it is not sent again")

    async def aclose(self) -> None:
        await self._http.aclose()


async def _start_of(response: httpx.Response) -> bytes:
    """The body up to :data:`MAX_ANSWER_BYTES`: enough to read any answer, never a broken server's gigabytes."""
    chunks: list[bytes] = []
    size = 0
    async for chunk in response.aiter_bytes():
        chunks.append(chunk)
        size += len(chunk)
        if size >= MAX_ANSWER_BYTES:
            break
    return b"".join(chunks)[:MAX_ANSWER_BYTES]
