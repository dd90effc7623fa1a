"""What must end when a run is interrupted, though the main thread cannot reach it.

Ctrl-C and SIGTERM raise in the main thread (``cli.py``): its asyncio tasks are
cancelled and their ``finally`` blocks run. Work handed to a worker thread is not
cancelled: a git clone from a server that never answers, a wait on GitHub's rate
limit in the github source's own event loop. ``asyncio.run`` waits for those
threads before it returns, and the interpreter before it exits, so a run would
hang silently after the signal that should have ended it. Each such piece of
work says how to stop it while it runs (:func:`stoppable`); the signal handler
calls :func:`stop_all` before it raises, and the stopped work ends in an error
of its own that nobody is left to read.

One piece of work is let finish instead: a delivery under way (:func:`deferring`).
A message a chat platform has taken but the ledger has not recorded would be sent
again by the next run; so an interrupt that comes while one is sent waits for it
to be answered and recorded, :data:`GRACE_S` at most (:func:`postponed`), and a
second interrupt stops the run at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import signal
import threading
from collections.abc import Callable, Iterator

__all__ = ["GRACE_S", "deferring", "postponed", "stop_all", "stoppable"]

#: How long an interrupt waits for a delivery under way to be answered and recorded.
GRACE_S = 30.0

# Reentrant: the signal handler runs in the main thread, which may hold the lock at that moment.
_LOCK = threading.RLock()
_STOPS: dict[int, Callable[[], object]] = {}
_KEYS = itertools.count()


@contextlib.contextmanager
def stoppable(stop: Callable[[], object]) -> Iterator[None]:
    """While the block runs, :func:`stop_all` calls ``stop`` (from another thread: it must only signal)."""
    with _LOCK:
        key = next(_KEYS)
        _STOPS[key] = stop
    try:
        yield
    finally:
        with _LOCK:
            del _STOPS[key]


def stop_all() -> None:
    """Stop every piece of work under way; a stop that fails (the work just ended) is of no concern."""
    with _LOCK:
        stops = list(_STOPS.values())
    for stop in stops:
        with contextlib.suppress(Exception):
            stop()


_deferring = 0
#: The interrupt waiting for the deliveries under way, with the timer that raises it when they take too long.
_pending: list[tuple[signal.Signals, threading.Timer]] = []
#: The event loop the deliveries run on: the interrupt is raised from it, between its tasks' steps.
_loops: list[asyncio.AbstractEventLoop] = []


@contextlib.contextmanager
def deferring() -> Iterator[None]:
    """While the block runs (on an event loop), an interrupt waits for it to end (:func:`postponed`)."""
    global _deferring
    loop = asyncio.get_running_loop()
    with _LOCK:
        _deferring += 1
        _loops[:] = [loop]
    try:
        yield
    finally:
        with _LOCK:
            _deferring -= 1
            due = _pending.pop() if _pending and not _deferring else None
        if due is not None:
            signum, timer = due
            timer.cancel()
            loop.call_soon(_raise, signum)


def postponed(signum: int) -> bool:
    """Whether the interrupt ``signum`` waits for the deliveries under way; the signal handler asks first.

    It waits when a :func:`deferring` block runs and no interrupt waits already: a
    second one, or the first after :data:`GRACE_S`, is not postponed.
    """
    with _LOCK:
        if _pending:
            _pending.pop()[1].cancel()
            return False
        if not _deferring:
            return False
        loop, sent = _loops[0], signal.Signals(signum)
        timer = threading.Timer(GRACE_S, _raise_from_another_thread, (loop, sent))
        timer.daemon = True
        _pending.append((sent, timer))
    timer.start()
    return True


def _raise(signum: signal.Signals) -> None:
    """The signal sent again, from an event loop's callback: its handler raises between the loop's tasks' steps,
    as when it comes while the loop waits, not inside a task whose exception nobody would then retrieve."""
    signal.raise_signal(signum)


def _raise_from_another_thread(loop: asyncio.AbstractEventLoop, signum: signal.Signals) -> None:
    with contextlib.suppress(RuntimeError):  # the loop is closed: the run ended meanwhile
        loop.call_soon_threadsafe(_raise, signum)
