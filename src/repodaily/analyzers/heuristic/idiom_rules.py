"""The ``[security_idioms]`` section of the rule table: shapes of code that harden a trust boundary.

A rule is a set of conditions that must all hold in one hunk of a patch (see
:mod:`~repodaily.analyzers.heuristic.idioms`, which applies them); it is data,
so a repository's conventions can add the idioms of its own language or
framework. Its regular expressions are checked when the rules load.
"""

from __future__ import annotations

import re
import string
from functools import cached_property
from typing import Literal

from pydantic import Field, field_validator, model_validator

from repodaily.analyzers.heuristic.base import Strict, check_regexes

__all__ = ["SecurityIdiom"]

#: The conditions whose matches a cite may quote; ``only`` and ``not_added`` constrain the whole hunk.
_QUOTED = ("added", "removed", "before", "after")
_PATTERNS = (*_QUOTED, "only", "not_added")


class SecurityIdiom(Strict):
    """One shape of a security change: lines a hunk adds, lines it removes, what it reads beside them.

    ``added`` patterns must each match a line the hunk adds, with text the hunk
    removes on no line, in a line the commit removes nowhere (a guard that
    moves or is reformatted is not new); ``removed`` patterns likewise a line
    the hunk removes. ``before`` and ``after`` patterns must each match the
    hunk as it reads before the commit (context and removed lines: the code
    being changed was there) or after it (context and added lines); one of the
    ``only`` patterns must match every line the hunk adds (a hunk that does
    nothing else); no ``not_added`` pattern may match a line it adds (nothing
    as dangerous put in place of what it removes). ``files`` says whose patches are read: the project's
    ``source`` (path classes without a type: not tests, docs, examples, CI or
    tooling), its ``build`` files (manifests and pins), its ``ci`` pipelines
    and its ``config`` (configuration and tooling: path classes of type chore),
    the last three for how a release is built and what it installs. ``cite`` is what
    the evidence quotes, each of ``{added}``, ``{removed}``, ``{before}`` and
    ``{after}`` standing for the text the first pattern of that condition
    matched, as code. Patterns are case-sensitive (code is); ``(?i)`` makes one
    ignore case. ``breaking`` marks a shape that refuses what used to be
    accepted until the user opts in or authenticates: whoever relied on it
    breaks (RUBRIC.md), though the break is inferred, not declared. ``hints``
    are lower-case substrings of which the commit's changed lines must hold one
    before any pattern runs: a substring test is far cheaper than a pattern
    scanning every line of a large commit in vain.
    """

    files: tuple[Literal["source", "build", "ci", "config"], ...] = Field(default=("source",), min_length=1)
    added: list[str] = Field(default_factory=list)
    removed: list[str] = Field(default_factory=list)
    before: list[str] = Field(default_factory=list)
    after: list[str] = Field(default_factory=list)
    only: list[str] = Field(default_factory=list)
    not_added: list[str] = Field(default_factory=list)
    cite: str
    breaking: bool = False
    hints: list[str] = Field(default_factory=list)

    @field_validator(*_PATTERNS)
    @classmethod
    def _check(cls, value: list[str]) -> list[str]:
        return check_regexes(value)

    @model_validator(mode="after")
    def _shape(self) -> SecurityIdiom:
        if not (self.added or self.removed):
            raise ValueError("a rule needs `added` or `removed` patterns: what the commit changes")
        for _, name, _, _ in string.Formatter().parse(self.cite):
            if name is not None and (name not in _QUOTED or not getattr(self, name)):
                raise ValueError(f"cite quotes {{{name}}}, which names no pattern list of this rule")
        return self

    @cached_property
    def regexes(self) -> dict[str, list[re.Pattern[str]]]:
        """Each condition's patterns, compiled case-sensitively and line by line."""
        return {name: [re.compile(p, re.MULTILINE) for p in getattr(self, name)] for name in _PATTERNS}

    @cached_property
    def first_scan(self) -> dict[str, list[re.Pattern[str]]]:
        """The ``added`` and ``removed`` patterns for a first scan of a whole commit, before its hunks.

        A leading ``\\b`` is left out: it only narrows where a match may start, so the
        scan finds at least what the pattern does, and without it the search can skip
        ahead to the word after it instead of trying every position.
        """
        return {
            name: [re.compile(p.removeprefix("\\b"), re.MULTILINE) for p in getattr(self, name)]
            for name in ("added", "removed")
        }
