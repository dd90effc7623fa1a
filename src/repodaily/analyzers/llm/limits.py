"""Staying inside a provider's limits: our own budgets, and the waits the server asks for.

Two sources decide when the next request may go out (the second read by
:mod:`repodaily.waits`, which publishers share):

* the budgets we are configured with — requests and tokens per minute — kept as
  token buckets that callers *reserve* from (a bucket may go into debt; the
  caller then sleeps the debt off), so concurrent callers never race between a
  check and a take;
* what the server says: ``Retry-After`` (seconds or an HTTP date) on a refused
  request, and the ``x-ratelimit-remaining-*``/``x-ratelimit-reset-*`` pairs that
  OpenAI, DeepSeek, Groq and others send on every answer. When a remaining
  count reaches zero the whole endpoint pauses until its reset.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

__all__ = ["RequestQuota"]


class _Bucket:
    """``per_minute`` units, refilled continuously; reservations may overdraw it."""

    def __init__(self, per_minute: int, clock: Callable[[], float]) -> None:
        self.capacity = float(per_minute)
        self.level = float(per_minute)
        self.rate = per_minute / 60.0
        self.clock = clock
        self.updated = clock()

    def reserve(self, amount: float) -> float:
        """Take ``amount`` now; return how long to wait before using it."""
        now = self.clock()
        self.level = min(self.capacity, self.level + (now - self.updated) * self.rate)
        self.updated = now
        # One request bigger than the whole minute's budget would otherwise wait forever.
        self.level -= min(amount, self.capacity)
        return max(-self.level / self.rate, 0.0)


class RequestQuota:
    """Requests/tokens per minute (0: unlimited), plus pauses the server asked for."""

    def __init__(
        self,
        *,
        requests_per_minute: int,
        tokens_per_minute: int,
        clock: Callable[[], float],
        sleep: Callable[[float], Awaitable[object]],
    ) -> None:
        self._requests = _Bucket(requests_per_minute, clock) if requests_per_minute else None
        self._tokens = _Bucket(tokens_per_minute, clock) if tokens_per_minute else None
        self._clock = clock
        self._sleep = sleep
        self._paused_until = clock()

    async def acquire(self, tokens: int) -> None:
        """Wait until one request of about ``tokens`` tokens may be sent."""
        delays = [self._paused_until - self._clock()]
        if self._requests is not None:
            delays.append(self._requests.reserve(1))
        if self._tokens is not None:
            delays.append(self._tokens.reserve(tokens))
        delay = max(delays)
        if delay > 0:
            await self._sleep(delay)

    def pause(self, seconds: float) -> None:
        """Send nothing for ``seconds`` (the server said a limit is exhausted)."""
        self._paused_until = max(self._paused_until, self._clock() + seconds)
