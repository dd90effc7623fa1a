"""Real local receivers for the chat publishers: each checks what its platform checks and answers as it does.

One HTTP server on 127.0.0.1 per platform (the loopback plumbing the LLM tests
use). Each verifies the token in its path or query, the signature by the
platform's documented algorithm (Feishu: HMAC-SHA256 keyed with
``"{timestamp}\\n{secret}"`` of nothing, in the body; DingTalk: keyed with the
secret, of ``"{timestamp}\\n{secret}"``, in the query; the generic webhook:
of the raw body, GitHub's convention), the timestamp's hour window, the size
limits, the message shape — and refuses with the platform's real code inside
an HTTP 200 (Slack: its HTTP status and word). ``throttle`` answers the next
requests with the platform's rate-limit answer; ``stall`` answers nothing.
Every request is recorded in :attr:`Receiver.received`, the accepted ones in
:attr:`Receiver.delivered`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import hmac
import json
import time
from typing import Any
from urllib.parse import parse_qs, urlsplit

from endpoint_simulator import HttpRequest, LoopbackHttpServer, write_response

Reply = tuple[int, bytes, list[tuple[str, str]]]
JSON = [("Content-Type", "application/json")]


def _json(payload: dict[str, Any], status: int = 200) -> Reply:
    return status, json.dumps(payload, ensure_ascii=False).encode(), JSON


def _errcode(code: int, message: str) -> Reply:
    """An answer of DingTalk's and WeCom's shape: HTTP 200 whatever happened, the outcome in ``errcode``."""
    return _json({"errcode": code, "errmsg": message})


def _text(status: int, word: str, headers: list[tuple[str, str]] | None = None) -> Reply:
    return status, word.encode(), [("Content-Type", "text/html"), *(headers or [])]


class Receiver(LoopbackHttpServer):
    """Records each request and answers it as :meth:`answer` says; ``throttle`` and ``stall`` come first."""

    def __init__(self, secret: str = "") -> None:
        super().__init__()
        #: The signing secret, for the platforms that sign; "" for unsigned messages.
        self.secret = secret
        self.received: list[HttpRequest] = []
        self.delivered: list[HttpRequest] = []
        #: The next this many requests get the platform's rate-limit answer.
        self.throttle = 0
        #: Requests get no answer at all (until the client gives up).
        self.stall = False
        #: Seconds each request waits, once recorded, before its answer (a slow platform).
        self.delay_s = 0.0

    #: Where the webhook is, token included; :attr:`url` puts the server's origin before it.
    ENDPOINT: str
    #: The answer to a message delivered, and to one over the rate limit.
    ACCEPTED: Reply
    THROTTLED: Reply

    @property
    def url(self) -> str:
        """The webhook URL, token included, as a user would put it in the environment."""
        return f"{self.origin}{self.ENDPOINT}"

    async def _respond(self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.received.append(request)
        if self.stall:
            await asyncio.sleep(30)
            return
        await asyncio.sleep(self.delay_s)
        if self.throttle:
            self.throttle -= 1
            reply = self.throttled()
        else:
            reply = self.answer(request)
            if reply == self.accepted():
                self.delivered.append(request)
        await write_response(writer, *reply)

    def answer(self, request: HttpRequest) -> Reply:
        raise NotImplementedError

    def accepted(self) -> Reply:
        return self.ACCEPTED

    def throttled(self) -> Reply:
        return self.THROTTLED

    @staticmethod
    def query(request: HttpRequest) -> dict[str, str]:
        return {key: values[-1] for key, values in parse_qs(urlsplit(request.path).query).items()}


def _within_an_hour(seconds: float) -> bool:
    return abs(time.time() - seconds) <= 3600


class FeishuReceiver(Receiver):
    """A Feishu custom bot: ``/open-apis/bot/v2/hook/<token>``, body ≤ 20 KB, signed in the body if it has a secret."""

    TOKEN = "0d6a3f3e-1c2b-4a5d-9e8f-7a6b5c4d3e2f"
    ENDPOINT = f"/open-apis/bot/v2/hook/{TOKEN}"
    ACCEPTED = _json({"StatusCode": 0, "StatusMessage": "success", "code": 0, "data": {}, "msg": "success"})
    THROTTLED = _json({"code": 11232, "msg": "frequency limited psm[lark.oapi.app_platform_runtime]appID[1]"})

    def answer(self, request: HttpRequest) -> Reply:
        if urlsplit(request.path).path != f"/open-apis/bot/v2/hook/{self.TOKEN}":
            return _json({"code": 19001, "data": {}, "msg": "param invalid: incoming webhook access token invalid"})
        body = request.json()
        if len(request.body) > 20 * 1024 or not isinstance(body, dict):
            return _json({"code": 9499, "msg": "Bad Request", "data": {}})
        if self.secret:
            timestamp = str(body.get("timestamp", ""))
            key = f"{timestamp}\n{self.secret}".encode()
            expected = base64.b64encode(hmac.new(key, b"", hashlib.sha256).digest()).decode()
            in_time = timestamp.isdigit() and _within_an_hour(int(timestamp))
            if not in_time or not hmac.compare_digest(str(body.get("sign", "")), expected):
                return _json(
                    {"code": 19021, "msg": "sign match fail or timestamp is not within one hour from current time"}
                )
        post = body.get("content", {}).get("post") if body.get("msg_type") == "post" else None
        if not isinstance(post, dict) or not all(isinstance(p.get("content"), list) for p in post.values()):
            return _json({"code": 19002, "msg": "params error, msg_type need post content"})
        return self.accepted()


class DingTalkReceiver(Receiver):
    """A DingTalk custom robot: ``/robot/send?access_token=…``, body ≤ 20,000 bytes, signed in the query."""

    TOKEN = "9f8e7d6c5b4a39281716aabbccddeeff00112233445566778899aabbccddeeff"
    ENDPOINT = f"/robot/send?access_token={TOKEN}"
    ACCEPTED = _errcode(0, "ok")
    THROTTLED = _errcode(130101, "send too fast, exceed 20 times per minute")

    def answer(self, request: HttpRequest) -> Reply:
        query = self.query(request)
        if urlsplit(request.path).path != "/robot/send" or query.get("access_token") != self.TOKEN:
            return _errcode(300001, "token is not exist")
        if self.secret:
            timestamp = query.get("timestamp", "")
            if not timestamp.isdigit() or not _within_an_hour(int(timestamp) / 1000):
                return _errcode(310000, "invalid timestamp")
            digest = hmac.new(self.secret.encode(), f"{timestamp}\n{self.secret}".encode(), hashlib.sha256).digest()
            if not hmac.compare_digest(query.get("sign", ""), base64.b64encode(digest).decode()):
                return _errcode(310000, "sign not match, more: [https://ding-doc.dingtalk.com/]")
        if len(request.body) > 20_000:
            return _errcode(460101, "message too long, exceed 20000 bytes")
        body = request.json()
        markdown = body.get("markdown") if isinstance(body, dict) and body.get("msgtype") == "markdown" else None
        if not isinstance(markdown, dict) or not markdown.get("title") or not markdown.get("text"):
            return _errcode(40035, "缺少参数 json")
        return self.accepted()


class WeComReceiver(Receiver):
    """A WeCom group robot: ``/cgi-bin/webhook/send?key=…``, Markdown content ≤ 4,096 UTF-8 bytes."""

    KEY = "73febdcb-1b38-4d1b-a994-790f21fc8d30"
    ENDPOINT = f"/cgi-bin/webhook/send?key={KEY}"
    ACCEPTED = _errcode(0, "ok")
    THROTTLED = _errcode(45009, "api freq out of limit, hint: [1700000000_1_ab]")

    def answer(self, request: HttpRequest) -> Reply:
        if urlsplit(request.path).path != "/cgi-bin/webhook/send" or self.query(request).get("key") != self.KEY:
            return _errcode(93000, "invalid webhook url, hint: [1700000000_2_cd]")
        body = request.json()
        markdown = body.get("markdown") if isinstance(body, dict) and body.get("msgtype") == "markdown" else None
        content = markdown.get("content") if isinstance(markdown, dict) else None
        if not isinstance(content, str) or not content:
            return _errcode(44004, "empty content, hint: [1700000000_3_ef]")
        if len(content.encode("utf-8")) > 4096:
            return _json(
                {"errcode": 40058, "errmsg": "markdown.content exceed max length 4096. invalid Request Parameter"}
            )
        return self.accepted()


class SlackReceiver(Receiver):
    """A Slack incoming webhook: Block Kit checked (50 blocks; 3,000 characters a text, 150 a header)."""

    ENDPOINT = "/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx"
    ACCEPTED = _text(200, "ok")
    #: What the 429 answer's Retry-After says, in seconds.
    retry_after = 7

    def throttled(self) -> Reply:
        return _text(429, "rate_limited", [("Retry-After", str(self.retry_after))])

    def answer(self, request: HttpRequest) -> Reply:
        if request.path != self.ENDPOINT:
            return _text(404, "no_service")
        body = request.json()
        if not isinstance(body, dict):
            return _text(400, "invalid_payload")
        blocks = body.get("blocks", [])
        if not body.get("text") and not blocks:
            return _text(400, "no_text")
        if not isinstance(blocks, list) or len(blocks) > 50 or not all(map(_valid_block, blocks)):
            return _text(400, "invalid_blocks")
        return self.accepted()


def _valid_block(block: Any) -> bool:
    kind = block.get("type") if isinstance(block, dict) else None
    if kind == "header":
        text = block.get("text", {})
        return text.get("type") == "plain_text" and 0 < len(text.get("text", "")) <= 150
    if kind == "section":
        text = block.get("text", {})
        return text.get("type") in ("mrkdwn", "plain_text") and 0 < len(text.get("text", "")) <= 3000
    if kind == "context":
        elements = block.get("elements", [])
        return 0 < len(elements) <= 10 and all(0 < len(e.get("text", "")) <= 3000 for e in elements)
    return False


class WebhookReceiver(Receiver):
    """Any endpoint: checks ``X-Repodaily-Signature`` as a GitHub webhook receiver would, drops repeated deliveries."""

    ENDPOINT = "/hooks/repodaily/5f3c9a7e21b04d6c"
    ACCEPTED = _json({"received": True}, 202)
    THROTTLED = (429, b'{"error":"slow down"}', [*JSON, ("Retry-After", "3")])

    def __init__(self, secret: str = "") -> None:
        super().__init__(secret)
        self.deliveries: list[str] = []

    def answer(self, request: HttpRequest) -> Reply:
        if request.path != self.ENDPOINT:
            return _json({"error": "not found"}, 404)
        if self.secret:
            expected = "sha256=" + hmac.new(self.secret.encode(), request.body, hashlib.sha256).hexdigest()
            if not hmac.compare_digest(request.headers.get("x-repodaily-signature", ""), expected):
                return _json({"error": "bad signature"}, 401)
        delivery = request.headers.get("x-repodaily-delivery", "")
        if delivery != hashlib.sha256(request.body).hexdigest():
            return _json({"error": "bad delivery id"}, 400)
        if delivery not in self.deliveries:
            self.deliveries.append(delivery)
        return self.accepted()
