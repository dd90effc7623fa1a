"""What every section of the heuristic rule table shares.

A section is a strict, frozen model, so an unknown key is a configuration error
and a loaded rule never changes. Its regular expressions are checked when the
rules load (:func:`check_regex`), never halfway through a run; tag names are
read here the one way every section reads them. Globs are the package's one
dialect, :mod:`repodaily.paths`.
"""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict

__all__ = ["FLAGS", "Strict", "check_regex", "check_regexes", "normalise_tag"]

FLAGS = re.IGNORECASE | re.MULTILINE


class Strict(BaseModel):
    """A section of the rule table: unknown keys are errors, loaded rules never change."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def check_regex(pattern: str, *, groups: tuple[str, ...] = ()) -> str:
    """Check a regular expression when the rules load, so a typo is a config error."""
    try:
        compiled = re.compile(pattern, FLAGS)
    except re.error as exc:
        raise ValueError(f"invalid regular expression {pattern!r}: {exc}") from None
    missing = [name for name in groups if name not in compiled.groupindex]
    if missing:
        raise ValueError(f"regular expression {pattern!r} lacks the named group(s) {', '.join(missing)}")
    return pattern


def check_regexes(patterns: list[str], *, groups: tuple[str, ...] = ()) -> list[str]:
    return [check_regex(pattern, groups=groups) for pattern in patterns]


def normalise_tag(text: str) -> str:
    """``[Bug-Fix]``, ``[bug_fix]`` and ``[BUG FIX]`` are one tag: ``bug fix``."""
    return " ".join(text.lower().replace("-", " ").replace("_", " ").split())
