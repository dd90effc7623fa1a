"""A step of a numbered series that lands new modules nothing reaches yet.

"[KV offload][1/N] Introduce an offloading component", "[KV offload][3/N] Add
worker-side CPU support", "[Kernel][Helion][1/N] Add Helion ConfigManager": a long
feature often lands its building blocks first, each new module with its tests, and
wires them in a later step. A step that adds source files and changes no file that
existed (tests, CI and docs aside) leaves every path through the released code as it
was: whatever its verb adds, users cannot reach it yet. The rubric's internal change,
of low importance; the step that wires the modules in is the one users notice.
"""

from __future__ import annotations

from repodaily.analyzers.heuristic.evidence import Evidence
from repodaily.analyzers.heuristic.files import Files
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.sentences import code_span
from repodaily.models import ChangeType, FileStatus, SeriesRef

__all__ = ["read_series_groundwork"]

#: Files beside the new modules that change nothing the release runs.
_BESIDE = (ChangeType.test, ChangeType.ci, ChangeType.docs)


def read_series_groundwork(evidence: Evidence, series: SeriesRef | None, facts: Files, rules: RuleSet) -> None:
    """Vote for the rule's type and cap the importance when a series step only adds new source modules.

    Any other file it adds or changes (a build manifest, a configuration table, an
    existing module) may be what wires the new code in, or is itself what users get.
    """
    rule = rules.diff.series_groundwork
    if rule is None or series is None or _last(series):
        return
    added = None
    for i in facts.counted:
        kind = rules.path_rules(facts.classes[i]).type
        if kind in _BESIDE:
            continue
        if kind is not None or facts.files[i].status != FileStatus.added:
            return
        added = added or facts.files[i].path
    if added is None:
        return
    cite = code_span(added)
    evidence.vote(rule.type, rule.weight, cite)
    evidence.caps.append((rule.max_importance, cite))
    evidence.cap_reasons[cite] = "reason_series_groundwork"
    evidence.fired.add("diff.series_groundwork")


def _last(series: SeriesRef) -> bool:
    """The series' last step (`[2/2]`, `[last/N]`): the one that wires its modules in, whatever files it adds."""
    return series.part == "last" or series.part == series.total
