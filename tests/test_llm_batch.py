"""The llm analyzer's batch form: the request a call would send, and its reply read as a call's answer.

Each test holds the batch form against what the synchronous path does with the
same input and the same reply, through the fakes of :mod:`llm_fakes`.
"""

from __future__ import annotations

import json
from typing import Any

import httpx
import pytest
from llm_fakes import VERDICT, Server, analyse, analyzer, commit, completion, endpoint, error, run, source_file

from repodaily.analyzers import BatchAnalyzer, MapReduceBatchAnalyzer
from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.analyzers.llm import OutputMode
from repodaily.errors import AnalysisError, InvalidOutput, ProviderError, Truncated
from repodaily.models import Analysis, AnalysisStatus, Importance, Usage

# Low importance lifted by the security flag, deep fields the depth rule hides, text that is not yet plain.
RAW_VERDICT: dict[str, Any] = {
    **VERDICT,
    "importance": "low",
    "flags": {"security": True, "breaking": False, "user_facing": False},
    "one_line": "  Escape user names\n\n\n in the log.  ",
    "summary": ["Escapes user names.", "   "],
}


def _sent_as_json(body: dict[str, Any]) -> bytes:
    """``body`` as the client's HTTP library puts it on the wire."""
    return httpx.Request("POST", "http://primary.test/v1/chat/completions", json=body).content


def _without_seconds(analysis: Analysis) -> dict[str, Any]:
    dump = analysis.model_dump()
    del dump["usage"]["seconds"]
    return dump


def test_the_llm_analyzer_offers_the_batch_form_and_the_heuristic_does_not():
    assert isinstance(analyzer(Server()), BatchAnalyzer)
    assert not isinstance(HeuristicAnalyzer(language="en"), BatchAnalyzer)


def test_the_batch_request_is_the_body_the_first_call_posts():
    server = Server(completion(VERDICT))
    llm = analyzer(server, endpoint(temperature=0.7, max_tokens=900), endpoint("fallback"))
    item = commit()
    body = llm.batch_request(item)
    run(analyse(llm, item))
    assert body is not None and _sent_as_json(body) == server.requests[0].content
    assert body["model"] == "primary-model" and body["max_tokens"] == 900 and body["temperature"] == 0.7
    assert body["response_format"]["type"] == "json_schema"
    assert body["response_format"]["json_schema"]["strict"] is True


def test_the_batch_request_asks_for_the_strict_schema_whatever_the_endpoint_refused():
    server = Server(error(400, "response_format json_schema is not supported"), completion(VERDICT))
    llm = analyzer(server)
    item = commit()
    run(analyse(llm, item))
    assert llm.clients[0].output_mode == OutputMode.json_object_schema
    body = llm.batch_request(item)
    assert body is not None and _sent_as_json(body) == server.requests[0].content


@pytest.mark.parametrize("verdict", [VERDICT, RAW_VERDICT], ids=["as-written", "overridden-and-cut-to-depth"])
def test_a_reply_gives_the_analysis_the_call_gives(verdict: dict[str, Any]):
    llm = analyzer(Server(completion(verdict, prompt_tokens=321, completion_tokens=54)))
    item = commit()
    called = run(analyse(llm, item))[0]
    batched = llm.parse_reply(item, completion(verdict, prompt_tokens=321, completion_tokens=54).json())
    assert _without_seconds(batched) == _without_seconds(called)
    assert batched.status == AnalysisStatus.ok and batched.coverage == item.receipt
    assert batched.analyzer == llm.fingerprint and batched.model == "primary-model"
    assert batched.usage == Usage(calls=1, prompt_tokens=321, completion_tokens=54)


def test_the_depth_rule_and_the_overrides_apply_to_a_batch_reply():
    batched = analyzer(Server()).parse_reply(commit(), completion(RAW_VERDICT).json())
    assert batched.importance == Importance.medium
    assert batched.one_line == "Escape user names\nin the log."
    assert batched.summary == ["Escapes user names."] and batched.risks == [] and batched.insights == []


def test_a_commit_planned_in_parts_has_no_batch_request():
    item = commit(source_file("src/a.py"), source_file("src/b.py"), parts=[[0], [1]])
    llm = analyzer(Server())
    assert llm.batch_request(item) is None
    with pytest.raises(ValueError, match="2 parts"):
        llm.parse_reply(item, completion(VERDICT).json())


def _refusal() -> dict[str, Any]:
    reply = completion(VERDICT).json()
    reply["choices"][0]["message"] = {"role": "assistant", "content": None, "refusal": "I cannot help with that."}
    return reply


@pytest.mark.parametrize(
    ("reply", "failure"),
    [
        (completion("Sure! This commit fixes a crash.").json(), InvalidOutput),
        (completion({**VERDICT, "importance": "urgent"}).json(), InvalidOutput),
        (completion({key: value for key, value in VERDICT.items() if key != "flags"}).json(), InvalidOutput),
        (completion(VERDICT, finish_reason="length").json(), Truncated),
        (_refusal(), ProviderError),
        ({"error": {"message": "overloaded"}}, InvalidOutput),
    ],
    ids=["not-json", "wrong-enum", "missing-field", "cut-off", "refused", "not-a-completion"],
)
def test_a_reply_that_is_not_a_valid_verdict_is_an_analysis_error(reply: dict[str, Any], failure: type[AnalysisError]):
    server = Server()
    with pytest.raises(failure) as caught:
        analyzer(server).parse_reply(commit(), reply)
    assert isinstance(caught.value, AnalysisError)
    assert caught.value.usage is not None and caught.value.usage.calls == 1
    assert server.requests == []  # no repair round: the caller sends the commit the usual way


SUMMARY: dict[str, Any] = {"changes": ["Splits the parser."], "concerns": []}


def test_the_two_rounds_of_a_commit_in_parts_are_the_bodies_the_calls_post_and_give_the_same_analysis():
    item = commit(source_file("src/a.py"), source_file("src/b.py"), parts=[[0], [1]])
    usage = {"prompt_tokens": 50, "completion_tokens": 10}
    server = Server(completion(SUMMARY, **usage), completion(SUMMARY, **usage), completion(VERDICT, **usage))
    llm = analyzer(server)
    called = run(analyse(llm, item))[0]
    assert isinstance(llm, MapReduceBatchAnalyzer)

    parts = llm.batch_part_requests(item)
    assert sorted(_sent_as_json(body) for body in parts) == sorted(r.content for r in server.requests[:2])
    notes = [llm.parse_part_reply(item, n, completion(SUMMARY, **usage).json()) for n in (1, 2)]
    assert [note["paths"] for note in notes] == [["src/a.py"], ["src/b.py"]]
    final = llm.batch_final_request(item, json.loads(json.dumps(notes)))  # as read back from a file
    assert _sent_as_json(final) == server.requests[2].content
    batched = llm.parse_final_reply(item, notes, completion(VERDICT, **usage).json())
    assert _without_seconds(batched) == _without_seconds(called)
    assert batched.usage == Usage(calls=3, prompt_tokens=150, completion_tokens=30)
    assert llm.batch_part_requests(commit()) == []


def test_a_part_reply_that_is_not_a_summary_is_an_analysis_error():
    item = commit(source_file("src/a.py"), source_file("src/b.py"), parts=[[0], [1]])
    with pytest.raises(InvalidOutput) as caught:
        analyzer(Server()).parse_part_reply(item, 1, completion(VERDICT).json())
    assert caught.value.usage is not None and caught.value.usage.calls == 1
