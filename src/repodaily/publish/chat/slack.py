"""Slack incoming webhooks: Block Kit blocks and a plain ``text`` for notifications, unsigned.

Foreign text goes through :func:`~repodaily.publish.chat.escape.slack` (``&``,
``<``, ``>`` as entities, so no ``<!channel>`` and no ``<url|label>``), the
header through :func:`~repodaily.publish.chat.escape.plain` (it is
``plain_text``). Slack takes at most 50 blocks, 3,000 characters in a section's
or context element's text, 150 in a header's; it answers ``ok``, or HTTP 4xx
with a word saying what is wrong (``invalid_payload``, ``invalid_blocks``,
``no_service``, ``channel_is_archived``…), or 429 with ``Retry-After``. About
one message a second per webhook is allowed.
"""

from __future__ import annotations

import json
from typing import Any

from repodaily.publish.chat.escape import clip, plain, slack, slack_link_target
from repodaily.publish.chat.publisher import SummaryPlatform, json_body
from repodaily.publish.chat.summary import Summary
from repodaily.publish.chat.transport import Answer, Outgoing, Verdict

__all__ = ["MAX_BLOCKS", "MAX_HEADER_CHARS", "MAX_TEXT_CHARS", "Slack"]

MAX_BLOCKS = 50
MAX_TEXT_CHARS = 3000
MAX_HEADER_CHARS = 150

Block = dict[str, Any]


def _mrkdwn(text: str) -> dict[str, str]:
    return {"type": "mrkdwn", "text": text}


def _section(text: str) -> Block:
    return {"type": "section", "text": _mrkdwn(text)}


def _link(label: str, url: str | None) -> str:
    """A Slack link around ``label`` (already escaped), or the label alone without a usable URL."""
    target = slack_link_target(url)
    return f"<{target}|{label}>" if target else label


class Slack(SummaryPlatform):
    name = "slack"
    pace = ((1, 1.0),)

    def render(self, summary: Summary) -> dict[str, Any]:
        header = {"type": "plain_text", "text": clip(plain(summary.title), MAX_HEADER_CHARS), "emoji": True}
        blocks: list[Block] = [{"type": "header", "text": header}, _section(slack(summary.stats))]
        if summary.highlights:
            lines = [f"• {slack(highlight)}" for highlight in summary.highlights]
            blocks.append(_section("\n".join([f"*{slack(summary.highlights_heading)}*", *lines])))
        if summary.items:
            blocks.append(_section(f"*{slack(summary.items_heading)}*"))
            for item in summary.items:
                blocks.append(_section(f"{_link(slack(item.title), item.url)}{summary.dash}{slack(item.line)}"))
        footer = [summary.more] if summary.more else []
        if summary.report_url:
            footer.append(_link(slack(summary.report_label), summary.report_url))
        if footer:
            blocks.append({"type": "context", "elements": [_mrkdwn(text) for text in footer]})
        return {"text": f"{slack(summary.title)}: {slack(summary.stats)}", "blocks": blocks}

    def outgoing(self, payload: dict[str, Any], now: float) -> Outgoing:
        return Outgoing(self.secrets.url, json_body(payload))

    def problem(self, request: Outgoing) -> str | None:
        blocks = json.loads(request.body)["blocks"]
        if len(blocks) > MAX_BLOCKS:
            return f"{len(blocks)} blocks, over the limit of {MAX_BLOCKS}"
        for block in blocks:
            texts = [block["text"]] if "text" in block else block.get("elements", [])
            limit = MAX_HEADER_CHARS if block["type"] == "header" else MAX_TEXT_CHARS
            longest = max(len(text["text"]) for text in texts)
            if longest > limit:
                return f"a {block['type']} text of {longest:,} characters, over the limit of {limit:,}"
        return None

    def judge(self, answer: Answer) -> Verdict:
        text = answer.text().strip()
        if answer.status == 200 and text == "ok":
            return Verdict.ok()
        if answer.status == 429 or answer.status >= 500:
            return Verdict.again(f"HTTP {answer.status}: {text}", answer.wait)
        return Verdict.refused(f"HTTP {answer.status}: {text}")
