"""The deliver step: every configured target gets each report once, recorded in the store's ledger.

A target is one ``[[publish]]`` table (or the default files at ``[output]``). The
ledger is keyed by (target, repository, day, content hash): a rerun sends a
target nothing it already has, a target that failed is tried again next run
(and only it), and ``--force`` sends again. The content hash covers what a
reader sees — the report without its ``run`` block (timings, calls, what was
cached) and the formats sent — so a rerun that only differs in how long it took
counts as the same content.

Two runs on one cache (a cron job still running when the next starts, a manual
run during the scheduled one) would each find the ledger without a delivery and
both send it; each target's check, send and record is therefore done holding an
advisory lock on a file beside the store, so the later run waits, then finds the
delivery recorded. The lock dies with its process: a killed run never holds it.

A publisher whose deliveries are *repeatable* (its ``repeatable`` attribute is
true: writing a file again with the same bytes, printing to stdout) is not held
back by the ledger: repeating it changes nothing a reader could notice twice,
and a user who deleted a report file expects a rerun to write it again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import logging
import os
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import date
from typing import Literal

try:
    import fcntl
except ImportError:  # not POSIX: no advisory locks; runs on one cache must not overlap there
    fcntl = None  # type: ignore[assignment]  # a module or None; every use checks for None first

from repodaily.errors import RepodailyError
from repodaily.interrupts import deferring
from repodaily.models import DailyReport
from repodaily.publish.base import Delivery, Publisher, WeeklyPublisher
from repodaily.render.base import Artefact
from repodaily.store import Store
from repodaily.weekly import WeeklyDigest

__all__ = [
    "WEEKLY_LEDGER_SUFFIX",
    "Target",
    "TargetResult",
    "Unusable",
    "content_hash",
    "deliver",
    "deliver_week",
    "week_hash",
]

#: What a target's ledger name gets for its weekly digests, keyed by the week's Monday.
WEEKLY_LEDGER_SUFFIX = ":weekly"

log = logging.getLogger(__name__)

Status = Literal["delivered", "already delivered", "would deliver", "failed", "skipped"]
#: How often a run waiting for another's delivery looks again.
_LOCK_POLL_S = 0.05


@dataclass(frozen=True)
class Target:
    """One configured delivery target: its ledger name, its publisher type, and the publisher made for the run."""

    name: str
    type: str
    publisher: Publisher

    @property
    def repeatable(self) -> bool:
        return bool(getattr(self.publisher, "repeatable", False))


class Unusable:
    """A target that could not be made: each delivery to it fails with the reason, and the others go on."""

    def __init__(self, reason: RepodailyError) -> None:
        self.reason = reason

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        raise self.reason

    async def aclose(self) -> None:
        pass


@dataclass(frozen=True)
class TargetResult:
    """What happened to one report at one target."""

    target: str
    repo: str
    day: date
    status: Status
    delivery: Delivery | None = None
    #: Why it failed: one line, no secret (the publisher's error, redacted by the CLI's log door).
    error: str = ""


def content_hash(report: DailyReport, artefacts: Sequence[Artefact]) -> str:
    """What a reader would see of ``report`` in these artefacts' formats: the ledger's content key."""
    substance = report.model_dump(mode="json", exclude={"run"})
    formats = [artefact.format for artefact in artefacts]
    text = json.dumps([substance, formats], sort_keys=True, ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


@dataclass(frozen=True)
class _Parcel:
    """What is delivered: whose and which day (a week by its Monday), its content hash, and the ledger suffix."""

    repo: str
    day: date
    digest: str
    ledger_suffix: str = ""


@asynccontextmanager
async def _ledger_turn(store: Store) -> AsyncIterator[None]:
    """Hold the store's delivery lock: no other run checks, sends or records a delivery meanwhile.

    The lock is taken without blocking, again and again, so a run waiting for it
    still answers Ctrl-C. A file system without locks is used without one.
    """
    try:
        fd = os.open(f"{store.path}.deliveries.lock", os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:  # the store opened beside it, so this is a file system that takes no such file
        yield
        return
    try:
        while fcntl is not None:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                await asyncio.sleep(_LOCK_POLL_S)  # another run is delivering
            except OSError:
                break  # no locks here (some NFS)
        yield
    finally:
        os.close(fd)  # and with it the lock


async def _hand_out(
    parcel: _Parcel,
    targets: Sequence[Target],
    store: Store,
    send: Callable[[Target], Awaitable[Delivery] | None],
    *,
    dry_run: bool,
    force: bool,
) -> list[TargetResult]:
    """Give ``parcel`` to every target by ``send`` (None: it does not take this kind), past the ledger."""
    results = []
    for target in targets:
        # The ledger decides nothing for a dry run or a repeatable target: no turn to wait for.
        turn = contextlib.nullcontext() if dry_run or target.repeatable else _ledger_turn(store)
        async with turn:
            results.append(await _hand_to(parcel, target, store, send, dry_run=dry_run, force=force))
    return results


async def _hand_to(
    parcel: _Parcel,
    target: Target,
    store: Store,
    send: Callable[[Target], Awaitable[Delivery] | None],
    *,
    dry_run: bool,
    force: bool,
) -> TargetResult:
    """Give ``parcel`` to one target, past the ledger, and record it; a failure is the result, not raised."""
    ledger = target.name + parcel.ledger_suffix
    if not (dry_run or force or target.repeatable) and store.delivered(ledger, parcel.repo, parcel.day, parcel.digest):
        return TargetResult(target.name, parcel.repo, parcel.day, "already delivered")
    # An interrupt waits until the target has answered and the answer is recorded: a message taken but
    # not recorded would go again with the next run.
    with deferring():
        try:
            sending = send(target)
            if sending is None:
                return TargetResult(target.name, parcel.repo, parcel.day, "skipped", error="takes no weekly digest")
            delivery = await sending
        except BrokenPipeError:
            raise  # our own stdout is gone: nobody is left to deliver to
        except Exception as exc:  # whatever one target raises, the others still get it
            log.debug("delivery of %s %s to %s failed", parcel.repo, parcel.day, target.name, exc_info=exc)
            reason = str(exc) if isinstance(exc, RepodailyError) else f"unexpected {exc!r}"
            return TargetResult(target.name, parcel.repo, parcel.day, "failed", error=reason)
        if not dry_run:
            store.record_delivery(ledger, parcel.repo, parcel.day, parcel.digest, delivery.locations)
    status: Status = "would deliver" if dry_run else "delivered"
    return TargetResult(target.name, parcel.repo, parcel.day, status, delivery=delivery)


def week_hash(digest: WeeklyDigest, artefacts: Sequence[Artefact]) -> str:
    """What a reader would see of a week in these artefacts' formats: the weekly ledger's content key."""
    text = json.dumps([digest.model_dump(mode="json"), [a.format for a in artefacts]], sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:32]


async def deliver(
    report: DailyReport,
    artefacts: Sequence[Artefact],
    targets: Sequence[Target],
    store: Store,
    *,
    dry_run: bool = False,
    force: bool = False,
) -> list[TargetResult]:
    """Hand ``report`` to every target that does not have it yet; one that fails keeps it from no other.

    Each delivery is recorded the moment it is made, so a run killed halfway
    resends nothing already sent. A dry run asks each publisher what it would
    send and records nothing.
    """
    parcel = _Parcel(report.repo, report.date, content_hash(report, artefacts))
    return await _hand_out(
        parcel, targets, store, lambda target: target.publisher.publish(report, artefacts), dry_run=dry_run, force=force
    )


async def deliver_week(
    digest: WeeklyDigest,
    artefacts: Sequence[Artefact],
    targets: Sequence[Target],
    store: Store,
    *,
    dry_run: bool = False,
    force: bool = False,
) -> list[TargetResult]:
    """Hand the week's ``digest`` to every target whose publisher takes one (:class:`WeeklyPublisher`), once.

    The ledger keys a week by its Monday under the target's name and
    :data:`WEEKLY_LEDGER_SUFFIX`, so a week never collides with its Monday's report.
    A target whose publisher has no ``publish_week`` is skipped, and says so.
    """
    parcel = _Parcel(digest.repo, digest.start, week_hash(digest, artefacts), WEEKLY_LEDGER_SUFFIX)

    def send(target: Target) -> Awaitable[Delivery] | None:
        publisher = target.publisher
        return publisher.publish_week(digest, artefacts) if isinstance(publisher, WeeklyPublisher) else None

    return await _hand_out(parcel, targets, store, send, dry_run=dry_run, force=force)
