"""The fault proxy, observed through a real httpx client with the endpoint simulator as upstream."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import httpx
import pytest
from endpoint_simulator import EndpointSimulator
from fault_proxy import (
    INVALID_JSON,
    NOT_JSON_CONTENT,
    PASSTHROUGH,
    RESET,
    TRUNCATE,
    WRONG_SCHEMA,
    FaultKind,
    FaultProxy,
    http_status,
    stall,
)

_VERDICT = {"type": "feat", "importance": "high", "one_line": "adds a cache for parsed configs"}
_REQUEST = {
    "model": "m",
    "messages": [{"role": "user", "content": "Classify commit abc123."}],
    "response_format": {"type": "json_object"},
}


@pytest.fixture
def upstream() -> Iterator[EndpointSimulator]:
    with EndpointSimulator(verdict=lambda request_json: dict(_VERDICT)) as simulator:
        yield simulator


@pytest.fixture
def proxy(upstream: EndpointSimulator) -> Iterator[FaultProxy]:
    with FaultProxy(upstream.base_url) as fault_proxy:
        yield fault_proxy


@pytest.fixture
def client(proxy: FaultProxy) -> Iterator[httpx.Client]:
    with httpx.Client(base_url=proxy.base_url, timeout=5, trust_env=False) as http:
        yield http


def _chat(client: httpx.Client) -> httpx.Response:
    return client.post("/chat/completions", json=_REQUEST)


def _content(response: httpx.Response) -> str:
    return response.json()["choices"][0]["message"]["content"]


@pytest.mark.parametrize("status", [429, 500, 503, 403, 401])
def test_http_status_fault_answers_an_openai_error_without_calling_upstream(
    status: int, proxy: FaultProxy, client: httpx.Client, upstream: EndpointSimulator
) -> None:
    proxy.set_plan([http_status(status)])

    response = _chat(client)

    assert response.status_code == status
    assert response.json()["error"]["message"]
    assert "retry-after" not in response.headers
    assert upstream.requests == []
    assert proxy.calls[0].upstream_status is None


def test_plan_is_consumed_in_order_and_429_carries_retry_after(
    proxy: FaultProxy, client: httpx.Client, upstream: EndpointSimulator
) -> None:
    proxy.set_plan([http_status(429, retry_after=2), http_status(503), PASSTHROUGH])

    statuses = [_chat(client) for _ in range(4)]

    assert [r.status_code for r in statuses] == [429, 503, 200, 200]
    assert statuses[0].headers["retry-after"] == "2"
    assert statuses[0].headers["retry-after-ms"] == "2000"
    assert statuses[0].json()["error"]["code"] == "rate_limit_exceeded"
    assert len(upstream.requests) == 2
    assert [call.fault.kind for call in proxy.chat_calls] == [
        "http_status",
        "http_status",
        "passthrough",
        "passthrough",
    ]


def test_always_applies_once_the_plan_is_used_up_and_clear_restores_passthrough(
    proxy: FaultProxy, client: httpx.Client
) -> None:
    proxy.set_plan([http_status(500)])
    proxy.always(http_status(503))

    assert [_chat(client).status_code for _ in range(3)] == [500, 503, 503]
    proxy.clear()
    assert proxy.calls == []
    assert _chat(client).status_code == 200


def test_reset_closes_with_rst_so_the_client_sees_a_read_error(
    proxy: FaultProxy, client: httpx.Client, upstream: EndpointSimulator
) -> None:
    proxy.set_plan([RESET])

    with pytest.raises(httpx.ReadError):  # a plain close would be a RemoteProtocolError instead
        _chat(client)

    assert [call.fault.kind for call in proxy.calls] == [FaultKind.reset]
    assert upstream.requests == []
    assert _chat(client).status_code == 200


def test_stall_beyond_the_client_timeout_raises_a_timeout(proxy: FaultProxy, upstream: EndpointSimulator) -> None:
    proxy.set_plan([stall(30)])

    started = time.perf_counter()
    with httpx.Client(base_url=proxy.base_url, timeout=0.3, trust_env=False) as impatient:
        with pytest.raises(httpx.ReadTimeout):
            _chat(impatient)

    assert time.perf_counter() - started < 3
    assert proxy.calls[0].fault == stall(30)
    assert upstream.requests == []


def test_stall_is_capped_by_max_stall_then_closes_without_answering(upstream: EndpointSimulator) -> None:
    with FaultProxy(upstream.base_url, max_stall=0.2) as capped:
        capped.always(stall(30))
        started = time.perf_counter()
        with httpx.Client(base_url=capped.base_url, timeout=10, trust_env=False) as patient:
            with pytest.raises(httpx.RemoteProtocolError):
                _chat(patient)

    assert 0.2 <= time.perf_counter() - started < 3


def test_truncate_halves_the_content_and_reports_length(proxy: FaultProxy, client: httpx.Client) -> None:
    original = _content(_chat(client))
    proxy.set_plan([TRUNCATE])

    response = _chat(client)

    assert response.json()["choices"][0]["finish_reason"] == "length"
    assert _content(response) == original[: len(original) // 2]
    assert proxy.calls[-1].upstream_status == 200


def test_invalid_json_replaces_the_content_with_text_that_does_not_parse(
    proxy: FaultProxy, client: httpx.Client
) -> None:
    proxy.set_plan([INVALID_JSON])

    content = _content(_chat(client))

    assert content == NOT_JSON_CONTENT
    with pytest.raises(json.JSONDecodeError):
        json.loads(content)


def test_wrong_schema_replaces_the_content_with_json_of_another_shape(proxy: FaultProxy, client: httpx.Client) -> None:
    proxy.set_plan([WRONG_SCHEMA])

    response = _chat(client)

    assert json.loads(_content(response)) == {"answer": 42}
    assert response.json()["choices"][0]["finish_reason"] == "stop"


def test_passthrough_returns_the_upstream_reply(
    proxy: FaultProxy, client: httpx.Client, upstream: EndpointSimulator
) -> None:
    direct = httpx.post(f"{upstream.base_url}/chat/completions", json=_REQUEST, trust_env=False).json()

    proxied = _chat(client).json()

    def unstamped(reply: dict) -> dict:
        return {key: value for key, value in reply.items() if key not in ("id", "created")}

    assert unstamped(proxied) == unstamped(direct)
    assert json.loads(proxied["choices"][0]["message"]["content"]) == _VERDICT


def test_other_paths_are_forwarded_untouched_and_do_not_consume_the_plan(
    proxy: FaultProxy, client: httpx.Client
) -> None:
    proxy.set_plan([http_status(500)])

    models = client.get("/models")

    assert models.status_code == 200
    assert models.json()["data"][0]["id"] == "simulator"
    assert _chat(client).status_code == 500
    assert [(call.method, call.path, call.fault) for call in proxy.calls][0] == ("GET", "/v1/models", PASSTHROUGH)
    assert len(proxy.chat_calls) == 1


def test_records_capture_the_request_and_forwarding_keeps_end_to_end_headers(
    proxy: FaultProxy, client: httpx.Client, upstream: EndpointSimulator
) -> None:
    client.post(
        "/chat/completions",
        json=_REQUEST,
        headers={"Authorization": "Bearer sk-test", "Proxy-Authorization": "Basic hop"},
    )

    [call] = proxy.calls
    assert call.path == "/v1/chat/completions"
    assert call.request_json["response_format"] == {"type": "json_object"}
    assert "Classify commit abc123." in call.prompt
    assert call.upstream_status == 200
    [received] = upstream.requests
    assert received.headers["authorization"] == "Bearer sk-test"
    assert "proxy-authorization" not in received.headers
    assert received.json() == _REQUEST


def test_unreachable_upstream_is_a_502() -> None:
    with EndpointSimulator() as gone:
        base_url = gone.base_url
    with FaultProxy(base_url) as proxy, httpx.Client(base_url=proxy.base_url, trust_env=False) as client:
        response = _chat(client)

    assert response.status_code == 502
    assert proxy.calls[0].upstream_status is None


def test_upstream_must_be_on_loopback() -> None:
    with pytest.raises(ValueError, match="loopback"):
        FaultProxy("https://api.openai.com/v1")
