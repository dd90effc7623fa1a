"""Lines of a batch file: ids, formats, files within the limits, and output lines read back."""

from __future__ import annotations

import io
import json
import tracemalloc
from pathlib import Path

import pytest

from repodaily.batch.lines import (
    MAX_REPLY_LINE_BYTES,
    ChunkWriter,
    LineFormat,
    custom_id,
    encode_line,
    part_id,
    read_replies,
    whole_id,
)

SHA = "0123456789abcdef0123456789abcdef01234567"


def test_a_custom_id_is_deterministic_short_and_tells_repositories_commits_and_keys_apart():
    key = "llm/gpt-4o-mini/p0123456789/en/abcdef0123/r0123456789/pr0123456789abcdef"
    first = custom_id("a-very-long-organisation-name/" + "r" * 200, SHA, key)
    assert first == custom_id("a-very-long-organisation-name/" + "r" * 200, SHA, key)
    assert len(first) <= 64 and len(part_id(first, 12)) <= 64
    others = {custom_id("acme/other", SHA, key), custom_id("acme/engine", "f" * 40, key), custom_id("x/y", SHA, "k")}
    assert first not in others and len(others) == 3
    assert whole_id(part_id(first, 3)) == first


def test_the_two_line_formats():
    body = {"model": "m", "messages": [{"role": "user", "content": "héllo\n"}]}
    openai = json.loads(encode_line("rd-1", body, LineFormat.openai))
    assert openai == {"custom_id": "rd-1", "method": "POST", "url": "/v1/chat/completions", "body": body}
    assert json.loads(encode_line("rd-1", body, LineFormat.slim)) == {"custom_id": "rd-1", "body": body}
    assert encode_line("rd-1", body, LineFormat.slim).count(b"\n") == 1


def _written(tmp_path: Path, lines: list[bytes], **limits: int) -> list[tuple[str, str, int, int]]:
    writer = ChunkWriter(tmp_path, **limits)
    for line in lines:
        writer.add(line)
    return writer.close()


def test_files_are_cut_at_the_line_limit(tmp_path):
    files = _written(tmp_path, [b"%d\n" % n for n in range(7)], max_lines=3)
    assert [(name, lines) for name, _, lines, _ in files] == [
        ("batch-0001.jsonl", 3),
        ("batch-0002.jsonl", 3),
        ("batch-0003.jsonl", 1),
    ]
    assert (tmp_path / "batch-0003.jsonl").read_bytes() == b"6\n"


def test_files_are_cut_at_the_byte_limit_and_a_line_no_file_holds_is_refused(tmp_path):
    files = _written(tmp_path, [b"a" * 9 + b"\n", b"b" * 9 + b"\n", b"c" * 4 + b"\n"], max_bytes=15)
    assert [(lines, size) for _, _, lines, size in files] == [(1, 10), (2, 15)]
    with pytest.raises(ValueError, match="exceeds"):
        ChunkWriter(tmp_path / "..", max_bytes=5).add(b"123456")


def test_output_lines_are_read_whatever_their_order_and_failures_say_why():
    completion = {"choices": [{"message": {"content": "{}"}}]}
    lines = [
        {"id": "1", "custom_id": "b", "response": {"status_code": 200, "request_id": "r", "body": completion}},
        {"id": "2", "custom_id": "a", "response": None, "error": {"code": "x", "message": "expired"}},
        {"id": "3", "custom_id": "c", "response": {"status_code": 429, "body": {"error": {"message": "slow down"}}}},
        {"custom_id": "d", "response": completion},
        "not an object",
    ]
    content = b"".join(json.dumps(line).encode() + b"\n" for line in lines) + b"{broken\n"
    read = list(read_replies(io.BytesIO(content)))
    assert read.count(None) == 2, "the line that is not an object, the broken one"
    replies = {reply.custom_id: reply for reply in read if reply is not None}
    assert sorted(replies) == ["a", "b", "c", "d"]
    assert replies["b"].body == completion and replies["b"].error is None
    assert replies["a"].body is None and replies["a"].error == "expired"
    assert replies["c"].error == "HTTP 429: slow down"
    assert replies["d"].body == completion


def test_a_line_over_the_cap_is_skipped_without_being_held_in_memory():
    reply = json.dumps({"custom_id": "a", "response": {"status_code": 200, "body": {"choices": []}}}).encode()
    content = reply + b"\n" + b"x" * (3 * MAX_REPLY_LINE_BYTES) + b"\n" + reply.replace(b'"a"', b'"b"')
    tracemalloc.start()
    try:
        read = list(read_replies(io.BytesIO(content)))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [reply.custom_id if reply else None for reply in read] == ["a", None, "b"]
    assert peak < 1.5 * MAX_REPLY_LINE_BYTES
