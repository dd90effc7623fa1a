"""Any HTTP endpoint: the summary as a JSON object, or the JSON report, signed as GitHub signs its webhooks.

A week's digest goes the same way: its summary (with ``week``), or its JSON.

Each request carries ``X-Repodaily-Delivery``, the SHA-256 of its body: the same
report sends the same bytes, so a receiver can tell a repeat and drop it — which
is why, unlike the chat platforms, a request left without an answer is sent
again. With ``secret_env`` set, ``X-Repodaily-Signature`` is ``sha256=`` and the
hex HMAC-SHA256 of the exact body bytes keyed with the secret, the convention of
GitHub's ``X-Hub-Signature-256``: a receiver recomputes it over the raw body and
compares in constant time. Any 2xx is delivery; 408, 429 and 5xx are retried
(after ``Retry-After`` when given); other statuses are refusals.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Sequence
from typing import Any

from repodaily.models import DailyReport
from repodaily.publish.chat.publisher import Build, Platform, json_body
from repodaily.publish.chat.settings import WebhookSettings
from repodaily.publish.chat.summary import Summary
from repodaily.publish.chat.transport import Answer, Outgoing, Verdict
from repodaily.render.base import Artefact
from repodaily.weekly import WeeklyDigest

__all__ = ["DELIVERY_HEADER", "SIGNATURE_HEADER", "Webhook", "summary_object", "webhook_signature"]

DELIVERY_HEADER = "X-Repodaily-Delivery"
SIGNATURE_HEADER = "X-Repodaily-Signature"
_RETRIED_STATUS = frozenset({408, 429})


def webhook_signature(body: bytes, secret: str) -> str:
    """The signature header's value for ``body``: ``sha256=<hex HMAC-SHA256 keyed with the secret>``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


def summary_object(report: DailyReport | WeeklyDigest, summary: Summary) -> dict[str, Any]:
    """The summary for programs: the day's (or week's) figures as numbers, texts raw (redacted) for the receiver."""
    if isinstance(report, DailyReport):
        stats = report.stats
        figures = {"total": stats.total, "high": stats.high, "medium": stats.medium, "low": stats.low}
        figures["degraded"] = stats.degraded
    else:  # a week: its sums, and the ISO week it is
        figures = {"total": report.total.total, "high": report.total.high, "medium": report.total.medium}
        figures["low"] = report.total.low
    return {
        "repo": summary.repo,
        "date": summary.date.isoformat(),
        **({} if isinstance(report, DailyReport) else {"week": report.week}),
        "language": summary.language,
        "title": summary.title,
        "stats": figures,
        "highlights": list(summary.highlights),
        "commits": [{"sha": i.sha, "title": i.title, "one_line": i.line, "url": i.url} for i in summary.items],
        "report_url": summary.report_url,
    }


class Webhook(Platform):
    name = "webhook"
    pace = ()
    idempotent = True

    def prepare(self, report: DailyReport | WeeklyDigest, artefacts: Sequence[Artefact], summary: Summary) -> Build:
        if not isinstance(self.settings, WebhookSettings) or self.settings.payload == "summary":
            body = json_body(summary_object(report, summary))
        else:
            body = self.redact(_report_json(report, artefacts)).encode("utf-8")
        headers = {DELIVERY_HEADER: hashlib.sha256(body).hexdigest()}
        if self.secrets.secret:
            headers[SIGNATURE_HEADER] = webhook_signature(body, self.secrets.secret)
        request = Outgoing(self.secrets.url, body, headers, signature=headers.get(SIGNATURE_HEADER, ""))
        return lambda now: request

    def judge(self, answer: Answer) -> Verdict:
        if 200 <= answer.status < 300:
            return Verdict.ok()
        reason = f"HTTP {answer.status}: {answer.text()}"
        if answer.status in _RETRIED_STATUS or answer.status >= 500:
            return Verdict.again(reason, answer.wait)
        return Verdict.refused(reason)


def _report_json(report: DailyReport | WeeklyDigest, artefacts: Sequence[Artefact]) -> str:
    """The JSON artefact as the run rendered it, or rendered here when the run renders Markdown only."""
    for artefact in artefacts:
        if artefact.format == "json":
            return artefact.text
    if isinstance(report, WeeklyDigest):
        return report.model_dump_json(indent=2) + "\n"
    from repodaily.render.markdown import render_json

    return render_json(report)
