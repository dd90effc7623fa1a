"""The sentences the heuristic analyzer writes: one :class:`Messages` table per language.

The templates are checked when the rules load, so a misspelt placeholder is a
configuration error rather than a failure while a report is being written.
"""

from __future__ import annotations

import re
import string

from pydantic import Field, model_validator

from repodaily.analyzers.heuristic.base import Strict

# A placeholder a template quotes as code, and the backtick runs a code span must outgrow.
_QUOTED_PLACEHOLDER = re.compile(r"`\{(\w+)\}`")
_BACKTICKS = re.compile(r"`+")

__all__ = ["Messages"]


# Every placeholder a message template may use; anything else is a typo.
_PLACEHOLDERS = frozenset(
    [
        "text",
        "title",
        "path",
        "count",
        "additions",
        "deletions",
        "old",
        "new",
        "paths",
        "total",
        "rest",
        "names",
        "changes",
        "name",
        "match",
        "evidence",
        "quoted",
        "area",
        "label",
        "scope",
    ]
)


class Messages(Strict):
    """The sentences of one language; the analyzer fills their placeholders."""

    sentence_end: str
    list_sep: str
    clause_sep: str
    quote: str
    more_files: str
    more_items: str
    change_none: str
    change_one: str
    change_many: str
    move_one: str
    move_many: str
    move_refs: str
    files_added: str
    files_modified: str
    files_deleted: str
    files_moved: str
    lines: str
    removed_definitions: str
    dependency_changes: str
    dependency_change: str
    dependency_new: str
    breaking_footer: str
    changelog_line: str
    body_line: str
    reason_security: str
    reason_security_docs: str
    reason_breaking: str
    reason_major_dependency: str
    reason_dependency: str
    reason_default_change: str
    reason_surface: str
    reason_severe: str
    reason_measured: str
    reason_revert: str
    reason_revert_unknown: str
    reason_moves: str
    reason_only_class: str
    reason_narrow: str
    reason_core: str
    reason_cap: str
    reason_source: str
    reason_source_no_evidence: str
    reason_diff_names: str
    reason_diff_fix: str
    reason_diff_deletion: str
    reason_diff_edit: str
    reason_changelog: str
    reason_release: str
    reason_sync_merge: str
    evidence_breaking_footer: str
    evidence_bang: str
    evidence_match: str
    rec_breaking_names: str
    rec_breaking: str
    rec_security: str
    rec_major_dependency: str
    rec_default_change: str
    rec_revert: str
    rec_feat: str
    rec_fix: str
    rec_perf: str
    rec_build: str
    rec_other: str
    insight_security: str
    insight_breaking: str
    insight_dependency: str
    risk_breaking: str
    risk_dependency: str
    path_labels: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_placeholders(self) -> Messages:
        for key, template in self:
            if not isinstance(template, str):
                continue
            try:
                fields = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
            except ValueError as exc:
                raise ValueError(f"{key}: malformed template: {exc}") from None
            unknown = sorted(name for name in fields if name not in _PLACEHOLDERS)
            if unknown:
                raise ValueError(f"{key}: unknown placeholder(s) {', '.join(unknown)}")
        return self

    def render(self, key: str, **values: object) -> str:
        """The message ``key`` with ``values``; a value a template quotes as code (`` `{path}` ``) stays one span."""
        template: str = getattr(self, key)
        quoted = set(_QUOTED_PLACEHOLDER.findall(template))
        template = _QUOTED_PLACEHOLDER.sub(r"{\1}", template)
        return template.format(**{name: code_span(str(v)) if name in quoted else v for name, v in values.items()})


def code_span(text: str) -> str:
    """``text`` as one Markdown code span whatever backticks it holds: a fence longer than any run inside.

    A file may be named ``a`b.py``; wrapped in single backticks it would close
    early and show as something else.
    """
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
