"""The judgement in the report's language: one-line summary, bullets, reason, recommendations, insights, risks.

Every sentence comes from the rule table's ``[messages.<language>]``
(:class:`~repodaily.analyzers.heuristic.sentences.Messages`); this module only
chooses which one and fills its placeholders.

The texts say what changed, most telling first: the user-visible surface the
diff changes (grouped by kind and action, a few names and a count of the rest),
what the message, changelog, removed definitions and versions add, and else the
definitions the diff touches (:mod:`.outline`); a file list only when nothing
else is known. Advice and risks come from the surface and the judgement's
overrides, each only where there is something specific to do or to fear, so a
commit may have none: never a sentence that restates its title.
"""

from __future__ import annotations

from collections import Counter

from repodaily.analyzers.heuristic.decide import Judgement
from repodaily.analyzers.heuristic.evidence import DependencyChange, Evidence
from repodaily.analyzers.heuristic.files import Files, ranked_files
from repodaily.analyzers.heuristic.outline import added_names, read_outline
from repodaily.analyzers.heuristic.prose import MAX_QUOTED, body_sentence, clip, first_sentence, says_more
from repodaily.analyzers.heuristic.rules import Audience, RuleSet
from repodaily.analyzers.heuristic.sentences import Messages, code_span
from repodaily.analyzers.heuristic.title import Title
from repodaily.models import (
    AnalysisInput,
    FileCategory,
    FileStatus,
    Insight,
    Recommendation,
    SurfaceAction,
    SurfaceChange,
    SurfaceKind,
)

__all__ = ["Writer"]

