"""DingTalk custom robots: a Markdown message, signed in the query when the target has a secret.

Signing ("加签"): ``timestamp`` (milliseconds) and ``sign``, the base64
HMAC-SHA256 keyed with the secret of ``"{timestamp}\\n{secret}"``, URL-encoded,
go into the query next to the URL's own ``access_token``, which must survive.
A robot takes 20 messages a minute (past that it is throttled for minutes), a
body of at most 20,000 bytes, and answers HTTP 200 with ``errcode`` 0, or
another code: 130101 (send too fast) and -1 (system busy) are retried; 310000
(sign not match, invalid timestamp, keywords not in content, IP not in
whitelist), 300001 and other token errors, 460101 (message too long) are not.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from repodaily.publish.chat.escape import plain
from repodaily.publish.chat.markdown import summary_markdown
from repodaily.publish.chat.publisher import SummaryPlatform, coded_verdict, json_body
from repodaily.publish.chat.summary import Summary
from repodaily.publish.chat.transport import Answer, Outgoing, Verdict

__all__ = ["MAX_BODY_BYTES", "DingTalk", "dingtalk_sign", "with_query"]

MAX_BODY_BYTES = 20_000
_RETRIED = frozenset({130101, -1})


def dingtalk_sign(timestamp: str, secret: str) -> str:
    """The signature of a message sent at ``timestamp`` (ms): HMAC-SHA256 keyed with the secret, base64."""
    digest = hmac.new(secret.encode(), f"{timestamp}\n{secret}".encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def with_query(url: str, extra: dict[str, str]) -> str:
    """``url`` with ``extra`` added to its query, every parameter it had kept (httpx's ``params=`` would drop them)."""
    parts = urlsplit(url)
    query = [*parse_qsl(parts.query, keep_blank_values=True), *extra.items()]
    return urlunsplit(parts._replace(query=urlencode(query)))


class DingTalk(SummaryPlatform):
    name = "dingtalk"
    pace = ((20, 60.0),)

    def render(self, summary: Summary) -> dict[str, Any]:
        return {"msgtype": "markdown", "markdown": {"title": plain(summary.title), "text": summary_markdown(summary)}}

    def outgoing(self, payload: dict[str, Any], now: float) -> Outgoing:
        if not self.secrets.secret:
            return Outgoing(self.secrets.url, json_body(payload))
        timestamp = str(int(now * 1000))
        sign = dingtalk_sign(timestamp, self.secrets.secret)
        url = with_query(self.secrets.url, {"timestamp": timestamp, "sign": sign})
        return Outgoing(url, json_body(payload), signature=sign)

    def problem(self, request: Outgoing) -> str | None:
        size = len(request.body)
        return f"{size:,} bytes, over the {MAX_BODY_BYTES:,}-byte limit" if size > MAX_BODY_BYTES else None

    def judge(self, answer: Answer) -> Verdict:
        return coded_verdict(answer, ("errcode", "errmsg"), retry=lambda code, _: code in _RETRIED)
