"""The ``[revision_pins]`` section of the rule table: files that pin the revision of code built from elsewhere.

A project that builds a third-party library from its source (fetched at build
time or vendored beside its own) often records the upstream revision in a file
of its own, named for the library (``LLAMA_CPP_VERSION``, ``MLX_C_VERSION``)
and holding nothing but the revision. Moving it moves what every installation
runs. The patterns are data, checked when the rules load.
"""

from __future__ import annotations

import re
from functools import cached_property

from pydantic import Field, ValidationInfo, field_validator

from repodaily.analyzers.heuristic.base import Strict, check_regex
from repodaily.models import ChangeType, Importance

__all__ = ["RevisionPinRules"]


class RevisionPinRules(Strict):
    """A pin file (``files``, matched against the whole file name, named group ``name``: the library) whose
    patch swaps one ``revision`` line for another: a ``type`` vote of ``weight``, at least ``min_importance``.

    Both patterns are matched case-sensitively: a pin file's name is written as
    the build reads it, and ``VERSION`` alone is the project's own version.
    """

    files: str = r"(?!)"
    revision: str = r"(?!)"
    type: ChangeType = ChangeType.build
    weight: float = Field(default=3.0, ge=0)
    min_importance: Importance = Importance.medium

    @field_validator("files", "revision")
    @classmethod
    def _check(cls, value: str, info: ValidationInfo) -> str:
        return check_regex(value, groups=("name",) if info.field_name == "files" else ())

    @cached_property
    def regexes(self) -> tuple[re.Pattern[str], re.Pattern[str]]:
        """The pin file's name and the revision, compiled case-sensitively."""
        return re.compile(self.files), re.compile(self.revision)
