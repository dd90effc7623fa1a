"""What an extractor finds, and how it says which files it reads: the contract every extractor module shares.

Extractors live in several modules (:mod:`.extractors` for the small ones,
:mod:`.headers` for C and C++ headers); they share these two types, kept apart
so that a module of extractors needs nothing of another.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

from repodaily.analyzers.heuristic.surface.sides import Side
from repodaily.models import SurfaceKind

__all__ = ["Extractor", "Found"]


@dataclass(frozen=True)
class Found:
    kind: SurfaceKind
    name: str
    value: str | None = None
    replacement: str | None = None
    #: The line a deprecation notice is read from: the notice itself, whatever name its neighbours give it.
    notice: str | None = None


@dataclass(frozen=True)
class Extractor:
    """An extractor, and whether a file (its path, its whole patch) may hold anything it reads.

    ``wanted`` asks of the file what the extractor's own first test asks of one
    side of a hunk; a side's text is the patch's lines less their first
    character, so a word no line of the patch holds is on no side either, and a
    file no extractor wants is not cut into sides at all.
    """

    read: Callable[[Side], Iterator[Found]]
    wanted: Callable[[str, str], bool]
