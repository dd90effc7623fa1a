"""The offline analyzer: judges a commit against the rubric without a model.

It is the embedded default when no LLM is configured and the per-commit
fallback when one fails, so it reads nothing but the :class:`AnalysisInput`,
does pure CPU work and has no failure mode of its own. What it knows lives in
``rules.toml`` (:class:`~repodaily.analyzers.heuristic.rules.RuleSet`); this
package gathers evidence generically (title tags, Conventional Commits, title
patterns, the labels and body of the pull request a commit came from, path
classes, dependency versions, removed definitions, changelog entries, the patch
itself), weighs it, and writes the judgement in the report's
language from that table's sentences.

One module a step, each importing only the ones before it: ``base``,
``message_rules``, ``diff_rules``, ``idiom_rules``, ``revision_rules``, ``sentences`` and ``rules``
model the table, ``conventions`` extends it per repository; ``prose``, ``title``, ``evidence``,
``pull``, ``files``, ``patch``, ``revisions``, ``surface``, ``idioms``, ``changelog`` and ``groundwork`` read a
commit; ``decide`` judges it and ``text`` writes the judgement. ``source`` hashes all of it for the fingerprint.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from repodaily.analyzers.base import Analyzer
from repodaily.analyzers.heuristic.changelog import read_changelog, read_gathered_fragments, read_release_notes
from repodaily.analyzers.heuristic.conventions import available_conventions, load_conventions
from repodaily.analyzers.heuristic.decide import is_release, judge
from repodaily.analyzers.heuristic.evidence import Evidence, read_message
from repodaily.analyzers.heuristic.files import Files, documents_behaviour, impact_scope, read_files
from repodaily.analyzers.heuristic.groundwork import read_series_groundwork
from repodaily.analyzers.heuristic.idioms import weigh_idioms
from repodaily.analyzers.heuristic.patch import read_diff, read_patch_fallback, without_unused_env
from repodaily.analyzers.heuristic.pull import read_pull_request
from repodaily.analyzers.heuristic.revisions import read_revision_pins
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.sentences import code_span
from repodaily.analyzers.heuristic.source import source_digest
from repodaily.analyzers.heuristic.surface import read_surface
from repodaily.analyzers.heuristic.surface.weigh import keeps_working, weigh_surface
from repodaily.analyzers.heuristic.tests_title import read_tests_title
from repodaily.analyzers.heuristic.text import Writer
from repodaily.analyzers.heuristic.title import Title, effective_message, parse_title
from repodaily.errors import ConfigError
from repodaily.models import DEPTH, Analysis, AnalysisInput, ChangeType, Flags, Provenance, SurfaceChange, Verdict
from repodaily.paths import PathTable

__all__ = ["HeuristicAnalyzer", "Reading", "RuleSet", "available_conventions", "load_conventions"]


class HeuristicAnalyzer(Analyzer):
    """Rules over title tags, Conventional Commits, paths, keywords and versions; no model, no network."""

    name = "heuristic"
    #: Rules cost nothing per token: a late hunk or a changelog entry counts as much as the first one.
    reads_whole_patch = True

    def __init__(
        self,
        *,
        language: str = "zh",
        rules: RuleSet | None = None,
        conventions: Mapping[str, Any] | None = None,
        **_ignored: object,
    ) -> None:
        """Judge in ``language`` by the packaged rules, extended by a repository's ``conventions``.

        ``conventions`` is a rule-table extension (see :func:`load_conventions`);
        ``rules``, a complete rule set, takes the place of both.
        """
        self.rules = rules or RuleSet.load(conventions, source="repository conventions")
        if language not in self.rules.messages:
            known = ", ".join(sorted(self.rules.messages))
            raise ConfigError(f"heuristic analyzer: no messages for language {language!r} (available: {known})")
        self.language = language
        self._writer = Writer(self.rules.messages[language], self.rules)

    @property
    def fingerprint(self) -> str:
        """``heuristic/<code hash>-<rules hash>/<language>``: the package's code and tables, the merged rules.

        Both parts are content hashes (:func:`source_digest`, :attr:`RuleSet.fingerprint`),
        so no version needs bumping by hand when a rule changes.
        """
        return f"heuristic/{source_digest()}-{self.rules.fingerprint}/{self.language}"

    @property
    def path_table(self) -> PathTable:
        """The package's path classes extended by the repository's conventions; the fingerprint covers them."""
        return self.rules.path_table

    async def analyze(self, item: AnalysisInput) -> Analysis:
        return self.analyze_sync(item)

    def read(self, item: AnalysisInput) -> Reading:
        """Everything the rules find in one commit, before any judgement.

        :meth:`analyze_sync` judges from it; measuring how often each rule fires
        over a history (``bench/rule_rates.py``) reads its ``evidence.fired``.
        """
        message = effective_message(item, self.rules)
        title = parse_title(message.title, self.rules, bare=message.sync_merge)
        facts = read_files(item.files, self.rules)
        surface = without_unused_env(read_surface(facts, self.rules), title, self.rules)
        quote = self._writer.m.quote
        # A branch-sync merge's title and body say nothing about what it brings: only its content counts.
        evidence = (
            Evidence(sync_merge=True) if message.sync_merge else read_message(title, message.body, self.rules, quote)
        )
        if message.maintenance:
            # A maintained release line takes fixes for released versions: what it brings is a fix unless its
            # content names another type.
            evidence.fallback[self.rules.merges.maintenance_type] = 1.0
            evidence.fallback_reasons[self.rules.merges.maintenance_type] = ("reason_maintenance_merge", {})
            evidence.fired.add("merges.maintenance")
        if item.pull_request is not None and not message.sync_merge:
            read_pull_request(evidence, item.pull_request, self.rules, self._writer.m)
        if facts.platform_file is not None:
            # Every source file is one platform's own: the change is confined to it, whatever the title names.
            evidence.signal("narrow", code_span(facts.platform_file.rpartition("/")[2]))
            evidence.fired.add("platform_paths")
        elif facts.model_file is not None:
            # Every source file is one model's implementation: only that model's users meet the change.
            evidence.signal("narrow", code_span(facts.model_file.rpartition("/")[2]))
            evidence.fired.add("model_paths")
        weigh_surface(evidence, surface, self.rules, title, facts)
        weigh_idioms(evidence, facts, self.rules)
        read_diff(evidence, title, facts, self.rules, surface)
        read_revision_pins(evidence, facts, self.rules)
        read_gathered_fragments(evidence, facts, self.rules, quote)
        read_release_notes(evidence, facts, self.rules, title.subject, quote)
        if not is_release(evidence, facts, self.rules):
            # A release's changelog entries are a roll-up of commits already reported.
            declared_break = "breaking" in evidence.signals
            read_changelog(evidence, facts, self.rules, quote)
            if not declared_break:
                # A break only the changelog names yields, as a title's does, to a diff that still declares
                # what it deprecates.
                keeps_working(evidence, surface, self.rules)
        read_tests_title(evidence, title, facts, self.rules, quote)
        read_series_groundwork(evidence, message.title.series, facts, self.rules)
        if evidence.votes.keys() == {ChangeType.refactor} and documents_behaviour(facts, self.rules):
            # A restructuring that rewrites a page users read changed behaviour: the patch decides instead.
            read_patch_fallback(evidence, facts, self.rules)
            if evidence.fallback:
                del evidence.votes[ChangeType.refactor]
        if not evidence.votes:
            read_patch_fallback(evidence, facts, self.rules)
        evidence.fired.update(f"paths.{name}" for name in set(facts.classes))
        return Reading(message.body, title, facts, surface, evidence)

    def analyze_sync(self, item: AnalysisInput) -> Analysis:
        """Judge one commit; pure CPU work on the input alone.

        Only the deep fields the importance shows (:data:`~repodaily.models.DEPTH`) are
        written: a low commit's summary would be dropped by :meth:`Analysis.of` anyway.
        """
        writer = self._writer
        reading = self.read(item)
        title, facts, evidence, surface = reading.title, reading.facts, reading.evidence, reading.surface
        judgement = judge(title, evidence, facts, self.rules, writer.m.quote)
        scope = impact_scope(item.files, moves_first=facts.pure_move)
        shown = DEPTH[judgement.importance]
        deep = "insights" in shown or "risks" in shown
        insights, risks = writer.insights_and_risks(judgement, evidence, surface) if deep else ([], [])
        verdict = Verdict(
            type=judgement.type,
            secondary_types=judgement.secondary,
            importance=judgement.importance,
            importance_reason=writer.reason(judgement, evidence, surface),
            flags=Flags(security=judgement.security, breaking=judgement.breaking, user_facing=judgement.user_facing),
            summary=writer.summary(item, reading.body, title, evidence, surface) if "summary" in shown else [],
            one_line=writer.one_line(item, title, facts, scope),
            impact_scope=writer.impact_scope(surface, scope) if "impact_scope" in shown else [],
            insights=insights,
            risks=risks,
            recommendations=writer.recommendations(judgement, evidence, surface) if "recommendations" in shown else [],
        )
        provenance = Provenance(coverage=item.receipt, analyzer=self.analysis_key(item.repository, item.pull_request))
        return Analysis.of(verdict, provenance, surface)


@dataclass(frozen=True)
class Reading:
    """What the rules read of one commit: its body, parsed title, files, surface changes and evidence."""

    body: str
    title: Title
    facts: Files
    surface: list[SurfaceChange]
    evidence: Evidence
