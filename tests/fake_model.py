"""A model that answers each chat request from its text alone, so a call and a batch line get the same answer.

The verdict's type, importance and one-line summary follow a hash of the
prompt, so each commit of a fixture gets its own, and the reports of the
synchronous path and of a batch can be compared byte for byte.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from endpoint_simulator import prompt_text
from llm_fakes import VERDICT

_TYPES = ("fix", "feat", "refactor", "docs")
_IMPORTANCE = ("high", "medium", "low")


def verdict(body: dict[str, Any]) -> dict[str, Any]:
    digest = hashlib.sha256(prompt_text(body).encode()).digest()
    return {
        **VERDICT,
        "type": _TYPES[digest[0] % len(_TYPES)],
        "importance": _IMPORTANCE[digest[1] % len(_IMPORTANCE)],
        "one_line": f"Change {digest[:4].hex()} judged by the fake model.",
    }


def summary(body: dict[str, Any]) -> dict[str, Any]:
    """A part's summary (a map-reduce's first round), from the part's text."""
    digest = hashlib.sha256(prompt_text(body).encode()).hexdigest()
    return {"changes": [f"Part {digest[:6]} changes the engine."], "concerns": []}


def completion(body: dict[str, Any], *, number: int = 1) -> dict[str, Any]:
    """The chat completion the fake model gives ``body``: the reply its schema asks for."""
    asked = (body.get("response_format") or {}).get("json_schema", {}).get("name")
    content = json.dumps(summary(body) if asked == "ChunkSummary" else verdict(body))
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": 1767225600,
        "model": body.get("model", "fake-model"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 100, "completion_tokens": 40, "total_tokens": 140},
    }