_SENTENCE_ENDINGS = (".", "。", "!", "！", "?", "？", "…")
#: A summary's bullets, clauses of its surface sentence, names an outline clause shows, pieces of advice, risks.
_MAX_BULLETS = 4
_MAX_CLAUSES = 4
_OUTLINE_NAMES = 4
_OUTLINE_FILES = 6
_MAX_ADVICE = 3
_MAX_RISKS = 3
#: The impact scope's length: areas of the surface, then files; at least one file however many areas.
_MAX_SCOPE = 5
#: What the summary tells first: what stops working, then what changes meaning, then what is new.
_ACTION_ORDER = [
    SurfaceAction.removed,
    SurfaceAction.renamed,
    SurfaceAction.now_raises,
    SurfaceAction.default_changed,
    SurfaceAction.deprecated,
    SurfaceAction.raised_floor,
    SurfaceAction.added,
]
#: Kinds read from any module that looks public (a model's own config class): their removals and renames
#: call for advice and carry risks only when the judgement says the commit breaks users.
_ONLY_WHEN_BREAKING = (SurfaceKind.public_api, SurfaceKind.config_key)
#: Kinds read from deprecation warnings rather than from declarations.
_DEPRECATION_KINDS = (SurfaceKind.deprecation, SurfaceKind.removal)
#: Kinds read from manifests: only those of what users install count.
_MANIFEST_KINDS = (SurfaceKind.dependency_floor, SurfaceKind.dependency, SurfaceKind.default_feature)
#: Actions that stop existing usage working.
_BREAKING = (SurfaceAction.removed, SurfaceAction.renamed, SurfaceAction.now_raises)
#: Actions that change what existing usage gets: what breaks, and defaults and floors that move under it.
_INCOMPATIBLE = (*_BREAKING, SurfaceAction.default_changed, SurfaceAction.raised_floor)


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
        return self._list([code_span(n) for n in names], limit, more)

    def _list(self, items: list[str], limit: int = 3, more: str = "more_items") -> str:
        """The first ``limit`` items, and how many more there are."""
        shown = self.m.list_sep.join(items[:limit])
        if len(items) > limit:
            shown += " " + self.m.render(more, total=len(items), rest=len(items) - limit)
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

    def summary(
        self, item: AnalysisInput, body: str, title: Title, evidence: Evidence, surface: list[SurfaceChange]
    ) -> list[str]:
        """What changed: the surface, then what the message and changelog add, then the definitions touched.

        A file list only when nothing better is known: the impact scope names the files.
        """
        shown = self._relevant(surface)
        bullets = [self._surface_sentence(shown)] if shown else []
        bullets += self._details(body, title.shown, evidence, shown)
        # New public definitions say little of what a change does to existing code; its definitions touched do.
        if all(change.kind == SurfaceKind.public_api for change in shown):
            bullets.append(self._outline(item, {change.name for change in shown}))
        bullets = [self._sentence(_capitalised(text)) for text in bullets if text]
        return bullets[:_MAX_BULLETS] or [self._file_list(item)]

    def _file_list(self, item: AnalysisInput) -> str:
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
        additions, deletions = _totals(item)
        lines = self.m.render("lines", additions=additions, deletions=deletions)
        return self._sentence(_capitalised(self.m.clause_sep.join(clauses) + lines))

    def _details(self, body: str, title: str, evidence: Evidence, surface: list[SurfaceChange]) -> list[str]:
        """What the message, the changelog and the patch's removed definitions and versions add to the surface."""
        named = {c.name for c in surface} | {c.old for c in surface if c.old}
        details = []
        if evidence.breaking_footer:
            details.append(self.m.render("breaking_footer", text=evidence.breaking_footer))
        sentence = body_sentence(body)
        if sentence and says_more(sentence, title):
            details.append(self.m.render("body_line", text=sentence))
        entries = [clip(first_sentence(e), MAX_QUOTED) for e in evidence.changelog]
        details += [self.m.render("changelog_line", text=e) for e in entries[:2] if says_more(e, title)]
        removed = [name for name in evidence.removed_names if name not in named]
        if removed:
            details.append(self.m.render("removed_definitions", names=self._names(removed)))
        dependencies = [c for c in evidence.dependencies if c.name not in named]
        if dependencies:
            details.append(self.m.render("dependency_changes", changes=self._dependencies(dependencies)))
        return details

    def _outline(self, item: AnalysisInput, named: set[str]) -> str:
        """The definitions the source patches touch and the tests the commit adds, but what is already ``named``."""
        # The few names shown come from the most telling files: reading every file of a large commit adds none.
        source = [f.text for f in ranked_files(item.files) if f.category == FileCategory.source][:_OUTLINE_FILES]
        # Test functions name the behaviour they check; their classes, fixtures and helpers say less.
        added = added_names([f.text for f in item.files if f.category == FileCategory.test])
        tests = [name for name in added if name.lower().startswith("test_")]
        outline = read_outline(source)
        lists = {
            "outline_changed": outline.changed,
            "outline_added": outline.added,
            "outline_removed": outline.removed,
            "outline_tests": tests,
        }
        # A member of a definition already named (`Model.forward` beside `Model`) is part of it.
        fresh = {
            key: [n for n in names if n not in named and n.split(".")[0] not in named] for key, names in lists.items()
        }
        parts = [self.m.render(key, names=self._names(names, _OUTLINE_NAMES)) for key, names in fresh.items() if names]
        return self.m.clause_sep.join(parts)

    # -- the surface

    def _relevant(self, surface: list[SurfaceChange]) -> list[SurfaceChange]:
        """The changes users meet, each told once.

        A dependency a test's or an example's requirements raise or drop is none;
        a deprecation warning added or removed for a name the commit removes as an
        option, a variable or any other kind says less than that removal, and a
        public definition that is a platform or a registered model is that.
        """
        released = self.rules.dependencies.released
        gone = {c.name for c in surface if c.change == SurfaceAction.removed and c.kind not in _DEPRECATION_KINDS}
        specific = {c.name for c in surface if c.kind != SurfaceKind.public_api}
        return [
            c
            for c in surface
            if (c.kind not in _MANIFEST_KINDS or released(c.path))
            and not (c.kind in _DEPRECATION_KINDS and c.name in gone)
            and not (c.kind == SurfaceKind.public_api and c.name in specific)
        ]

    def _surface_sentence(self, surface: list[SurfaceChange]) -> str:
        """One clause per kind and action, the most consequential first; public definitions only beside few others."""
        groups = _groups(surface)
        others = [g for g in groups if g[0] != SurfaceKind.public_api]
        if len(others) >= _MAX_CLAUSES - 1:
            groups = others
        clauses = []
        for kind, action, changes in groups[:_MAX_CLAUSES]:
            template = self.m.surface("surface_actions", kind, action)
            if template is not None:
                items = [self._item(c, advice=False) for c in changes]
                clauses.append(template.format(label=self.m.surface_labels.get(kind, kind), names=self._list(items)))
        return self.m.clause_sep.join(clauses)

    def _item(self, change: SurfaceChange, *, advice: bool) -> str:
        """A change as a list item: its name, or both sides of what changed (for advice: what to do about it)."""
        m = self.m
        if change.change == SurfaceAction.renamed and change.old and change.new:
            return m.render("item_renamed", old=change.old, new=change.new)
        if change.replacement:
            # Advice on a removal says what to replace it with; on a deprecation, what to use instead.
            key = "item_replaced" if advice and change.change == SurfaceAction.removed else "item_instead"
            return m.render(key, old=change.name, new=change.replacement)
        if change.change == SurfaceAction.default_changed and change.old and change.new:
            if advice:
                return m.render("item_keep", name=change.name, old=change.old)
            return m.render("item_changed", name=change.name, old=change.old, new=change.new)
        if change.change == SurfaceAction.raised_floor and change.old and change.new:
            if advice:
                return m.render("item_floor", name=change.name, new=code_span(change.new))
            return m.render("item_changed", name=change.name, old=change.old, new=change.new)
        return code_span(change.name)

    def _surface_texts(
        self, table: str, surface: list[SurfaceChange], *, breaking: bool
    ) -> list[tuple[SurfaceKind, SurfaceAction, str]]:
        """Per group with a template in ``table`` (advice or risks): its kind, its action and its text.

        A removal that names its replacement is looked up as ``replaced`` first.
        Definitions and fields of modules that only look public (a model's own
        config class) count only when the judgement says the commit breaks users.
        """
        texts = []
        for kind, action, changes in _groups(surface, split_replaced=True):
            if kind in _ONLY_WHEN_BREAKING and action in _BREAKING and not breaking:
                continue
            key = "replaced" if action == SurfaceAction.removed and changes[0].replacement else action
            template = self.m.surface(table, kind, key) or self.m.surface(table, kind, action)
            if template is None:
                continue
            if table == "surface_advice":
                items = [self._item(c, advice=True) for c in changes]
            else:  # a risk concerns what users have set: the old name of a rename
                items = [code_span(c.old if c.change == SurfaceAction.renamed and c.old else c.name) for c in changes]
            label = self.m.surface_labels.get(kind, kind)
            text = self._sentence(_capitalised(template.format(label=label, names=self._list(items))))
            texts.append((kind, action, text))
        return texts

    def impact_scope(self, surface: list[SurfaceChange], files: list[str]) -> list[str]:
        """The areas of the product the surface changes touch, then the files that matter most."""
        areas = [self.m.surface_scopes.get(kind, "") for kind, _, _ in _groups(self._relevant(surface))]
        areas = [area for area in dict.fromkeys(areas) if area]
        return [*areas, *files][: max(_MAX_SCOPE, len(areas) + 1)]

    def breaking_evidence(self, evidence: Evidence, surface: list[SurfaceChange]) -> str:
        """What breaks: the surface removed, renamed or moved, else the removed names in the diff, else what said so."""
        cite = evidence.signals.get("breaking", "")
        gone = [c for c in self._relevant(surface) if c.change in _INCOMPATIBLE]
        if gone:
            return self._surface_sentence(gone)
        if evidence.removed_names:
            return self._names(evidence.removed_names)
        if cite == "bang":
            return self.m.evidence_bang
        if cite == "footer":
            return self.m.evidence_breaking_footer
        return self.m.render("evidence_match", match=cite)

    def reason(self, judgement: Judgement, evidence: Evidence, surface: list[SurfaceChange]) -> str:
        texts = []
        for key, params in judgement.reasons[:2]:
            values = dict(params)
            if "evidence" in values and isinstance(values["evidence"], list):
                values["evidence"] = self.m.list_sep.join(values["evidence"])
            if key == "reason_breaking":
                values["evidence"] = self.breaking_evidence(evidence, surface)
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

    def recommendations(
        self, judgement: Judgement, evidence: Evidence, surface: list[SurfaceChange]
    ) -> list[Recommendation]:
        """Advice only where the commit gives something specific to do; none that would restate the title.

        Each surface change that asks something of users (replace, rename, drop,
        set, upgrade, move off) gives one; a security fix in the product, a major
        dependency and a breaking change or changed default the surface does not
        name give the general advice of their kind.
        """
        audiences = self.rules.audiences
        # What is installed concerns who builds and deploys; what is typed, set or called, who uses it.
        audience_of = {
            SurfaceKind.dependency_floor: audiences.build,
            SurfaceKind.dependency: audiences.build,
            SurfaceKind.default_feature: audiences.build,
            SurfaceAction.default_changed: audiences.default_change,
        }
        found: list[Recommendation] = []
        # Upgrading is the advice for a security fix in the product, not for one in its tests or documents.
        if judgement.security and not any(key == "reason_security_docs" for key, _ in judgement.reasons):
            found.append(self._advice(audiences.security, "rec_security"))
        advice = self._surface_texts("surface_advice", self._relevant(surface), breaking=judgement.breaking)
        found += [
            Recommendation(audience=audience_of.get(k, audience_of.get(a, audiences.breaking)), text=t)
            for k, a, t in advice
        ]
        majors = [c for c in evidence.dependencies if c.major]
        if majors:
            changes = self._dependencies(majors)
            found.append(self._advice(audiences.major_dependency, "rec_major_dependency", changes=changes))
        actions = {action for _, action, _ in advice}
        if judgement.breaking and evidence.removed_names and not actions & set(_BREAKING):
            names = self._names(evidence.removed_names)
            found.append(self._advice(audiences.breaking, "rec_breaking_names", names=names))
        elif judgement.breaking and not advice and not majors:
            found.append(self._advice(audiences.breaking, "rec_breaking"))
        says_default = any(key == "reason_default_change" for key, _ in judgement.reasons)
        if says_default and SurfaceAction.default_changed not in actions:
            found.append(self._advice(audiences.default_change, "rec_default_change"))
        return found[:_MAX_ADVICE]

    def _advice(self, audience: Audience, key: str, **values: object) -> Recommendation:
        return Recommendation(audience=audience, text=self._sentence(self.m.render(key, **values)))

    def insights_and_risks(
        self, judgement: Judgement, evidence: Evidence, surface: list[SurfaceChange]
    ) -> tuple[list[Insight], list[str]]:
        insights: list[Insight] = []
        surface = self._relevant(surface)
        risks = [text for _, _, text in self._surface_texts("surface_risks", surface, breaking=judgement.breaking)]
        if judgement.security:
            key = "insight_security_code" if evidence.security_in_code else "insight_security"
            text = self.m.render(key, match=evidence.signals["security"])
            insights.append(Insight(aspect="security", text=self._sentence(text)))
        if judgement.breaking:
            text = self.m.render("insight_breaking", evidence=self.breaking_evidence(evidence, surface))
            insights.append(Insight(aspect="compatibility", text=self._sentence(text)))
            if not risks:
                risks.append(self._sentence(self.m.risk_breaking))
        majors = [c for c in evidence.dependencies if c.major]
        if majors:
            text = self.m.render("insight_dependency", changes=self._dependencies(majors))
            insights.append(Insight(aspect="compatibility", text=self._sentence(text)))
            risks.append(self._sentence(self.m.risk_dependency))
        return insights, risks[:_MAX_RISKS]


