"""Asking for JSON and getting a *validated* object back, whatever the endpoint supports.

Endpoints differ in how they can be held to a schema, so each is asked in the
strongest :class:`~repodaily.analyzers.llm.client.OutputMode` not yet ruled out
for it — ``json_schema`` (strict), then ``json_object`` with a schema, then any
``json_object``, then the prompt alone (which always carries the schema). An
endpoint that refuses a ``response_format``, or answers a mode it has never
answered with JSON with something else, drops one mode, and the client remembers
it for every later call. Once a mode has produced JSON, a reply that is not JSON
is a bad reply, not a verdict on the mode: it goes to the repair round.

Whatever the mode, the reply is validated with pydantic. A reply that does not
validate gets one repair round (the errors go back to the model); a second
failure is :class:`~repodaily.errors.InvalidOutput`. A reply cut off at
``max_tokens`` is asked again once with twice the tokens (up to the endpoint's
limit) and a request to be brief; a second cut-off is
:class:`~repodaily.errors.Truncated`.

The repair round stays as small as the first request plus one reply. It echoes
the invalid reply as the model's turn only when that is no longer than the
request allowed (``max_tokens``): a longer one did not come from a model keeping
to the limit but from a server or gateway gone wrong, and sending it back would
multiply the prompt (up to the body cap: megabytes) or overflow the context
window, while a cut-down echo would show the model a broken reply as its own.
Such a round restates the errors alone — few, and without the input values —
which is all the model needs to answer again.
"""

from __future__ import annotations

import re
from functools import cache
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from repodaily import json_input
from repodaily.analyzers.llm.client import ChatClient, Message, OutputMode, UnsupportedMode
from repodaily.analyzers.llm.fit import answer_room
from repodaily.analyzers.llm.prompts import Prompts
from repodaily.analyzers.llm.schema import describe_errors, json_schema
from repodaily.context.tokens import count_tokens
from repodaily.errors import InvalidOutput, Truncated
from repodaily.models import Usage

__all__ = ["ask", "read_reply", "response_format"]

Reply = TypeVar("Reply", bound=BaseModel)

_FENCED_JSON = re.compile(r"```(?:json)?\s*\n(.*?)\n\s*```", re.DOTALL)


@cache
def _schema(reply: type[BaseModel], *, strict: bool) -> dict[str, Any]:
    return json_schema(reply, strict=strict)


def response_format(mode: OutputMode, reply: type[BaseModel]) -> dict[str, Any] | None:
    """The ``response_format`` request field that asks for ``reply`` in ``mode``."""
    if mode == OutputMode.json_schema:
        spec = {"name": reply.__name__, "schema": _schema(reply, strict=True), "strict": True}
        return {"type": "json_schema", "json_schema": spec}
    if mode == OutputMode.json_object_schema:
        return {"type": "json_object", "schema": _schema(reply, strict=False)}
    if mode == OutputMode.json_object:
        return {"type": "json_object"}
    return None


async def ask(
    client: ChatClient, messages: list[Message], reply: type[Reply], *, prompts: Prompts, usage: Usage
) -> Reply:
    """Send ``messages`` and return the answer as a valid ``reply``; see the module docstring."""
    try:
        room = answer_room(client, messages, client.settings.max_tokens)
        return await _ask_in_best_mode(client, messages, reply, prompts=prompts, usage=usage, max_tokens=room)
    except Truncated:
        settings = client.settings
        longer = min(settings.max_tokens * 2, max(settings.max_tokens_limit, settings.max_tokens))
        *history, last = messages
        brief = [*history, {**last, "content": f"{last['content']}\n\n{prompts.brief()}"}]
        longer = answer_room(client, brief, longer)  # what the window leaves, when the server said
        return await _ask_in_best_mode(client, brief, reply, prompts=prompts, usage=usage, max_tokens=longer)


async def _ask_in_best_mode(
    client: ChatClient,
    messages: list[Message],
    reply: type[Reply],
    *,
    prompts: Prompts,
    usage: Usage,
    max_tokens: int | None,
) -> Reply:
    mode = client.output_mode
    while True:
        try:
            content = await client.complete(
                messages, usage=usage, response_format=response_format(mode, reply), max_tokens=max_tokens
            )
        except UnsupportedMode:
            mode = client.rule_out(mode)
            continue
        data = _parse_json(content)
        if data is None and mode != OutputMode.prompt and not client.output_mode_confirmed:  # the mode is ignored
            mode = client.rule_out(mode)
            continue
        client.confirm(mode)
        try:
            return _validated(reply, data)
        except InvalidOutput as first:
            echo = count_tokens(content) <= (max_tokens or client.settings.max_tokens)
            repair = [
                *messages,
                *([{"role": "assistant", "content": content}] if echo else []),
                {"role": "user", "content": prompts.repair(str(first))},
            ]
            content = await client.complete(
                repair, usage=usage, response_format=response_format(mode, reply), max_tokens=max_tokens
            )
            try:
                return read_reply(content, reply)
            except InvalidOutput as second:
                raise InvalidOutput(
                    f"{client.settings.name}: invalid {reply.__name__} after a repair round: {second}"
                ) from None


def read_reply(content: str, reply: type[Reply]) -> Reply:
    """The answer in ``content`` as a valid ``reply``, else InvalidOutput.

    The reading an answer gets once its output mode is settled: a repair round's,
    and a batch's, which has no round to learn the mode from.
    """
    return _validated(reply, _parse_json(content))


def _parse_json(content: str) -> Any | None:
    """The JSON value in a reply: the whole text, a fenced ```json block, or the outermost braces."""
    candidates = [content.strip()]
    if match := _FENCED_JSON.search(content):
        candidates.append(match.group(1))
    start, end = content.find("{"), content.rfind("}")
    if 0 <= start < end:
        candidates.append(content[start : end + 1])
    for candidate in candidates:
        try:
            # strict=False: grammar-constrained decoders may put raw line breaks inside strings.
            return json_input.loads(candidate, strict=False)
        except ValueError:
            continue
    return None


def _validated(reply: type[Reply], data: Any | None) -> Reply:
    if data is None:
        raise InvalidOutput("the answer is not JSON")
    try:
        return reply.model_validate(data)
    except ValidationError as exc:
        raise InvalidOutput(describe_errors(exc)) from None
