"""How many requests one endpoint gets at once: a limit learnt from its answers.

A server runs a few requests at once (its slots) and queues the rest. From the
outside a queue shows only as latency, then as timeouts: a request's deadline
counts the time it waits in the server's queue. Sending more than the slots buys
nothing — the server's throughput stays the same — while every queued request's
deadline ticks away. So the limit follows what the answers say:

- **Start.** One request at a time until the endpoint has answered once: nothing
  says yet how many it runs at once (and a refused key then costs one request).
  Then the limit opens at the slots the server reports (llama.cpp's ``/props``),
  else at the configured concurrency. A concurrency the user set is a cap the
  server's count never raises; the default one gives way to the server's count.
- **Additive increase.** A success whose pace (seconds per completion token, so
  long answers are not mistaken for queueing) stays near the fastest seen grows
  the limit by one per limit's worth of successes, up to the ceiling: the
  server's slots, else the configured concurrency.
- **Latency decrease.** A success that took 1.75 times the fastest pace or more
  while other requests of ours were in flight waited in a queue. By Little's
  law the server ran about (requests in flight) × (fastest pace) / (its pace)
  of them at once: the limit drops to that, or by one if that is more, once
  per round.
- **Multiplicative decrease.** A timeout, 429 or 503 halves the limit, once per
  round: a signal from a request sent before the last decrease describes the old
  limit, not the current one.
- **The server's own count.** vLLM and SGLang publish how many requests they run
  and keep waiting (``/metrics``); while some wait, ours would too, so the limit
  drops to what of ours the server runs, or by one if that is more.

This is AIMD with a delay signal, as in TCP Vegas and Netflix's
concurrency-limits. Those libraries protect a server from its callers; this
protects a request's deadline from a server's queue, with latencies that scale
with the answer's length, so it is written here, small.
"""

from __future__ import annotations

import asyncio
import logging
import math
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass

__all__ = ["ConcurrencyLimit", "Slot"]

log = logging.getLogger(__name__)

#: A pace within this factor of the fastest is a request that did not queue.
_UNQUEUED = 1.25
#: Beyond this factor, a request shared with others waited behind them.
_QUEUED = 1.75
#: Completion tokens below this say little about an answer's length (a refusal, an error body).
_MIN_TOKENS = 32


@dataclass(frozen=True)
class Slot:
    """One request's place under the limit: when it was sent, and how many of ours were in flight, itself included."""

    started: float
    in_flight: int


class ConcurrencyLimit:
    """The adaptive limit of one endpoint; see the module docstring for the rules."""

    def __init__(self, name: str, configured: int, *, explicit: bool, clock: Callable[[], float]) -> None:
        self.name = name
        self.configured = configured
        self.explicit = explicit
        self.ceiling = configured
        #: Slots the server reported (None: it did not say).
        self.server_slots: int | None = None
        self._clock = clock
        self._limit = 1.0
        self._opened = False
        self._in_flight = 0
        self._fastest: float | None = None
        self._decreased_at = -math.inf
        self._wake = asyncio.Event()
        #: (time, limit) at the start and after every change, for benchmarks and run summaries.
        self.history: list[tuple[float, int]] = [(clock(), 1)]

    @property
    def limit(self) -> int:
        return max(1, math.floor(self._limit))

    @property
    def opened(self) -> bool:
        return self._opened

    @asynccontextmanager
    async def slot(self) -> AsyncIterator[Slot]:
        """Wait for room under the limit; the request holds it until the block ends."""
        while self._in_flight >= self.limit:
            wake = self._wake
            await wake.wait()
        self._in_flight += 1
        try:
            yield Slot(started=self._clock(), in_flight=self._in_flight)
        finally:
            self._in_flight -= 1
            self._notify()

    def open(self, server_slots: int | None) -> None:
        """The endpoint answered: leave the one-at-a-time start, at the server's slots when it said."""
        if self._opened:
            return
        self._opened = True
        self.server_slots = server_slots
        if server_slots is not None:
            self.ceiling = min(server_slots, self.configured) if self.explicit else server_slots
        self._set(self.ceiling, "opened")

    def answered(self, slot: Slot, seconds: float, completion_tokens: int) -> None:
        """A success: grow while the pace holds, shrink by one when it shows queueing."""
        pace = seconds / max(completion_tokens, _MIN_TOKENS)
        if self._fastest is None or pace < self._fastest:
            self._fastest = pace
        if not self._opened:
            return
        if pace <= self._fastest * _UNQUEUED:
            if self._limit < self.ceiling:
                self._set(min(self.ceiling, self._limit + 1 / self.limit), None)
        elif pace >= self._fastest * _QUEUED and slot.in_flight > 1 and slot.started >= self._decreased_at:
            served_at_once = slot.in_flight * self._fastest / pace
            self._set(max(1.0, min(self._limit - 1, math.ceil(served_at_once))), "answers slowed by queueing")

    def overloaded(self, slot: Slot, reason: str) -> None:
        """A timeout, 429 or 503: halve, unless a decrease already answered this round."""
        if not self._opened or slot.started < self._decreased_at:
            return
        self._set(max(1.0, self._limit / 2), reason)

    def server_queue(self, waiting: int) -> None:
        """The server says ``waiting`` requests wait for a slot: keep ours out of its queue."""
        if waiting > 0 and self._opened:
            ours_running = self._in_flight - waiting
            self._set(max(1.0, min(self._limit - 1, ours_running)), f"the server reports {waiting} waiting")

    def _set(self, value: float, reason: str | None) -> None:
        before = self.limit
        if value < self._limit:
            self._decreased_at = self._clock()
        self._limit = value
        if self.limit != before:
            self.history.append((self._clock(), self.limit))
            if reason:
                log.info("%s: concurrency %d → %d (%s)", self.name, before, self.limit, reason)
            self._notify()

    def _notify(self) -> None:
        self._wake.set()
        self._wake = asyncio.Event()
