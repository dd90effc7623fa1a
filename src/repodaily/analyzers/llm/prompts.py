"""The prompts, rendered from the Jinja2 files in ``prompts/`` (one per task and language).

Every prompt is a system message — instructions, the rubric and the JSON
schema, byte-identical from call to call, whatever the repository — followed by
a user message carrying the data. The static part comes first so that the
prefix caches of vLLM, llama.cpp, DeepSeek and OpenAI reuse it across commits
and repositories. A commit's user message opens with its repository's context
(:meth:`Prompts.repository`), the same for every commit of a repository's day,
so the cached prefix runs on through it; the commit's own data comes last.

A commit's pull request, when the input carries one, follows its message and
precedes its diff: number, labels, linked issues, title and description. The
context stage's budget counts diff text only, so the pull request's text is held
to a bound of its own (:class:`PullText`: the description's first
:data:`PULL_REQUEST_BODY_CHARS` characters, the first labels and issues); with the
message it is the prompt around the diff, which the fitting to a model's window
counts (:mod:`.fit`).

Commit, pull-request and repository text is untrusted: the prompts declare it data, and every
piece of it sits in a fence the text itself cannot close (:func:`fence`), or in
an inline code span that cannot be broken (:func:`code`), so an instruction
inside a commit message, a diff or a repository's description has nowhere to
escape to.

:func:`prompt_digest`, a hash of everything that makes a prompt, is part of the
analyzer's fingerprint and the report's footer, so an edited template or schema
never serves an answer to the old one, and no version needs bumping by hand.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any, Literal

from jinja2 import Environment, FunctionLoader, StrictUndefined
from pydantic import BaseModel

from repodaily.analyzers.llm import schema
from repodaily.analyzers.llm.client import Message
from repodaily.analyzers.llm.schema import ChunkSummary, HighlightsReply, LLMVerdict, json_schema
from repodaily.digests import digest, package_file, package_tree
from repodaily.models import Analysis, AnalysisInput, ContextFile, PullRequest, RepositoryContext

__all__ = [
    "PULL_REQUEST_BODY_CHARS",
    "ChunkNote",
    "HighlightEntry",
    "Prompts",
    "PullText",
    "code",
    "fence",
    "prompt_digest",
]

#: The characters of a pull request's description a prompt carries: about 400 tokens of English, a template's worth.
PULL_REQUEST_BODY_CHARS = 1500
#: The labels and linked issues a prompt names: more is noise, and each costs tokens.
_MAX_LABELS = 20
_MAX_ISSUES = 10

_BACKTICK_RUN = re.compile(r"`+")


def fence(text: str, info: str = "") -> str:
    """``text`` in a fenced block whose fence is longer than any backtick run inside it."""
    longest = max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{text.strip(chr(10))}\n{ticks}"


def code(text: str) -> str:
    """``text`` as one inline code span on one line, whatever backticks or line breaks it holds."""
    text = text.replace("\r", "\\r").replace("\n", "\\n")
    longest = max((len(run) for run in _BACKTICK_RUN.findall(text)), default=0)
    ticks = "`" * (longest + 1)
    padding = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{ticks}{padding}{text}{padding}{ticks}"


@cache
def prompt_digest() -> str:
    """Short hash of what the model is asked: the template files, this module, the JSON schemas sent.

    The templates are hashed in every language, so the hash names one version
    of the prompts whatever the report's language. This module renders them
    (fences, the Jinja2 settings, the message layout). The schemas are those of
    every model :mod:`.schema` exports, in both dialects that are sent — inside
    the system prompt and as a strict ``response_format`` — hashed as the JSON
    they produce, so a change to an enum of :mod:`repodaily.models` counts as
    much as one to :mod:`.schema`, and a new reply is hashed without being
    listed here. The transport (client, retries, limits) is not hashed: it does
    not change an answer, and every LLM analysis redone costs a model call.
    """
    material: dict[str, str | bytes] = {
        **package_tree(__package__, folder="prompts", suffixes=(".j2",)),
        **package_file(__package__, "prompts.py"),
    }
    for name in schema.__all__:
        model = getattr(schema, name)
        if isinstance(model, type) and issubclass(model, BaseModel):
            for strict in (False, True):
                material[f"schema/{name}/{strict}"] = json.dumps(json_schema(model, strict=strict), sort_keys=True)
    return digest(material)


def _load(name: str) -> str:
    return resources.files(__package__).joinpath("prompts").joinpath(name).read_text(encoding="utf-8")


_ENVIRONMENT = Environment(
    loader=FunctionLoader(_load),
    undefined=StrictUndefined,
    autoescape=False,  # plain text for a model, not HTML
    keep_trailing_newline=True,
    trim_blocks=True,
    lstrip_blocks=True,
)
_ENVIRONMENT.filters["fence"] = fence
_ENVIRONMENT.filters["code"] = code


@dataclass(frozen=True)
class ChunkNote:
    """The summary of one part of a big commit, and the files it covers."""

    paths: list[str]
    summary: ChunkSummary


@dataclass(frozen=True)
class HighlightEntry:
    """One of the day's important commits, as the highlights prompt lists it."""

    short_sha: str
    subject: str
    analysis: Analysis


