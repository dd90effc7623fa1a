"""The analyzer protocol: one :class:`~repodaily.models.AnalysisInput` in, one :class:`~repodaily.models.Analysis` out.

An analyzer is made by the factory its plugin registers, called with keyword
arguments: ``settings`` (its own model, validated from the config table named
after it, ``[llm]`` for ``llm``), ``language`` (``zh`` or ``en``), ``conventions``
(the repository's conventions as the plugin's ``conventions`` reader returned
them, or None) and ``budget_tokens`` (diff tokens one prompt carries). An
analyzer never touches the store: the pipeline caches and records.

An analyzer that reads the repository's context (its description, primary
language and title tags: :class:`~repodaily.models.RepositoryContext`) says so
(:attr:`Analyzer.reads_repository`); the pipeline then builds it and every input
carries it, and the analyzer's analyses are keyed by
:meth:`Analyzer.fingerprint_for` that context. The others are never given one.

An input may also carry the pull request its commit came from
(:attr:`AnalysisInput.pull_request <repodaily.models.AnalysisInput.pull_request>`),
when a context source found one. What the built-in analyzers read of it differs
from nothing, so the cache key of a commit's analysis is
``fingerprint_for(repository) + pull_request_key(pull_request)``
(:meth:`Analyzer.analysis_key`, :func:`pull_request_key`): an analysis made
without the pull request is made again once it is known, and one made with it
again when what it says changes. An analysis' ``Provenance.analyzer`` is that key.

Analyzers that ask a remote model may also offer the batch form
(:class:`BatchAnalyzer`): the request for a commit built, and its reply parsed,
apart from sending it, so a provider's batch API or an offline ``run-batch`` can
carry the requests; and for a commit too big for one request, its two rounds
(:class:`MapReduceBatchAnalyzer`).
"""

from __future__ import annotations

import abc
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from repodaily.digests import digest
from repodaily.models import Analysis, AnalysisInput, Highlight, PullRequest, RepositoryContext, Usage
from repodaily.paths import PathTable

__all__ = ["Analyzer", "BatchAnalyzer", "BatchEndpoint", "MapReduceBatchAnalyzer", "pull_request_key"]


def pull_request_key(pull_request: PullRequest | None) -> str:
    """The cache key's suffix for a commit's pull request: empty without one, else ``/pr<hash>``.

    The hash covers what analyzers read of it (number, title, body, labels,
    linked issues), so an analysis is redone when the pull request becomes known
    or its text changes, and kept when only its metadata (merge time, author) does.
    """
    if pull_request is None:
        return ""
    read = pull_request.model_dump(include={"number", "title", "body", "labels", "linked_issues"}, mode="json")
    return f"/pr{digest({'pull_request': json.dumps(read, sort_keys=True, ensure_ascii=False)})}"


