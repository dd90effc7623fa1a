"""The day's highlights: the commits a reader who reads nothing else must not miss.

A report is long; the block at its top is what most readers read. So it is
chosen by rule from the analyses, never left to a model's taste: every commit
flagged breaking or security, every default a user relies on that changed,
every new model, backend or public capability, every release, and every other
high-importance commit, one line each, in that order (what the reader must act
on first). Each commit is listed once, under the first kind it qualifies for;
a break that is nothing but a changed default is listed as that default.

It works from what every analyzer writes (flags, importance, type); the
surface an analyzer read from the diff (:class:`~repodaily.models.SurfaceChange`)
adds what breaks, which default moved and what is new, when there is one. An
LLM reads no surface, so its items are picked by flags, importance and type
alone. A release is recognised by its title, since no analyzer records it: a
chore whose title only announces a version.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from repodaily.models import (
    ChangeType,
    Highlight,
    HighlightKind,
    Importance,
    ReportCommit,
    SurfaceAction,
    SurfaceChange,
    SurfaceKind,
)
from repodaily.sources.message import parse_subject, split_tags

__all__ = ["select_highlights"]

#: What a breaking change breaks, as the surface says it: gone, renamed, moved, now refused, or harder to install.
_BREAKS = frozenset(
    {
        SurfaceAction.removed,
        SurfaceAction.renamed,
        SurfaceAction.default_changed,
        SurfaceAction.now_raises,
        SurfaceAction.raised_floor,
    }
)
#: New things a user can pick without reading code: a feature adding one is worth the block.
_NEW_CHOICES = frozenset({SurfaceKind.model_arch, SurfaceKind.backend, SurfaceKind.platform})
#: The order surface entries of one action are shown in: what users name in a command or a config
#: first, internal names last (an analyzer counts any new top-level definition as public API, so
#: those are the least telling). A kind not named here comes after the named ones, before public API.
_KIND_ORDER = (
    SurfaceKind.model_arch,
    SurfaceKind.backend,
    SurfaceKind.platform,
    SurfaceKind.cli_option,
    SurfaceKind.http_route,
    SurfaceKind.config_key,
    SurfaceKind.env_var,
    SurfaceKind.metric,
    SurfaceKind.removal,
    SurfaceKind.deprecation,
    SurfaceKind.dependency_floor,
    SurfaceKind.dependency,
)
_KIND_RANK = {kind: rank for rank, kind in enumerate(_KIND_ORDER)}
#: A title that only announces a version: "v1.2.3", "Release 1.2.3", "Bump version to 1.2.3",
#: "chore(release): 1.2.3", "Prepare release v2.0.0-rc1". Anything more ("Update to Torch 2.10") is a change.
#: Each part of the version can be read one way only, so a long hostile title cannot make it backtrack.
_RELEASE_TITLE = re.compile(
    r"(?:\w+(?:\([\w./-]*\))?!?:\s*)?"
    r"(?:(?:release[sd]?|releasing|version|tag(?:ged)?|publish(?:ed)?|cut"
    r"|prepare[sd]?(?:\s+for)?(?:\s+(?:the\s+)?release)?"
    r"|bump(?:s|ed)?\s+(?:the\s+)?version(?:\s+to)?)\s+)?"
    r"v?\d+(?:\.\d+)+(?:[-.]?[a-z][0-9a-z]*)?(?:[-+][0-9a-z]+(?:\.[0-9a-z]+)*)?",
    re.IGNORECASE,
)
#: Longer than this, a title says more than a version.
_RELEASE_TITLE_CHARS = 80
#: A release is a chore (RUBRIC.md), or build when an analyzer reads the version file as packaging.
_RELEASE_TYPES = frozenset({ChangeType.chore, ChangeType.build})


def select_highlights(commits: Sequence[ReportCommit]) -> list[Highlight]:
    """The day's highlights, grouped by :class:`HighlightKind` in its order, important commits first in each.

    Every high-importance commit is in the result (the last group takes those
    no earlier one took); each commit appears once.
    """
    ordered = sorted(commits, key=lambda c: c.analysis.importance.rank)  # stable: newest first within a level
    taken: set[str] = set()
    highlights: list[Highlight] = []
    for kind, picks in _PICKS:
        for commit in ordered:
            if commit.sha in taken:
                continue
            surface = picks(commit)
            if surface is None:
                continue
            taken.add(commit.sha)
            highlights.append(Highlight(kind=kind, text=_text(commit), shas=[commit.sha], surface=_sorted(surface)))
    return highlights


# Each pick says whether a commit is of its kind: None if not, else the surface entries that explain it.
_Pick = Callable[[ReportCommit], list[SurfaceChange] | None]


def _breaking(commit: ReportCommit) -> list[SurfaceChange] | None:
    """A commit flagged breaking, with what the surface says breaks; one that only moves defaults is left to them.

    An analyzer may infer the break from the changed default itself: then the
    default's own line ("default of `x`: a → b") says all there is to say.
    """
    analysis = commit.analysis
    if not analysis.flags.breaking:
        return None
    breaks = [s for s in analysis.surface if s.change in _BREAKS]
    if breaks and all(s.change == SurfaceAction.default_changed for s in breaks):
        return None
    return breaks


def _security(commit: ReportCommit) -> list[SurfaceChange] | None:
    return [] if commit.analysis.flags.security else None


def _defaults(commit: ReportCommit) -> list[SurfaceChange] | None:
    """Defaults the surface says moved, unless the analyzer rated the commit low (a test's or an example's).

    A commit flagged breaking is always in: its break is the default it moves (see :func:`_breaking`).
    """
    analysis = commit.analysis
    moved = [s for s in analysis.surface if s.change == SurfaceAction.default_changed]
    return moved if moved and (analysis.importance != Importance.low or analysis.flags.breaking) else None


def _added(commit: ReportCommit) -> list[SurfaceChange] | None:
    """A feature adding a model or backend (not rated low), or a high feature: what it adds, as far as the surface says.

    Only a feature: a fix or a refactor that registers a name again (a model
    class moved, a registry reordered) adds nothing a user can newly choose.
    """
    analysis = commit.analysis
    if analysis.type != ChangeType.feat:
        return None
    added = [s for s in analysis.surface if s.change == SurfaceAction.added]
    if analysis.importance == Importance.high:
        return added
    choices = [s for s in added if s.kind in _NEW_CHOICES]
    return choices if choices and analysis.importance != Importance.low else None


def _release(commit: ReportCommit) -> list[SurfaceChange] | None:
    """A chore whose title, its ``[Tag]`` prefixes and pull-request number aside, only announces a version."""
    if commit.analysis.type not in _RELEASE_TYPES:
        return None
    _, rest = split_tags(parse_subject(commit.subject).title)
    rest = rest.strip()
    return [] if len(rest) <= _RELEASE_TITLE_CHARS and _RELEASE_TITLE.fullmatch(rest) else None


def _high(commit: ReportCommit) -> list[SurfaceChange] | None:
    return [] if commit.analysis.importance == Importance.high else None


_PICKS: tuple[tuple[HighlightKind, _Pick], ...] = (
    (HighlightKind.breaking, _breaking),
    (HighlightKind.security, _security),
    (HighlightKind.default_changed, _defaults),
    (HighlightKind.added, _added),
    (HighlightKind.release, _release),
    (HighlightKind.high, _high),
)


def _text(commit: ReportCommit) -> str:
    """A model's one line, written for a reader in the report's language; else the commit's own title.

    The heuristic's one line restates the title with file counts: the title alone is shorter.
    """
    if commit.analysis.model is not None and commit.analysis.one_line.strip():
        return commit.analysis.one_line
    return parse_subject(commit.subject).title.strip() or commit.short_sha


def _sorted(surface: list[SurfaceChange]) -> list[SurfaceChange]:
    """By action, then by :data:`_KIND_ORDER`: a line names each action once ("removed `a`, `b`; renamed …").

    A name read as two kinds (a model class is also a public class) is shown once, as the more telling one.
    """
    actions = list(SurfaceAction)
    ordered = sorted(
        surface,
        key=lambda s: (
            actions.index(s.change),
            s.kind == SurfaceKind.public_api,
            _KIND_RANK.get(s.kind, len(_KIND_RANK)),
        ),
    )
    first: dict[tuple[SurfaceAction, str], SurfaceChange] = {}
    for change in ordered:
        first.setdefault((change.change, change.name), change)
    return list(first.values())
