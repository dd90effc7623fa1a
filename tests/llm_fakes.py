"""Fakes at the llm analyzer's seam, the httpx transport, for the tests that drive it with canned completions.

A :class:`Server` answers each request with the next scripted reply and keeps
every request, so a test can read the bodies the real client sent.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

import httpx
from message_parts import parsed_parts

from repodaily.analyzers.llm import EndpointSettings, LLMAnalyzer, LLMSettings
from repodaily.models import Analysis, AnalysisInput, ContextFile, Coverage, CoverageReceipt, FileCategory, FileStatus

SECRET = "sk-test-5f1e2d3c4b5a69788796a5b4c3d2e1f0"
SHA = "0123456789abcdef0123456789abcdef01234567"
VERDICT: dict[str, Any] = {
    "type": "fix",
    "secondary_types": ["test"],
    "importance": "high",
    "importance_reason": "Fixes a crash in a common configuration.",
    "flags": {"security": False, "breaking": False, "user_facing": True},
    "summary": ["Guards the parser against empty input."],
    "one_line": "Fix a crash on empty input.",
    "impact_scope": ["parser"],
    "insights": [{"aspect": "maintainability", "text": "Adds an explicit guard."}],
    "risks": ["Callers relying on the exception change behaviour."],
    "recommendations": [{"audience": "users", "text": "Upgrade if you parse empty files."}],
}


def completion(
    content: Any, *, finish_reason: str = "stop", prompt_tokens: int = 100, completion_tokens: int = 20
) -> httpx.Response:
    text = content if isinstance(content, str) else json.dumps(content)
    return httpx.Response(
        200,
        json={
            "id": "cmpl-1",
            "object": "chat.completion",
            "model": "served-model",
            "choices": [
                {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": finish_reason}
            ],
            "usage": {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens},
        },
    )


def error(status: int, message: str = "failed", headers: dict[str, str] | None = None) -> httpx.Response:
    return httpx.Response(status, json={"error": {"message": message}}, headers=headers)


#: Where servers say how many requests they run (llama.cpp's /props and /slots) and keep waiting (vLLM's and
#: SGLang's /metrics); hosted APIs have no such routes.
INFO_PATHS = ("/props", "/slots", "/metrics")


class Server:
    """A scripted endpoint: answers each request with the next reply (a response, an exception or a function).

    Like a hosted API, it tells nothing of its slots or queue: asked (:data:`INFO_PATHS`)
    it answers 404, and keeps those requests apart in ``probes``.
    """

    def __init__(self, *replies: Any, default: Any = None) -> None:
        self.replies = list(replies)
        self.default = default
        self.requests: list[httpx.Request] = []
        self.probes: list[httpx.Request] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        if request.method == "GET" and request.url.path.endswith(INFO_PATHS):
            self.probes.append(request)
            return error(404, "not found")
        self.requests.append(request)
        reply = self.replies.pop(0) if self.replies else self.default
        if reply is None:
            raise AssertionError(f"unexpected request #{len(self.requests)}")
        if callable(reply):
            reply = reply(request)
        if isinstance(reply, Exception):
            raise reply
        return reply

    @property
    def bodies(self) -> list[dict[str, Any]]:
        return [json.loads(r.content) for r in self.requests]

    def modes(self) -> list[str]:
        return [mode_of(body.get("response_format")) for body in self.bodies]


def mode_of(response_format: dict[str, Any] | None) -> str:
    if response_format is None:
        return "prompt"
    if response_format["type"] == "json_object" and "schema" in response_format:
        return "json_object+schema"
    return response_format["type"]


class Routes:
    """One MockTransport handler serving several endpoints, by host."""

    def __init__(self, **servers: Server) -> None:
        self.servers = servers

    def __call__(self, request: httpx.Request) -> httpx.Response:
        return self.servers[request.url.host](request)


class FakeTime:
    """A clock that only moves when the code under test sleeps."""

    def __init__(self) -> None:
        self.now = 1000.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def endpoint(name: str = "primary", **overrides: Any) -> EndpointSettings:
    fields = {"name": name, "base_url": f"http://{name}.test/v1", "model": f"{name}-model"}
    return EndpointSettings(**{**fields, **overrides})


def analyzer(
    handler: Callable[[httpx.Request], Any],
    *endpoints: EndpointSettings,
    time: FakeTime | None = None,
    language: str = "en",
    **settings: Any,
) -> LLMAnalyzer:
    time = time or FakeTime()
    return LLMAnalyzer(
        settings=LLMSettings(endpoints=list(endpoints) or [endpoint()], language=language, **settings),
        transport=httpx.MockTransport(handler),
        environ={"LLM_API_KEY": SECRET},
        sleep=time.sleep,
        clock=time.clock,
        rng=random.Random(7),
    )


def source_file(path: str = "src/parser.py", text: str | None = None, **overrides: Any) -> ContextFile:
    patch = (
        "@@ -10,3 +10,4 @@ def parse(data):\n"
        "-    return data[0]\n"
        "+    if not data:\n"
        "+        return None\n"
        "+    return data[0]\n"
    )
    fields: dict[str, Any] = {
        "path": path,
        "status": FileStatus.modified,
        "category": FileCategory.source,
        "additions": 3,
        "deletions": 1,
        "coverage": Coverage.full,
        "text": patch if text is None else text,
    }
    return ContextFile(**{**fields, **overrides})


def commit(
    *files: ContextFile,
    subject: str = "Fix crash on empty input",
    body: str = "",
    sha: str = SHA,
    parts: list[list[int]] | None = None,
) -> AnalysisInput:
    """An input planned as ``parts``, by default one part holding every text."""
    files = files or (source_file(),)
    return AnalysisInput(
        repo="acme/engine",
        sha=sha,
        **parsed_parts(subject, body),
        author_name="Ada",
        committed_at=datetime(2026, 2, 9, 12, 0, tzinfo=UTC),
        parents=["f" * 40],
        files=list(files),
        parts=parts or [[index for index, file in enumerate(files) if file.text]],
        receipt=CoverageReceipt(budget_tokens=6000, tokens_sent=40),
        total_additions=sum(f.additions for f in files),
        total_deletions=sum(f.deletions for f in files),
    )


def run(coroutine: Any) -> Any:
    return asyncio.run(coroutine)


async def analyse(llm: LLMAnalyzer, *items: AnalysisInput) -> list[Analysis]:
    try:
        return [await llm.analyze(item) for item in items or (commit(),)]
    finally:
        await llm.aclose()
