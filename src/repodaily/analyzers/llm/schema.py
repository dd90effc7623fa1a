"""What a model must answer, as pydantic models, and what we do to an answer before trusting it.

:class:`LLMVerdict` is a :class:`~repodaily.models.Verdict` that only adds
what the model is told (its fields in the same order, with the same enums,
literal aspects and audiences), so a valid reply always makes a valid verdict.
Length and count bounds are *hints* in the JSON schema only
(``maxLength``/``maxItems``): they let a grammar-constrained decoder (llama.cpp,
vLLM) stop instead of rambling until ``max_tokens``, while a good model that
writes one sentence too many is not failed for it.

After validation, :func:`bounded` cuts what runs far past a hint (at
``_SLACK`` times it): a model that ignores the hints, or a server that does
not enforce them, cannot fill a report, the cache or a chat message with one
answer. :func:`finish_verdict` then applies the importance overrides, the
part of the rubric that is a rule rather than judgement, and makes every string
plain text. The depth by importance is applied where every analyzer's is, when
the verdict becomes an analysis (:meth:`~repodaily.models.Analysis.of`).
"""

from __future__ import annotations

import copy
import re
from typing import Any, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from repodaily.models import ChangeType, Flags, Importance, Insight, Recommendation, Verdict

__all__ = [
    "ChunkSummary",
    "HighlightBullet",
    "HighlightsReply",
    "LLMVerdict",
    "VerdictInsight",
    "VerdictRecommendation",
    "bounded",
    "describe_errors",
    "finish_verdict",
    "json_schema",
    "plain",
]

_BLANK_LINES = re.compile(r"\n[ \t]*(?:\n[ \t]*)+")
_TRAILING_SPACE = re.compile(r"[ \t]+\n")
_MAX_ERRORS_SHOWN = 8
# How far past a schema hint an answer is kept: room for a sentence too many, not for a flood.
_SLACK = 3

_Answer = TypeVar("_Answer", bound=BaseModel)


def _text(max_length: int, **kwargs: Any) -> Any:
    return Field(json_schema_extra={"maxLength": max_length}, **kwargs)


def _items(max_items: int, *, at_least: int = 0, item: dict[str, Any] | None = None) -> Any:
    """A list field: required with ``at_least`` items, else optional and empty by default."""
    bounds: dict[str, Any] = {"maxItems": max_items, **({"items": item} if item else {})}
    if at_least:
        return Field(min_length=at_least, json_schema_extra=bounds)
    return Field(default_factory=list, json_schema_extra=bounds)


def _texts(max_items: int, max_length: int, *, at_least: int = 0) -> Any:
    return _items(max_items, at_least=at_least, item={"type": "string", "maxLength": max_length})


# Whitespace is stripped before validation, so a blank required text is a validation error.
_REPLY_CONFIG = ConfigDict(extra="forbid", str_strip_whitespace=True)


class _Reply(BaseModel):
    model_config = _REPLY_CONFIG


class VerdictInsight(Insight):
    model_config = _REPLY_CONFIG
    text: str = _text(300, min_length=1)


class VerdictRecommendation(Recommendation):
    model_config = _REPLY_CONFIG
    text: str = _text(300, min_length=1)


class LLMVerdict(Verdict):
    """One commit judged against the rubric, as the model writes it."""

    model_config = _REPLY_CONFIG

    # `type` and `importance` as the verdict has them; the others carry the schema's hints, and flags are required.
    secondary_types: list[ChangeType] = _items(2)
    importance_reason: str = _text(200, default="")
    flags: Flags
    summary: list[str] = _texts(4, 300)
    one_line: str = _text(160, min_length=1)
    impact_scope: list[str] = _texts(4, 80)
    # insights, recommendations: stricter subclasses of the verdict's items; mypy objects as a list is invariant.
    insights: list[VerdictInsight] = _items(3)  # type: ignore[assignment]  # narrows the item type
    risks: list[str] = _texts(3, 300)
    recommendations: list[VerdictRecommendation] = _items(3)  # type: ignore[assignment]  # narrows the item type


class ChunkSummary(_Reply):
    """What one part of a big commit's diff does (the map step of map-reduce)."""

    changes: list[str] = _texts(5, 200, at_least=1)
    concerns: list[str] = _texts(3, 200)


class HighlightBullet(_Reply):
    text: str = _text(300, min_length=1)
    shas: list[str] = _texts(6, 40, at_least=1)


