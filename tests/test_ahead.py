"""Reading the next day while this one is analysed: order, errors and an early stop as without reading ahead."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncGenerator

import pytest

from repodaily.ahead import read_ahead


class Days:
    """An async generator of days that records what was read and whether it was closed."""

    def __init__(self, count: int, fail_at: int | None = None) -> None:
        self.count = count
        self.fail_at = fail_at
        self.started: list[int] = []
        self.reading = {index: asyncio.Event() for index in range(count)}
        self.closed = False
        self.cancelled = False

    async def read(self) -> AsyncGenerator[int, None]:
        try:
            for index in range(self.count):
                self.started.append(index)
                self.reading[index].set()
                await asyncio.sleep(0.01)
                if index == self.fail_at:
                    raise OSError(f"day {index} unreadable")
                yield index
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        finally:
            self.closed = True


def test_every_day_comes_in_order_and_the_stream_is_closed() -> None:
    days = Days(5)

    async def run() -> list[int]:
        return [day async for day in read_ahead(days.read())]

    assert asyncio.run(run()) == [0, 1, 2, 3, 4]
    assert days.closed


def test_the_next_day_is_read_while_the_consumer_works_on_this_one() -> None:
    days = Days(3)

    async def run() -> list[int]:
        seen = []
        async for day in read_ahead(days.read()):
            if day + 1 < days.count:  # without reading ahead, nobody reads the next day now: this times out
                await asyncio.wait_for(days.reading[day + 1].wait(), timeout=5)
            seen.append(day)
        return seen

    assert asyncio.run(run()) == [0, 1, 2]


def test_an_error_reading_a_day_comes_after_every_day_before_it() -> None:
    days = Days(5, fail_at=2)
    seen: list[int] = []

    async def run() -> None:
        async for day in read_ahead(days.read()):
            await asyncio.sleep(0.05)  # the failing read is done before the consumer asks for it
            seen.append(day)

    with pytest.raises(OSError, match="day 2 unreadable"):
        asyncio.run(run())
    assert seen == [0, 1]
    assert days.closed


def test_a_consumer_that_stops_early_cancels_the_read_in_flight_and_closes_the_stream() -> None:
    days = Days(10)

    async def run() -> list[int]:
        seen = []
        async for day in read_ahead(days.read()):
            seen.append(day)
            if day == 1:
                break
        return seen

    assert asyncio.run(run()) == [0, 1]
    assert days.started == [0, 1, 2]  # one day ahead, no more
    assert days.cancelled and days.closed
