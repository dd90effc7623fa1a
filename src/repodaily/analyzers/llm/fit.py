"""Prompts that fit the model's context window, once the server has said how big it is.

The context stage plans a commit's diff for one prompt's budget (``budget_tokens``),
chosen for the models most people use. A small local model's window (4,096 tokens
is common with llama.cpp) may hold less than that budget and the room for the
answer. The server says so: in the error that refuses an oversized prompt (read by
the client, :class:`~repodaily.analyzers.llm.client.ContextTooLong`) or up front
(llama.cpp's ``/props``). From then on each commit's texts are planned again
(:func:`~repodaily.context.budget.refit`) for the room the window leaves — the
window less the answer's ``max_tokens`` and the prompt around the diff, with a
margin for the gap between our token estimate and the model's tokenizer, and
that gap itself once the server has said how many tokens it counted (a small
English-trained vocabulary makes twice our estimate of Chinese text) — and the
receipt says what was read.
"""

from __future__ import annotations

from repodaily.analyzers.llm.client import ChatClient, Message
from repodaily.analyzers.llm.prompts import Prompts
from repodaily.context import count_tokens, refit
from repodaily.models import AnalysisInput, ContextFile, Coverage

__all__ = ["MIN_ANSWER_TOKENS", "answer_room", "fitted", "without_text"]

#: The share of a window our token estimate may fill: tokenizers count code up to a fifth higher than it does.
WINDOW_SHARE = 0.8
#: The least room left for an answer when a window is tight: a brief verdict.
MIN_ANSWER_TOKENS = 512
# Role markers and framing a chat template adds around each message.
_TOKENS_PER_MESSAGE = 4


def fitted(item: AnalysisInput, *, client: ChatClient, prompts: Prompts, max_parts: int) -> AnalysisInput:
    """``item`` as it fits ``client``'s context window: itself when the window is unknown or holds it.

    The diff gets what the window leaves beside the prompt around it and the endpoint's
    ``max_tokens``; when not even that prompt fits beside them, the diff gets nothing and
    the answer less (:func:`answer_room`).
    """
    window = client.context_tokens
    if window is None:
        return item
    frame = prompts.analyze(item, [without_text(file) for file in item.files])
    room = window - client.settings.max_tokens - _counted(client, frame)
    budget = max(0, int(room * WINDOW_SHARE / client.token_ratio))
    texts = [sum(count_tokens(item.files[index].text) for index in part) for part in item.parts]
    if max(texts, default=0) <= budget:
        return item
    return refit(item, budget_tokens=budget, max_parts=max_parts)


def answer_room(client: ChatClient, messages: list[Message], wanted: int) -> int:
    """The ``max_tokens`` to ask beside ``messages``: ``wanted``, or what the window leaves, a brief answer at least."""
    if client.context_tokens is None:
        return wanted
    return max(MIN_ANSWER_TOKENS, min(wanted, client.context_tokens - _counted(client, messages)))


def _counted(client: ChatClient, messages: list[Message]) -> int:
    """``messages`` as the model may count them: the estimate, times the tokenizer's ratio, with the margin."""
    estimate = sum(count_tokens(message["content"]) + _TOKENS_PER_MESSAGE for message in messages)
    return int(estimate * client.token_ratio / WINDOW_SHARE)


def without_text(file: ContextFile) -> ContextFile:
    """The file as a prompt lists it without its text: path and counts (a map-reduce's final call)."""
    return file.model_copy(update={"text": "", "coverage": Coverage.stats_only}) if file.text else file