@dataclass(frozen=True)
class PullText:
    """What a prompt shows of a commit's pull request: its text held to the bounds above."""

    number: int
    title: str
    body: str
    body_clipped: bool
    labels: list[str]
    linked_issues: list[int]

    @classmethod
    def of(cls, pull_request: PullRequest | None) -> PullText | None:
        if pull_request is None:
            return None
        body = pull_request.body.strip()
        return cls(
            number=pull_request.number,
            title=pull_request.title.strip(),
            body=body[:PULL_REQUEST_BODY_CHARS],
            body_clipped=len(body) > PULL_REQUEST_BODY_CHARS,
            labels=pull_request.labels[:_MAX_LABELS],
            linked_issues=pull_request.linked_issues[:_MAX_ISSUES],
        )


def _schema_text(model: type[BaseModel]) -> str:
    return json.dumps(json_schema(model, strict=False), ensure_ascii=False, separators=(",", ":"))


class Prompts:
    """The rendered prompts of one language; the static parts are rendered once."""

    def __init__(self, language: Literal["zh", "en"]) -> None:
        self.language = language
        self._analyze = self._macros("analyze")
        self._chunk = self._macros("chunk")
        self._highlights = self._macros("highlights")
        self._shared = self._macros("shared")
        self._analyze_system = _render(self._analyze.system, _schema_text(LLMVerdict))
        self._chunk_system = _render(self._chunk.system, _schema_text(ChunkSummary))
        self._highlights_system = _render(self._highlights.system, _schema_text(HighlightsReply))

    def _macros(self, task: str) -> Any:
        return _ENVIRONMENT.get_template(f"{task}.{self.language}.md.j2").module

    def analyze(
        self, item: AnalysisInput, files: Sequence[ContextFile], notes: Sequence[ChunkNote] = ()
    ) -> list[Message]:
        """Judge ``item``, reading the texts of ``files`` and, for a big commit, the summaries of its parts."""
        user = _render(
            self._analyze.user, item, _message(item), PullText.of(item.pull_request), list(files), list(notes)
        )
        return _messages(self._analyze_system, self._after_repository(item, user))

    def chunk(self, item: AnalysisInput, files: Sequence[ContextFile], part: int, parts: int) -> list[Message]:
        """Summarise part ``part`` (1-based) of ``parts`` of a big commit's diff."""
        user = _render(self._chunk.user, item, _message(item), PullText.of(item.pull_request), list(files), part, parts)
        return _messages(self._chunk_system, self._after_repository(item, user))

    def repository(self, repository: RepositoryContext | None) -> str:
        """What a commit's user message says of ``repository``, before the commit; empty without a context.

        The analyzer's cache key hashes this text (:meth:`LLMAnalyzer.fingerprint_for
        <repodaily.analyzers.llm.analyzer.LLMAnalyzer.fingerprint_for>`): what the
        prompt shows of a repository is exactly what keys its analyses.
        """
        return _render(self._analyze.repository_data, repository) if repository is not None else ""

    def _after_repository(self, item: AnalysisInput, commit: str) -> str:
        """A user message about ``item``: its repository's context first, where every commit of the day shares it."""
        return "\n\n".join(part for part in (self.repository(item.repository), commit) if part)

    def highlights(self, entries: Sequence[HighlightEntry]) -> list[Message]:
        """Write the day's key points over ``entries``."""
        return _messages(self._highlights_system, _render(self._highlights.user, list(entries)))

    def repair(self, errors: str) -> str:
        """The follow-up turn after a reply that failed validation."""
        return _render(self._shared.repair, errors)

    def brief(self) -> str:
        """Appended to the data when the previous reply was cut off."""
        return _render(self._shared.brief)


def _render(macro: Any, *args: Any) -> str:
    return str(macro(*args)).strip()


def _message(item: AnalysisInput) -> str:
    return f"{item.subject}\n\n{item.body}".strip() if item.body.strip() else item.subject


def _messages(system: str, user: str) -> list[Message]:
    return [{"role": "system", "content": system}, {"role": "user", "content": user}]
