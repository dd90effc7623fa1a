"""The sentences the heuristic analyzer writes: one :class:`Messages` table per language.

The templates are checked when the rules load, so a misspelt placeholder is a
configuration error rather than a failure while a report is being written.
"""

from __future__ import annotations

import re
import string

from pydantic import Field, model_validator

from repodaily.analyzers.heuristic.base import Strict
from repodaily.models import SurfaceAction, SurfaceKind

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

#: The kinds and actions of :class:`SurfaceChange`: a surface table's keys are an action or ``kind.action``.
_SURFACE_KINDS = frozenset(kind.value for kind in SurfaceKind)
_SURFACE_ACTIONS = frozenset(action.value for action in SurfaceAction)


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
    reason_security_code: str
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
    reason_shipped_fix: str
    reason_narrow: str
    reason_core: str
    reason_cap: str
    reason_data_table: str
    reason_series_groundwork: str
    reason_silent_fragment: str
    reason_source: str
    reason_source_no_evidence: str
    reason_diff_names: str
    reason_diff_fix: str
    reason_diff_deletion: str
    reason_diff_edit: str
    reason_diff_rewrite: str
    reason_diff_reorder: str
    reason_changelog: str
    reason_release: str
    reason_major_release: str
    reason_sync_merge: str
    reason_maintenance_merge: str
    evidence_breaking_footer: str
    evidence_bang: str
    evidence_match: str
    evidence_label: str
    rec_breaking_names: str
    rec_breaking: str
    rec_security: str
    rec_major_dependency: str
    rec_default_change: str
    insight_security: str
    insight_security_code: str
    insight_breaking: str
    insight_dependency: str
    risk_breaking: str
    risk_dependency: str
    item_renamed: str
    item_changed: str
    item_instead: str
    item_replaced: str
    item_keep: str
    item_floor: str
    outline_changed: str
    outline_added: str
    outline_removed: str
    outline_tests: str
    path_labels: dict[str, str] = Field(default_factory=dict)
    #: What users call each kind of surface: "env var", "CLI option".
    surface_labels: dict[str, str] = Field(default_factory=dict)
    #: The part of the product each kind belongs to, for the impact scope; a kind without one names no area.
    surface_scopes: dict[str, str] = Field(default_factory=dict)
    #: By action (or ``kind.action``): what the summary says a group of changes does.
    surface_actions: dict[str, str] = Field(default_factory=dict)
    #: By action (or ``kind.action``, or ``replaced``): the advice a group calls for; others call for none.
    surface_advice: dict[str, str] = Field(default_factory=dict)
    #: By action (or ``kind.action``, or ``replaced``): what a group risks for users who do nothing.
    surface_risks: dict[str, str] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _known_placeholders(self) -> Messages:
        for key, value in self:
            templates = value if isinstance(value, dict) else {"": value}
            for sub, template in templates.items():
                _check_template(f"{key}.{sub}" if sub else key, template)
        for table in ("surface_actions", "surface_advice", "surface_risks"):
            for sub in getattr(self, table):
                _check_surface_key(f"{table}.{sub}", sub)
        for table in ("surface_labels", "surface_scopes"):
            for kind in getattr(self, table):
                if kind not in _SURFACE_KINDS:
                    raise ValueError(f"{table}.{kind}: not a kind of surface change")
        return self

    def surface(self, table: str, kind: str, action: str) -> str | None:
        """The template of ``table`` for ``kind``'s ``action``: the kind's own, else the action's; None if neither."""
        templates: dict[str, str] = getattr(self, table)
        return templates.get(f"{kind}.{action}", templates.get(action))

    def render(self, key: str, **values: object) -> str:
        """The message ``key`` with ``values``; a value a template quotes as code (`` `{path}` ``) stays one span."""
        template: str = getattr(self, key)
        quoted = set(_QUOTED_PLACEHOLDER.findall(template))
        template = _QUOTED_PLACEHOLDER.sub(r"{\1}", template)
        return template.format(**{name: code_span(str(v)) if name in quoted else v for name, v in values.items()})


def _check_template(key: str, template: str) -> None:
    try:
        fields = {name for _, name, _, _ in string.Formatter().parse(template) if name is not None}
    except ValueError as exc:
        raise ValueError(f"{key}: malformed template: {exc}") from None
    unknown = sorted(name for name in fields if name not in _PLACEHOLDERS)
    if unknown:
        raise ValueError(f"{key}: unknown placeholder(s) {', '.join(unknown)}")


def _check_surface_key(key: str, sub: str) -> None:
    """``action``, ``kind.action`` or ``replaced`` (a removal that names what replaces it)."""
    kind, _, action = sub.rpartition(".")
    if (kind and kind not in _SURFACE_KINDS) or action not in _SURFACE_ACTIONS | {"replaced"}:
        raise ValueError(f"{key}: not an action or kind.action of a surface change")


def code_span(text: str) -> str:
    """``text`` as one Markdown code span whatever backticks it holds: a fence longer than any run inside.

    A file may be named ``a`b.py``; wrapped in single backticks it would close
    early and show as something else.
    """
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"
