"""WeCom (WeChat Work) group robots: a Markdown message, unsigned (the key in the URL is the credential).

A robot takes 20 messages a minute and Markdown ``content`` of at most 4,096
UTF-8 bytes; it answers HTTP 200 with ``errcode`` 0, or another code: 45009
(api freq out of limit) and -1 (system busy) are retried; 93000 (invalid
webhook URL), 40058 (a parameter out of bounds, such as content over 4,096
bytes) and the others are not. Its Markdown mentions a member with
``<@userid>``, which :func:`~repodaily.publish.chat.escape.markdown` makes impossible.
"""

from __future__ import annotations

import json
from typing import Any

from repodaily.publish.chat.markdown import summary_markdown
from repodaily.publish.chat.publisher import SummaryPlatform, coded_verdict, json_body
from repodaily.publish.chat.summary import Summary
from repodaily.publish.chat.transport import Answer, Outgoing, Verdict

__all__ = ["MAX_CONTENT_BYTES", "WeCom"]

MAX_CONTENT_BYTES = 4096
_RETRIED = frozenset({45009, -1})


class WeCom(SummaryPlatform):
    name = "wecom"
    pace = ((20, 60.0),)

    def render(self, summary: Summary) -> dict[str, Any]:
        return {"msgtype": "markdown", "markdown": {"content": summary_markdown(summary)}}

    def outgoing(self, payload: dict[str, Any], now: float) -> Outgoing:
        return Outgoing(self.secrets.url, json_body(payload))

    def problem(self, request: Outgoing) -> str | None:
        size = len(json.loads(request.body)["markdown"]["content"].encode("utf-8"))
        return (
            f"content of {size:,} bytes, over the {MAX_CONTENT_BYTES:,}-byte limit"
            if size > MAX_CONTENT_BYTES
            else None
        )

    def judge(self, answer: Answer) -> Verdict:
        return coded_verdict(answer, ("errcode", "errmsg"), retry=lambda code, _: code in _RETRIED)