class Analyzer(abc.ABC):
    """One judgement per commit, against the rubric."""

    #: Registry name, e.g. ``"heuristic"``.
    name: str
    #: Whether :meth:`highlights` can write anything; the pipeline skips the step otherwise.
    writes_highlights: bool = False
    #: Whether the context stage gives this analyzer every readable patch whole instead of one prompt's budget.
    #: Rules that cost nothing per token (the heuristic) should not miss a late hunk or a changelog entry
    #: because a model's prompt would have had no room for it; the receipts then say ``full``.
    reads_whole_patch: bool = False
    #: Whether this analyzer reads :attr:`AnalysisInput.repository <repodaily.models.AnalysisInput.repository>`;
    #: the pipeline builds the context (and lists a tree for it) only for one that does.
    reads_repository: bool = False

    @property
    @abc.abstractmethod
    def fingerprint(self) -> str:
        """Identifies the analyzer *and* every setting that changes its output.

        It is part of the cache key: two analyzers with the same fingerprint must
        produce interchangeable analyses.
        """

    def fingerprint_for(self, repository: RepositoryContext | None) -> str:
        """The fingerprint of this analyzer's analyses of inputs carrying ``repository``: the cache key.

        :attr:`fingerprint`, for an analyzer that does not read the context. One
        that does returns a key that changes with what it reads of ``repository``,
        and with nothing else, so an edited description is judged again while a
        context it reads the same is served from the cache.
        """
        return self.fingerprint

    def analysis_key(self, repository: RepositoryContext | None, pull_request: PullRequest | None) -> str:
        """The cache key of an analysis of an input carrying ``repository`` and ``pull_request``.

        :meth:`fingerprint_for` the repository, then :func:`pull_request_key`; analyzers
        write it as their analyses' ``Provenance.analyzer``, under which the store keeps them.
        """
        return self.fingerprint_for(repository) + pull_request_key(pull_request)

    @property
    def prompt_version(self) -> str | None:
        """What identifies the prompts an analyzer sends (a content hash), for the report's footer; None without any."""
        return None

    @property
    def path_table(self) -> PathTable:
        """The path classes by which the context stage ranks this analyzer's files: the package's own.

        An analyzer that extends them (the heuristic, by a repository's conventions)
        returns its table here, and its fingerprint must change with it.
        """
        return PathTable.packaged()

    @property
    def context_parts(self) -> int:
        """How many prompts' worth of diff this analyzer reads of one commit: one, unless it map-reduces.

        The context stage plans a commit's diff in at most this many parts of one
        prompt each (:attr:`~repodaily.models.AnalysisInput.parts`), and an analyzer
        reads every part it is given, so the receipts say what was read.
        """
        return 1

    @abc.abstractmethod
    async def analyze(self, item: AnalysisInput) -> Analysis:
        """Judge one commit. Raise :class:`~repodaily.errors.AnalysisError` on failure.

        Make the result with :meth:`Analysis.of <repodaily.models.Analysis.of>`, which applies the rubric's depth rule.
        """

    async def highlights(self, day_items: list[tuple[str, str, Analysis]], usage: Usage) -> list[Highlight]:
        """The day's key points over (sha, subject, analysis) items; none unless an analyzer can write them.

        Adds what the work cost to ``usage``.
        """
        return []

    async def aclose(self) -> None:
        """Release connections; a no-op for analyzers that hold none."""


@dataclass(frozen=True)
class BatchEndpoint:
    """Where a batch analyzer's requests go: an OpenAI-compatible API up to ``/v1``, and who may send to it.

    The key stays in the environment (``api_key_env`` names it), read when a
    request is sent, so no file or log written for a batch ever holds it.
    """

    base_url: str
    api_key_env: str
    #: Extra request headers, left out of repr: one may carry a credential.
    headers: Mapping[str, str] = field(default_factory=dict, repr=False)


@runtime_checkable
class BatchAnalyzer(Protocol):
    """The batch form: what to send for one commit, and what a reply to it means, with no I/O."""

    @property
    def batch_endpoint(self) -> BatchEndpoint:
        """The endpoint the requests are built for (the primary one): where a batch of them is sent."""
        ...

    def batch_request(self, item: AnalysisInput) -> dict[str, Any] | None:
        """The request body that judges ``item`` in one call; None when it needs more (a map-reduce)."""
        ...

    def parse_reply(self, item: AnalysisInput, reply: dict[str, Any]) -> Analysis:
        """The analysis a reply body gives; :class:`~repodaily.errors.AnalysisError` when it is not valid."""
        ...


@runtime_checkable
class MapReduceBatchAnalyzer(BatchAnalyzer, Protocol):
    """The batch form of a commit no single request judges: its parts summarised in one round, judged in the next.

    The summaries travel between the rounds as JSON (``notes``), so they can be
    written to a file and read back by another process.
    """

    def batch_part_requests(self, item: AnalysisInput) -> list[dict[str, Any]]:
        """The first round's bodies, one per part of ``item``; empty when one request judges it."""
        ...

    def parse_part_reply(self, item: AnalysisInput, part: int, reply: dict[str, Any]) -> dict[str, Any]:
        """Part ``part`` (1-based)'s summary in ``reply``, as JSON; an AnalysisError when it is not valid."""
        ...

    def batch_final_request(self, item: AnalysisInput, notes: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """The second round's body: ``item`` judged from its parts' summaries."""
        ...

    def parse_final_reply(
        self, item: AnalysisInput, notes: Sequence[dict[str, Any]], reply: dict[str, Any]
    ) -> Analysis:
        """The analysis the reply to :meth:`batch_final_request` gives; an AnalysisError when it is not valid."""
        ...