class HighlightsReply(_Reply):
    """The day's key points, each citing the commits it summarises."""

    highlights: list[HighlightBullet] = _items(5, at_least=1)


def json_schema(model: type[BaseModel], *, strict: bool) -> dict[str, Any]:
    """The JSON schema of ``model`` without titles, defaults and descriptions (the prompt explains the fields).

    ``strict`` makes the dialect of OpenAI's strict structured outputs: every
    property required, no extra properties, no length bounds.
    """
    schema = copy.deepcopy(model.model_json_schema())
    _clean(schema, strict=strict)
    return schema


def _clean(node: Any, *, strict: bool) -> None:
    if isinstance(node, list):
        for item in node:
            _clean(item, strict=strict)
        return
    if not isinstance(node, dict):
        return
    for key in ("title", "default", "description"):
        node.pop(key, None)
    if strict:
        for key in ("maxLength", "minLength"):
            node.pop(key, None)
        if "properties" in node:
            node["required"] = list(node["properties"])
            node["additionalProperties"] = False
    for key, value in node.items():
        # Under "properties" and "$defs" the keys are names, not keywords: clean only the values.
        for child in value.values() if key in ("properties", "$defs") else [value]:
            _clean(child, strict=strict)


def bounded(reply: _Answer) -> _Answer:
    """``reply`` with each text and list cut at ``_SLACK`` times its schema hint, recursively (items that are replies).

    A cut text ends with "…"; a cut list keeps its first items, the ones a model
    puts first because they matter most.
    """
    update: dict[str, Any] = {}
    for name, field in type(reply).model_fields.items():
        hint = cast(dict[str, Any], field.json_schema_extra if isinstance(field.json_schema_extra, dict) else {})
        value = getattr(reply, name)
        if isinstance(value, str) and "maxLength" in hint:
            update[name] = _clip(value, hint["maxLength"])
        elif isinstance(value, list) and "maxItems" in hint:
            item_length = hint.get("items", {}).get("maxLength")
            update[name] = [
                _clip(item, item_length) if isinstance(item, str) and item_length else _bounded_item(item)
                for item in value[: _SLACK * hint["maxItems"]]
            ]
    return reply.model_copy(update=update)


def _bounded_item(item: Any) -> Any:
    return bounded(item) if isinstance(item, BaseModel) else item


def _clip(text: str, hint: int) -> str:
    limit = _SLACK * hint
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def plain(text: str) -> str:
    """Model text as plain text: no surrounding space, no blank lines, no trailing spaces."""
    text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
    return _BLANK_LINES.sub("\n", _TRAILING_SPACE.sub("\n", text))


def _plain_list(texts: list[str]) -> list[str]:
    return [cleaned for text in texts if (cleaned := plain(text))]


def finish_verdict(reply: LLMVerdict) -> Verdict:
    """The verdict a valid reply states, after the rubric's overrides, with plain strings and no blank items.

    ``security`` or ``breaking`` lifts importance to at least medium.
    """
    reply = bounded(reply)
    importance = reply.importance
    if (reply.flags.security or reply.flags.breaking) and importance == Importance.low:
        importance = Importance.medium
    return Verdict(
        type=reply.type,
        secondary_types=[t for t in dict.fromkeys(reply.secondary_types) if t != reply.type],
        importance=importance,
        importance_reason=plain(reply.importance_reason),
        flags=reply.flags,
        summary=_plain_list(reply.summary),
        one_line=plain(reply.one_line),
        impact_scope=_plain_list(reply.impact_scope),
        insights=[Insight(aspect=i.aspect, text=text) for i in reply.insights if (text := plain(i.text))],
        risks=_plain_list(reply.risks),
        recommendations=[
            Recommendation(audience=r.audience, text=text) for r in reply.recommendations if (text := plain(r.text))
        ],
    )


def describe_errors(error: ValidationError) -> str:
    """Validation errors one per line, without the input values (they may be long, or secret)."""
    lines = [
        f"{'.'.join(str(part) for part in e['loc']) or '(root)'}: {e['msg']}" for e in error.errors(include_input=False)
    ]
    more = len(lines) - _MAX_ERRORS_SHOWN
    return "\n".join(lines[:_MAX_ERRORS_SHOWN] + ([f"… and {more} more"] if more > 0 else []))
