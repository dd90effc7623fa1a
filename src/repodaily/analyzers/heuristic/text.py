"""The judgement in the report's language: one-line summary, bullets, reason, recommendation, insights, risks.

Every sentence comes from the rule table's ``[messages.<language>]``
(:class:`~repodaily.analyzers.heuristic.sentences.Messages`); this module only
chooses which one and fills its placeholders.
"""

from __future__ import annotations

from repodaily.analyzers.heuristic.decide import Judgement
from repodaily.analyzers.heuristic.evidence import DependencyChange, Evidence
from repodaily.analyzers.heuristic.files import Files, ranked_files
from repodaily.analyzers.heuristic.prose import MAX_QUOTED, body_sentence, clip, first_sentence
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.sentences import Messages, code_span
from repodaily.analyzers.heuristic.title import Title
from repodaily.models import AnalysisInput, ChangeType, FileStatus, Insight, Recommendation

__all__ = ["Writer"]

_SENTENCE_ENDINGS = (".", "。", "!", "！", "?", "？", "…")


class Writer:
    """Puts a judgement into the sentences of one language."""

    def __init__(self, messages: Messages, rules: RuleSet) -> None:
        self.m = messages
        self.rules = rules

    def quote(self, text: str) -> str:
        return self.m.render("quote", text=text)

    def _sentence(self, text: str) -> str:
        """Close ``text`` with the language's full stop, unless it already ends in punctuation of its own."""
        text = text.rstrip()
        return text if not text or text.endswith(_SENTENCE_ENDINGS) else text + self.m.sentence_end

    def _names(self, names: list[str], limit: int = 3, more: str = "more_items") -> str:
        shown = self.m.list_sep.join(code_span(n) for n in names[:limit])
        if len(names) > limit:
            shown += " " + self.m.render(more, total=len(names), rest=len(names) - limit)
        return shown

    def _dependencies(self, changes: list[DependencyChange]) -> str:
        parts = [
            self.m.render("dependency_change", name=c.name, old=c.old, new=c.new)
            if c.old
            else self.m.render("dependency_new", name=c.name, new=c.new)
            for c in changes[:3]
        ]
        return self.m.list_sep.join(parts)

    def one_line(self, item: AnalysisInput, title: Title, facts: Files, scope: list[str]) -> str:
        shown = self.quote(title.shown or item.sha[:7])
        moved = [f for f in item.files if f.status in (FileStatus.renamed, FileStatus.copied)]
        if facts.pure_move and moved:
            first = moved[0]
            if len(moved) == 1:
                text = self.m.render("move_one", old=first.old_path or first.path, new=first.path)
            else:
                text = self.m.render("move_many", count=len(moved), old=first.old_path or first.path, new=first.path)
            others = len(item.files) - len(moved)
            return self._sentence(text + (self.m.render("move_refs", count=others) if others else ""))
        additions, deletions = _totals(item)
        if not item.files:
            return self._sentence(self.m.render("change_none", title=shown))
        key = "change_one" if len(item.files) == 1 else "change_many"
        text = self.m.render(
            key, title=shown, path=scope[0], count=len(item.files), additions=additions, deletions=deletions
        )
        return self._sentence(text)

    def summary(self, item: AnalysisInput, body: str, evidence: Evidence) -> list[str]:
        bullets = []
        groups = {
            "files_added": [FileStatus.added],
            "files_modified": [FileStatus.modified],
            "files_deleted": [FileStatus.deleted],
            "files_moved": [FileStatus.renamed, FileStatus.copied],
        }
        ranked = ranked_files(item.files)
        clauses = [
            self.m.render(key, paths=self._names([f.path for f in ranked if f.status in statuses], 2, "more_files"))
            for key, statuses in groups.items()
            if any(f.status in statuses for f in ranked)
        ]
        if clauses:
            additions, deletions = _totals(item)
            lines = self.m.render("lines", additions=additions, deletions=deletions)
            text = self.m.clause_sep.join(clauses) + lines
            bullets.append(self._sentence(text[:1].upper() + text[1:]))
        detail = self._detail(body, evidence)
        if detail:
            bullets.append(self._sentence(detail))
        return bullets

    def _detail(self, body: str, evidence: Evidence) -> str | None:
        if evidence.breaking_footer:
            return self.m.render("breaking_footer", text=evidence.breaking_footer)
        if evidence.removed_names:
            return self.m.render("removed_definitions", names=self._names(evidence.removed_names))
        if evidence.dependencies:
            return self.m.render("dependency_changes", changes=self._dependencies(evidence.dependencies))
        if evidence.changelog:
            return self.m.render("changelog_line", text=clip(first_sentence(evidence.changelog[0]), MAX_QUOTED))
        sentence = body_sentence(body)
        return self.m.render("body_line", text=sentence) if sentence else None

    def breaking_evidence(self, evidence: Evidence) -> str:
        """What breaks: the removed names when the diff shows them, else what said it breaks."""
        cite = evidence.signals.get("breaking", "")
        if evidence.removed_names:
            return self._names(evidence.removed_names)
        if cite == "bang":
            return self.m.evidence_bang
        if cite == "footer":
            return self.m.evidence_breaking_footer
        return self.m.render("evidence_match", match=cite)

    def reason(self, judgement: Judgement, evidence: Evidence) -> str:
        texts = []
        for key, params in judgement.reasons[:2]:
            values = dict(params)
            if "evidence" in values and isinstance(values["evidence"], list):
                values["evidence"] = self.m.list_sep.join(values["evidence"])
            if key == "reason_breaking":
                values["evidence"] = self.breaking_evidence(evidence)
            if "changes" in values:
                values["changes"] = self._dependencies([values["changes"]])
            if isinstance(values.get("names"), list):
                values["names"] = self._names(values["names"])
            if "label" in values:
                values["label"] = self.m.path_labels.get(values["label"], values["label"])
            if "quoted" in values:
                values["quoted"] = self.quote(values["quoted"])
            texts.append(self.m.render(key, **values))
        return self.m.clause_sep.join(texts)

    def recommendation(
        self, judgement: Judgement, evidence: Evidence, title: Title, scope: list[str]
    ) -> Recommendation:
        audiences = self.rules.audiences
        where = code_span(scope[0]) if scope else self.quote(title.shown)
        majors = [c for c in evidence.dependencies if c.major]
        if judgement.breaking and evidence.removed_names:
            pick = ("breaking", "rec_breaking_names", {"names": self._names(evidence.removed_names)})
        elif majors:
            # A raised framework floor breaks installations, and says what to upgrade.
            pick = ("major_dependency", "rec_major_dependency", {"changes": self._dependencies(majors)})
        elif judgement.breaking:
            pick = ("breaking", "rec_breaking", {"quoted": self.quote(title.shown)})
        elif judgement.security:
            pick = ("security", "rec_security", {})
        elif any(key == "reason_default_change" for key, _ in judgement.reasons):
            pick = ("default_change", "rec_default_change", {})
        elif judgement.type == ChangeType.revert:
            pick = ("revert", "rec_revert", {"quoted": self.quote(judgement.reverted or title.shown)})
        elif judgement.type in (ChangeType.feat, ChangeType.fix, ChangeType.perf, ChangeType.build):
            key = judgement.type.value
            pick = (key, f"rec_{key}", {"quoted": self.quote(title.shown), "scope": where})
        else:
            pick = ("other", "rec_other", {"scope": where})
        audience_key, message_key, values = pick
        return Recommendation(
            audience=getattr(audiences, audience_key), text=self._sentence(self.m.render(message_key, **values))
        )

    def insights_and_risks(self, judgement: Judgement, evidence: Evidence) -> tuple[list[Insight], list[str]]:
        insights: list[Insight] = []
        risks: list[str] = []
        if judgement.security:
            text = self.m.render("insight_security", match=evidence.signals["security"])
            insights.append(Insight(aspect="security", text=self._sentence(text)))
        if judgement.breaking:
            text = self.m.render("insight_breaking", evidence=self.breaking_evidence(evidence))
            insights.append(Insight(aspect="compatibility", text=self._sentence(text)))
            risks.append(self._sentence(self.m.risk_breaking))
        majors = [c for c in evidence.dependencies if c.major]
        if majors:
            text = self.m.render("insight_dependency", changes=self._dependencies(majors))
            insights.append(Insight(aspect="compatibility", text=self._sentence(text)))
            risks.append(self._sentence(self.m.risk_dependency))
        return insights, risks


def _totals(item: AnalysisInput) -> tuple[int, int]:
    """The commit's line counts: the input's totals, or the files' sums when the totals are missing."""
    if item.total_additions or item.total_deletions or not item.files:
        return item.total_additions, item.total_deletions
    return sum(f.additions for f in item.files), sum(f.deletions for f in item.files)
