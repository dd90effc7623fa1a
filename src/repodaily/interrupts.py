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
"""

from __future__ import annotations

import contextlib
import itertools
import threading
from collections.abc import Callable, Iterator

__all__ = ["stop_all", "stoppable"]

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
