"""Feishu (Lark) custom bots: a rich-text (``post``) message, signed when the target has a secret.

Rich text is a list of lines of elements; text elements are shown literally
and only ``a`` elements link, so foreign text needs no escaping beyond one
line and defanged addresses (:func:`~repodaily.publish.chat.escape.plain`), and
no element a message carries can mention anyone (mentions are ``at`` elements,
which we never write).

Signing (the bot's "签名校验"): the body gains ``timestamp`` (seconds, a string)
and ``sign``, the base64 HMAC-SHA256 keyed with ``"{timestamp}\\n{secret}"`` of
an empty message. The platform allows 100 messages a minute and 5 a second per
bot, a body of at most 20 KB (20,480 bytes, signature included), and answers
HTTP 200 with ``code`` 0, or another code: 11232 (frequency limited) and 9499
saying "too many request" are retried; 19021 (sign match fail or timestamp not
within one hour), 19022 (IP not allowed), 19024 (key words not found), 19001
(invalid token), 19002 and 9499 "Bad Request" are not.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from typing import Any

from repodaily.publish.chat.escape import link_target, plain
from repodaily.publish.chat.publisher import SummaryPlatform, coded_verdict, json_body
from repodaily.publish.chat.summary import Summary
from repodaily.publish.chat.transport import Answer, Outgoing, Verdict

__all__ = ["MAX_BODY_BYTES", "Feishu", "feishu_sign"]

MAX_BODY_BYTES = 20 * 1024
_LOCALES = {"zh": "zh_cn", "en": "en_us"}
_FREQUENCY_LIMITED = 11232
_BAD_REQUEST = 9499

Element = dict[str, str]


def feishu_sign(timestamp: str, secret: str) -> str:
    """The signature of a message sent at ``timestamp``: HMAC-SHA256 keyed with timestamp and secret, of nothing."""
    key = f"{timestamp}\n{secret}".encode()
    return base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode("ascii")


def _text(text: str) -> Element:
    return {"tag": "text", "text": text}


def _link(text: str, url: str | None) -> Element:
    return {"tag": "a", "text": text, "href": url} if url else _text(text)


class Feishu(SummaryPlatform):
    name = "feishu"
    pace = ((5, 1.0), (100, 60.0))

    def render(self, summary: Summary) -> dict[str, Any]:
        lines: list[list[Element]] = [[_text(summary.stats)]]
        if summary.highlights:
            lines.append([_text(summary.highlights_heading)])
            lines += [[_text(f"• {plain(highlight)}")] for highlight in summary.highlights]
        if summary.items:
            lines.append([_text(summary.items_heading)])
            for item in summary.items:
                lines.append(
                    [_link(plain(item.title), link_target(item.url)), _text(f"{summary.dash}{plain(item.line)}")]
                )
        if summary.more:
            lines.append([_text(summary.more)])
        if summary.report_url:
            lines.append([_link(summary.report_label, summary.report_url)])
        post = {_LOCALES[summary.language]: {"title": plain(summary.title), "content": lines}}
        return {"msg_type": "post", "content": {"post": post}}

    def outgoing(self, payload: dict[str, Any], now: float) -> Outgoing:
        if self.secrets.secret:
            timestamp = str(int(now))
            sign = feishu_sign(timestamp, self.secrets.secret)
            return Outgoing(
                self.secrets.url, json_body({"timestamp": timestamp, "sign": sign, **payload}), signature=sign
            )
        return Outgoing(self.secrets.url, json_body(payload))

    def problem(self, request: Outgoing) -> str | None:
        size = len(request.body)
        return f"{size:,} bytes, over the {MAX_BODY_BYTES:,}-byte limit" if size > MAX_BODY_BYTES else None

    def judge(self, answer: Answer) -> Verdict:
        return coded_verdict(answer, ("code", "msg"), retry=_passes)


def _passes(code: int, message: str) -> bool:
    return code == _FREQUENCY_LIMITED or (code == _BAD_REQUEST and "too many" in message.lower())
