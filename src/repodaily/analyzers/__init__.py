"""Analyzers turn one :class:`~repodaily.models.AnalysisInput` into one :class:`~repodaily.models.Analysis`.

Built-in analyzers register through :func:`register_analyzer`, the same door a
third-party package uses (directly, or via the ``repodaily.analyzers`` entry-point
group). An analyzer never touches the store: the pipeline caches and records.
"""

from __future__ import annotations

import abc
from collections.abc import Callable
from importlib.metadata import entry_points

from repodaily.errors import ConfigError
from repodaily.models import Analysis, AnalysisInput, Highlight, Usage
from repodaily.paths import PathTable

__all__ = ["Analyzer", "AnalyzerFactory", "available_analyzers", "create_analyzer", "register_analyzer"]


class Analyzer(abc.ABC):
    """One judgement per commit, against the rubric."""

    #: Registry name, e.g. ``"heuristic"``.
    name: str
    #: Version of the prompt an analyzer sends, for the report's footer; None without one.
    prompt_version: str | None = None
    #: Whether :meth:`highlights` can write anything; the pipeline skips the step otherwise.
    writes_highlights: bool = False

    @property
    @abc.abstractmethod
    def fingerprint(self) -> str:
        """Identifies the analyzer *and* every setting that changes its output.

        It is part of the cache key: two analyzers with the same fingerprint must
        produce interchangeable analyses.
        """

    @property
    def path_table(self) -> PathTable:
        """The path classes by which the context stage ranks this analyzer's files: the package's own.

        An analyzer that extends them (the heuristic, by a repository's conventions)
        returns its table here, and its fingerprint must change with it.
        """
        return PathTable.packaged()

    def context_budget(self, per_prompt_tokens: int) -> int:
        """Diff tokens of one commit this analyzer can use when one prompt carries ``per_prompt_tokens``.

        The context stage reads each commit up to this budget. An analyzer that
        spreads a big commit over several calls (map-reduce) can use more.
        """
        return per_prompt_tokens

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


AnalyzerFactory = Callable[..., Analyzer]
_REGISTRY: dict[str, AnalyzerFactory] = {}


def register_analyzer(name: str) -> Callable[[AnalyzerFactory], AnalyzerFactory]:
    """Class or factory decorator: make an analyzer available under ``name``."""

    def decorator(factory: AnalyzerFactory) -> AnalyzerFactory:
        _REGISTRY[name] = factory
        return factory

    return decorator


def _load_builtins_and_plugins() -> None:
    from repodaily.analyzers import heuristic, llm  # noqa: F401  (they register themselves)

    for entry in entry_points(group="repodaily.analyzers"):
        entry.load()


def available_analyzers() -> list[str]:
    _load_builtins_and_plugins()
    return sorted(_REGISTRY)


def create_analyzer(name: str, **settings: object) -> Analyzer:
    """Build the analyzer registered as ``name`` with its settings."""
    _load_builtins_and_plugins()
    try:
        factory = _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none"
        raise ConfigError(f"unknown analyzer {name!r} (available: {known})") from None
    return factory(**settings)
