"""Staying inside a provider's limits: our own budgets, and the waits the server asks for.

Two sources decide when the next request may go out:

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

import re
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from email.utils import parsedate_to_datetime

__all__ = ["RequestQuota", "parse_duration", "server_wait"]

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_LIMIT_KINDS = ("requests", "tokens")


def parse_duration(text: str) -> float | None:
    """Seconds from ``"20"``, ``"0.5s"``, ``"120ms"`` or ``"6m0s"`` (the forms providers send); None if unreadable."""
    text = text.strip()
    try:
        return max(float(text), 0.0)
    except ValueError:
        pass
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        return None
    return sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = parse_duration(value)
    if seconds is not None:
        return seconds
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    # Measured against the server's own clock when it sends one: our clock may be off.
    reference = _http_date(headers.get("date")) or datetime.now(moment.tzinfo)
    return max((moment - reference).total_seconds(), 0.0)


def _http_date(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None


def server_wait(headers: Mapping[str, str], *, refused: bool) -> float | None:
    """How long the server asks us to hold off, in seconds, or None when it does not say.

    After a refused request (429, 503) ``Retry-After`` wins; failing that, the
    reset of every exhausted limit (or of every limit, when the server gives no
    remaining counts). After an accepted one, only limits that reached zero count.
    """
    if refused and (seconds := _retry_after(headers)) is not None:
        return seconds
    waits = []
    for kind in _LIMIT_KINDS:
        reset = headers.get(f"x-ratelimit-reset-{kind}")
        remaining = headers.get(f"x-ratelimit-remaining-{kind}")
        if reset is None or (seconds := parse_duration(reset)) is None:
            continue
        exhausted = remaining is not None and remaining.strip() in ("0", "0.0")
        if exhausted or (remaining is None and refused):
            waits.append(seconds)
    return max(waits) if waits else None


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