def _groups(
    surface: list[SurfaceChange], *, split_replaced: bool = False
) -> list[tuple[SurfaceKind, SurfaceAction, list[SurfaceChange]]]:
    """The changes by kind and action, what asks most of users first and public definitions last.

    A change read in several files (a floor raised in every requirements file)
    is one item, and the items read most often come first. With
    ``split_replaced``, removals that name a replacement form a group apart
    from those that do not, as they call for other advice.
    """
    wherever = [_wherever(change) for change in surface]  # each change's, once: a dump is not cheap
    seen = Counter(wherever)
    first: set[tuple[object, ...]] = set()
    groups: dict[tuple[SurfaceKind, SurfaceAction, bool], list[tuple[SurfaceChange, int]]] = {}
    for change, where in zip(surface, wherever, strict=True):
        if where in first:
            continue
        first.add(where)
        replaced = split_replaced and change.change == SurfaceAction.removed and bool(change.replacement)
        groups.setdefault((change.kind, change.change, replaced), []).append((change, -seen[where]))
    kinds = list(SurfaceKind)

    def rank(key: tuple[SurfaceKind, SurfaceAction, bool]) -> tuple[bool, int, int, bool]:
        kind, action, replaced = key
        return (kind == SurfaceKind.public_api, _ACTION_ORDER.index(action), kinds.index(kind), not replaced)

    def often(item: tuple[SurfaceChange, int]) -> int:
        return item[1]

    return [
        (kind, action, [change for change, _ in sorted(groups[kind, action, r], key=often)])
        for kind, action, r in sorted(groups, key=rank)
    ]


def _wherever(change: SurfaceChange) -> tuple[object, ...]:
    """The change whatever file shows it: the same option or floor read in two files is one."""
    return tuple(change.model_dump(exclude={"path"}).values())


def _capitalised(text: str) -> str:
    return text[:1].upper() + text[1:]


def _totals(item: AnalysisInput) -> tuple[int, int]:
    """The commit's line counts: the input's totals, or the files' sums when the totals are missing."""
    if item.total_additions or item.total_deletions or not item.files:
        return item.total_additions, item.total_deletions
    return sum(f.additions for f in item.files), sum(f.deletions for f in item.files)
