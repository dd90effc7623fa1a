"""JSON that comes from outside: servers, models, batch files, label files.

Python's parser recurses once per nested array or object, so a body of a
hundred thousand ``[`` (a hostile or broken server, a model looping on one
token) raises RecursionError, which no ``except ValueError`` around a parse
expects: it escaped as an internal error, and from a background task as a
traceback. Here it is what it is, a document that does not parse.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["loads"]


def loads(text: str | bytes, *, strict: bool = True) -> Any:
    """``json.loads``, with nesting past the parser's reach raised as a JSONDecodeError like any malformed text."""
    try:
        return json.loads(text, strict=strict)
    except RecursionError:
        document = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError("nested too deeply", document, 0) from None
