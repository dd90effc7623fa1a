"""Splitting a commit's diff text into parts that each fit one prompt (the map of map-reduce).

This works on the texts an :class:`~repodaily.models.AnalysisInput` carries,
which the context stage has already cut to the analyzer's
:meth:`~repodaily.analyzers.llm.LLMAnalyzer.context_budget` — one prompt's
budget per chunk call. The context stage decides how much of a huge commit is
read at all (and its receipt says so); this module decides how it is spread
over calls.
"""

from __future__ import annotations

import re

from repodaily.context.tokens import count_tokens
from repodaily.models import ContextFile, Coverage

__all__ = ["split_into_parts"]

_LINE = re.compile(r"[^\n]*\n|[^\n]+")


def split_into_parts(files: list[ContextFile], *, budget_tokens: int, max_parts: int) -> list[list[ContextFile]]:
    """The files that have text, in their order, packed into parts of at most ``budget_tokens`` each.

    A text bigger than a whole part is cut at a line boundary to fit one. Only
    the first ``max_parts`` parts are returned: the files of the rest go unread
    (a caller shows them by path and counts). No text at all gives ``[]``.
    """
    parts: list[list[ContextFile]] = []
    used = budget_tokens  # forces a new part for the first file
    for file in files:
        if not file.text:
            continue
        tokens = count_tokens(file.text)
        if tokens > budget_tokens:
            text, tokens = _cut(file.text, budget_tokens)
            file = file.model_copy(update={"text": text, "coverage": Coverage.clipped})
        if used + tokens > budget_tokens:
            parts.append([])
            used = 0
        parts[-1].append(file)
        used += tokens
    return parts[:max_parts]


def _cut(text: str, budget_tokens: int) -> tuple[str, int]:
    """The leading whole lines of ``text`` that fit ``budget_tokens`` with a closing marker."""
    lines = _LINE.findall(text)
    kept: list[str] = []
    used = 0
    for line in lines:
        cost = count_tokens(line)
        if used + cost > budget_tokens * 0.95 - 10:  # room for the marker and the estimate's drift
            break
        kept.append(line)
        used += cost
    cut = "".join(kept) + f"… ({len(lines) - len(kept)} more lines not shown)"
    return cut, count_tokens(cut)
