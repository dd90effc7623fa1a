"""Reading one item ahead of an async iterator's consumer.

A report is made in two halves that need different resources: reading a day
(git, a process of its own read in a worker thread) and analysing it (a
model's server). Awaited one after the other, each half leaves the other's
resource idle; reading the next day while the consumer works on this one keeps
both busy, for the memory of one more day.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator, AsyncIterator
from typing import TypeVar

__all__ = ["read_ahead"]

T = TypeVar("T")
_END = object()


async def read_ahead(items: AsyncGenerator[T, None]) -> AsyncIterator[T]:
    """``items`` in order, the next one read (in a task of its own) while the consumer handles the last.

    An error reading an item is raised where that item would have been yielded,
    after every item before it. However the consumer stops (at the end, early, by
    an error or a cancellation), the read in flight is cancelled and ``items``
    is closed.
    """
    pending: asyncio.Future[object] = asyncio.ensure_future(anext(items, _END))
    try:
        while (item := await pending) is not _END:
            pending = asyncio.ensure_future(anext(items, _END))
            yield item  # type: ignore[misc]  # anything but the sentinel is an item of `items`
    finally:
        pending.cancel()  # nothing when the read is done
        await asyncio.wait([pending])  # a cancelled read unwinds before the generator is closed
        if not pending.cancelled():
            pending.exception()  # a read that failed after the consumer stopped has no one to tell
        await items.aclose()
