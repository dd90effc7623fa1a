"""The endpoint simulator: latency, bounded concurrency, 429 mode and the shape of its replies."""

from __future__ import annotations

import asyncio
import json
import math
import time

import httpx
import pytest
from endpoint_simulator import EndpointSimulator

from repodaily.models import Verdict

# What the pipeline, not the model, fills in an Analysis.


def _chat_request(text: str = "Classify this commit.") -> dict:
    return {
        "model": "any-model",
        "messages": [{"role": "system", "content": "You are terse."}, {"role": "user", "content": text}],
    }


async def _post_concurrently(base_url: str, count: int) -> list[httpx.Response]:
    async with httpx.AsyncClient(base_url=base_url, timeout=10, trust_env=False) as client:
        posts = [client.post("/chat/completions", json=_chat_request(f"commit {i}")) for i in range(count)]
        return await asyncio.gather(*posts)


def test_requests_beyond_concurrency_queue_so_batches_take_the_latency_each() -> None:
    latency, concurrency, count = 0.2, 4, 20
    with EndpointSimulator(latency, concurrency) as simulator:
        started = time.perf_counter()
        responses = asyncio.run(_post_concurrently(simulator.base_url, count))
        elapsed = time.perf_counter() - started

    expected = math.ceil(count / concurrency) * latency
    assert [r.status_code for r in responses] == [200] * count
    assert 0.9 * expected <= elapsed <= 2 * expected
    assert simulator.max_in_flight_seen == concurrency
    assert len(simulator.requests) == count
    assert simulator.rejected == 0


def test_reject_mode_answers_429_with_retry_after_beyond_concurrency() -> None:
    with EndpointSimulator(0.5, 4, reject_beyond_concurrency=True, retry_after=3) as simulator:
        responses = asyncio.run(_post_concurrently(simulator.base_url, 10))

    statuses = sorted(r.status_code for r in responses)
    assert statuses == [200] * 4 + [429] * 6
    rejected = [r for r in responses if r.status_code == 429]
    assert {r.headers["retry-after"] for r in rejected} == {"3"}
    assert rejected[0].json()["error"]["code"] == "rate_limit_exceeded"
    assert simulator.rejected == 6
    assert simulator.max_in_flight_seen == 4
    assert len(simulator.requests) == 10


def test_reply_is_a_completion_whose_content_is_the_verdict_json() -> None:
    request = _chat_request("x" * 400)
    with EndpointSimulator() as simulator:
        reply = httpx.post(f"{simulator.base_url}/chat/completions", json=request, trust_env=False).json()

    choice = reply["choices"][0]
    assert choice["finish_reason"] == "stop"
    assert choice["message"]["role"] == "assistant"
    verdict = json.loads(choice["message"]["content"])
    assert set(verdict) == set(Verdict.model_fields)  # what a model answers: the verdict, no provenance
    assert verdict["type"] == "fix" and verdict["importance"] == "low"
    usage = reply["usage"]
    prompt_chars = len("You are terse.") + 1 + 400
    assert usage["prompt_tokens"] == math.ceil(prompt_chars / 4)
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > usage["prompt_tokens"]
    assert reply["model"] == "any-model"


def test_verdict_factory_decides_the_content_from_the_request() -> None:
    def echo_model(request_json: dict) -> dict:
        return {"type": "docs", "one_line": f"for {request_json['model']}"}

    with EndpointSimulator(verdict=echo_model) as simulator:
        reply = httpx.post(f"{simulator.base_url}/chat/completions", json=_chat_request(), trust_env=False).json()

    assert json.loads(reply["choices"][0]["message"]["content"]) == {"type": "docs", "one_line": "for any-model"}


def test_models_lists_the_simulator_and_unknown_routes_are_404() -> None:
    with EndpointSimulator() as simulator, httpx.Client(base_url=simulator.base_url, trust_env=False) as client:
        models = client.get("/models").json()
        missing = client.get("/embeddings")

    assert [m["id"] for m in models["data"]] == ["simulator"]
    assert missing.status_code == 404
    assert "error" in missing.json()


def test_stopping_closes_the_port() -> None:
    with EndpointSimulator() as simulator:
        url = f"{simulator.base_url}/models"
        assert httpx.get(url, trust_env=False).status_code == 200

    with pytest.raises(httpx.ConnectError):
        httpx.get(url, trust_env=False)
