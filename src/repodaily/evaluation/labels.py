"""The labelled set: commits judged by a person against the rubric.

A labels file is a JSON array of objects or JSON Lines (one object a line).
Each object names a commit by its SHA (full or a prefix of at least seven hex
digits) and the day it landed in the report timezone, and gives the rubric's
verdicts; an optional ``pull_request`` object (the fields of
:class:`~repodaily.models.PullRequest`: ``number``, ``title``, ``body``,
``labels``, ``linked_issues``, …) is what a context source would have found for
the commit, and the analyzer reads it. Keys the evaluation does not use (``reason``, ``summary_en``, …) are
allowed and ignored, so the same file can carry the annotator's notes.

A bad file is the user's to fix, so every problem is one line naming the file
and the entry, raised as :class:`~repodaily.errors.ConfigError`.
"""

from __future__ import annotations

import datetime
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from repodaily import json_input
from repodaily.errors import ConfigError
from repodaily.models import ChangeType, Importance, PullRequest
from repodaily.user_files import open_regular

__all__ = ["GoldLabel", "load_labels"]


class GoldLabel(BaseModel):
    """One person's verdict on one commit; what an analyzer is scored against."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    sha: str = Field(pattern=r"^[0-9a-fA-F]{7,40}$", description="Full SHA or a prefix of at least 7 hex digits.")
    date: datetime.date = Field(description="The day the commit landed, in the report timezone.")
    type: ChangeType
    importance: Importance
    security: bool
    breaking: bool
    user_facing: bool
    key_paths: list[str] = Field(default_factory=list, description="The files that matter most, most important first.")
    title: str = ""
    confidence: str | None = Field(default=None, description="How sure the annotator was, e.g. 'sure' or 'unsure'.")
    pull_request: PullRequest | None = Field(
        default=None, description="The pull request the commit came from, given to the analyzer as a report would."
    )

    @field_validator("sha")
    @classmethod
    def _lower_case(cls, value: str) -> str:
        return value.lower()


def _entries(path: Path, text: str) -> Iterator[tuple[str, Any]]:
    """Each raw entry with the words that locate it in the file: a JSON array, else JSON Lines."""
    if text.lstrip().startswith("["):
        try:
            data = json_input.loads(text)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}: not valid JSON: line {exc.lineno} column {exc.colno}: {exc.msg}") from None
        for index, entry in enumerate(data):
            yield f"entry {index}", entry
        return
    index = 0
    for line_number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        where = f"entry {index} (line {line_number})"
        try:
            yield where, json_input.loads(line)
        except json.JSONDecodeError as exc:
            raise ConfigError(f"{path}: {where}: not valid JSON: {exc.msg}") from None
        index += 1


def _describe(error: ValidationError) -> str:
    first = error.errors()[0]
    key = ".".join(str(part) for part in first["loc"])
    more = f" (and {error.error_count() - 1} more)" if error.error_count() > 1 else ""
    return f"{key + ': ' if key else ''}{first['msg']}{more}"


# Years of a busy repository's labels fit many times over; a device that never ends (/dev/zero) stops here.
_MAX_LABELS_BYTES = 64 * 1024 * 1024


def load_labels(path: Path) -> list[GoldLabel]:
    """Read and validate a labels file; any problem is a ConfigError naming the file and entry."""
    try:
        with open_regular(path) as handle:
            data = handle.read(_MAX_LABELS_BYTES + 1)
        if len(data) > _MAX_LABELS_BYTES:
            raise ConfigError(f"{path}: larger than {_MAX_LABELS_BYTES // (1024 * 1024)} MB: not a labels file")
        text = data.decode("utf-8")
    except FileNotFoundError:
        raise ConfigError(f"{path}: labels file not found") from None
    except OSError as exc:
        raise ConfigError(f"{path}: cannot read labels file: {exc.strerror or exc}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: cannot read labels file: {exc}") from None
    labels: list[GoldLabel] = []
    first_entry: dict[str, str] = {}
    for where, entry in _entries(path, text):
        if not isinstance(entry, dict):
            raise ConfigError(f"{path}: {where}: expected an object, found {type(entry).__name__}")
        try:
            label = GoldLabel.model_validate(entry)
        except ValidationError as exc:
            raise ConfigError(f"{path}: {where}: {_describe(exc)}") from None
        if label.sha in first_entry:
            raise ConfigError(f"{path}: {where}: sha {label.sha} is already labelled in {first_entry[label.sha]}")
        first_entry[label.sha] = where
        labels.append(label)
    if not labels:
        raise ConfigError(f"{path}: no labels in the file")
    return labels
