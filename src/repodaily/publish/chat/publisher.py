"""One publisher for every chat platform: the summary, fitted to the platform, signed, sent.

A :class:`Platform` knows one platform's message format, limit, signature and
answers; :class:`ChatPublisher` does what they all share — it reads the webhook
URL and secret from the environment when it is made, summarises each report,
previews a dry run (masked, nothing sent) and sends through one
:class:`~repodaily.publish.chat.transport.Sender`, paced to the platform's
per-robot limit.
"""

from __future__ import annotations

import asyncio
import json
import time
from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, ClassVar

from repodaily import json_input
from repodaily.models import DailyReport
from repodaily.publish.base import Delivery, PublishContext
from repodaily.publish.chat.settings import ChatSettings, Secrets, read_secrets
from repodaily.publish.chat.summary import Summary, fit, summarize, summarize_week
from repodaily.publish.chat.transport import Answer, Outgoing, Sender, Verdict, mask_url
from repodaily.redact import MASK, Redactor
from repodaily.render.base import Artefact
from repodaily.weekly import WeeklyDigest

__all__ = ["Build", "ChatPublisher", "Platform", "SummaryPlatform", "coded_verdict", "json_body"]

#: A platform's request for the time it is sent at (seconds since the epoch): signatures carry the time.
Build = Callable[[float], Outgoing]


def json_body(payload: object) -> bytes:
    """The one serialisation of a message: compact UTF-8 JSON in the payload's own key order, so bytes repeat."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


class Platform(ABC):
    """One chat platform: how a report becomes its request, and what its answers mean."""

    #: The publisher's name, as ``[[publish]] type`` names it.
    name: ClassVar[str]
    #: At most so many messages in so many seconds, for each pair: the platform's limits per webhook.
    pace: ClassVar[tuple[tuple[int, float], ...]]
    #: Whether the receiver can tell a repeated message, so a request left without an answer may be sent again.
    idempotent: ClassVar[bool] = False

    def __init__(self, settings: ChatSettings, secrets: Secrets, redact: Redactor) -> None:
        self.settings = settings
        self.secrets = secrets
        self.redact = redact

    @abstractmethod
    def prepare(self, report: DailyReport | WeeklyDigest, artefacts: Sequence[Artefact], summary: Summary) -> Build:
        """What will be sent for ``report`` (or a week); PublishError when it cannot fit the platform's limit."""

    @abstractmethod
    def judge(self, answer: Answer) -> Verdict:
        """What the platform's answer means."""


class SummaryPlatform(Platform):
    """A platform whose message is the summary, as many commits listed as its limit allows."""

    def prepare(self, report: DailyReport | WeeklyDigest, artefacts: Sequence[Artefact], summary: Summary) -> Build:
        now = time.time()  # only the signature's length matters here, and it does not change with the time
        payload = fit(summary, self.render, lambda p: self.problem(self.outgoing(p, now)), target=self.name)
        return lambda at: self.outgoing(payload, at)

    @abstractmethod
    def render(self, summary: Summary) -> dict[str, Any]:
        """The platform's message for ``summary``, its foreign texts escaped for the medium."""

    @abstractmethod
    def outgoing(self, payload: dict[str, Any], now: float) -> Outgoing:
        """The request carrying ``payload``, signed at ``now`` when the target has a secret."""

    @abstractmethod
    def problem(self, request: Outgoing) -> str | None:
        """What in ``request`` is over the platform's limits, measured as it is sent; None when it fits."""


def coded_verdict(answer: Answer, codes: tuple[str, str], *, retry: Callable[[int, str], bool]) -> Verdict:
    """Read an answer that carries its outcome as a JSON code and message (Feishu, DingTalk, WeCom).

    HTTP 429 and 5xx may pass; a code of 0 is delivery; ``retry`` says which other codes may pass.
    """
    if answer.status == 429 or answer.status >= 500:
        return Verdict.again(f"HTTP {answer.status}", answer.wait)
    try:
        data = json_input.loads(answer.body)
    except ValueError:
        data = None
    code_key, message_key = codes
    code = data.get(code_key) if isinstance(data, dict) else None
    if not isinstance(code, int) or isinstance(code, bool):
        return Verdict.refused(f"HTTP {answer.status}, an answer without a {code_key}: {answer.text()}")
    message = str(data.get(message_key, "")) if isinstance(data, dict) else ""
    if code == 0 and answer.status < 300:
        return Verdict.ok()
    reason = f"{code_key} {code}: {message}"
    return Verdict.again(reason, answer.wait) if retry(code, message) else Verdict.refused(reason)


class ChatPublisher:
    """:class:`~repodaily.publish.base.Publisher` of report summaries to one webhook of one platform.

    The platforms take no idempotency key, so a message is sent once: the run's
    delivery ledger keeps a report from being sent twice, and a request that may
    have arrived is not sent again (see :mod:`~repodaily.publish.chat.transport`).
    """

    def __init__(
        self,
        platform: type[Platform],
        *,
        settings: ChatSettings,
        context: PublishContext,
        sleep: Callable[[float], Awaitable[object]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.settings, self.context = settings, context
        self.platform = platform(
            settings, read_secrets(settings, context.environ, target=platform.name), context.redact
        )
        self.location = context.redact(mask_url(self.platform.secrets.url))
        self._sleep, self._clock = sleep, clock
        self._sender: Sender | None = None

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        summary = summarize(report, report_url=self.settings.report_url, redact=self.context.redact)
        return await self._deliver(self.platform.prepare(report, artefacts, summary))

    async def publish_week(self, digest: WeeklyDigest, artefacts: Sequence[Artefact]) -> Delivery:
        """A week's summary (:func:`~repodaily.publish.chat.summary.summarize_week`), as a day's is sent."""
        summary = summarize_week(digest, redact=self.context.redact)
        return await self._deliver(self.platform.prepare(digest, artefacts, summary))

    async def _deliver(self, build: Build) -> Delivery:
        name = self.platform.name
        if self.context.dry_run:
            request = build(time.time())
            body = request.body.decode("utf-8")
            if request.signature:  # derived from the secret: never shown
                body = body.replace(request.signature, MASK)
            signed = " (signed when sent)" if request.signature else ""
            body = self.context.redact(body)
            return Delivery(
                name, locations=[self.location], preview=f"# would POST to {self.location}{signed}\n{body}\n"
            )
        await self._send(build)
        return Delivery(name, locations=[self.location])

    async def _send(self, build: Build) -> None:
        if self._sender is None:
            self._sender = Sender(
                target=f"{self.platform.name} ({self.location})",
                timeout_s=self.settings.timeout_s,
                max_attempts=self.settings.max_attempts,
                max_wait_s=self.settings.max_wait_s,
                pace=self.platform.pace,
                idempotent=self.platform.idempotent,
                redact=self.context.redact,
                sleep=self._sleep,
                clock=self._clock,
            )
        await self._sender.send(lambda: build(time.time()), self.platform.judge)

    async def aclose(self) -> None:
        if self._sender is not None:
            await self._sender.aclose()
