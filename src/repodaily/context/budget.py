"""Turn one commit into what an analyzer reads, within a token budget, with receipts.

An analyzer reads a bounded amount of diff, so what it reads is chosen on purpose
and written down. The budget is one prompt's worth of diff, times the prompts
(*parts*) the analyzer may spend on one commit: a model that map-reduces a big
commit reads each part in its own prompt, the heuristic reads one. This module
plans the parts as it spends the budget, so a receipt says what a part really
holds — nobody downstream re-cuts a text or drops a part:

1. Every file is classified (:mod:`repodaily.paths`) and its patch counted (:mod:`.tokens`).
2. Categories are served in :class:`~repodaily.models.FileCategory` order — source,
   build, test, docs — each deciding all its files before the next one gets what
   remains. Generated and binary files are never read: path and counts only.
3. Within a category every file is offered an equal share of what remains in
   all parts (at least :data:`MIN_CLIP_TOKENS`). Smallest first, a patch that fits
   its share and the room of some part is sent whole (``full``) and leaves the
   rest of its share to the others; so many small patches are read whole, and one
   huge file cannot starve the rest.
4. The patches bigger than their share are then cut to it, and to the room of
   the emptiest part, biggest change first: whole hunks from the top, the last one
   cut at a line boundary, and a closing line saying how many lines were left out
   (``clipped``). A slice under :data:`MIN_CLIP_TOKENS` tells little, so when less
   than that remains a file gets path and counts only (``stats_only``).
5. A patch the source already cut (``FileChange.patch_truncated``) is at most
   ``clipped``, even when all of what arrived is sent; a file whose content the
   source could not read (``FileChange.content_missing``) is ``stats_only``. A
   file whose diff has no text (a pure rename) is ``full``: nothing was withheld.

An analyzer whose rules cost nothing per token (``whole_patch``) is not held to
one prompt and spends no model tokens: every readable patch is ``full`` (or
``clipped`` where the source cut it) in one part, nothing is counted, and the
receipt's tokens are 0 — counting every patch of a backfill would cost more than
the rules that read them. Generated, binary and missing files stay unread, as above.

A text goes whole into one part: the part with the least room that still takes
it (the earliest on a tie), so the first part fills before the next is opened, and
a commit that fits one prompt is one part whatever the analyzer may spend. With one
part allowed, this is exactly a single budget spent in the order above.

The budget covers patch text only: the commit's subject, body and metadata, and
any per-file headings an analyzer adds around the patches, are not counted against
it. The receipt lists every file in the order above (category, then size of
change), with the tokens of its patch as received and the tokens sent. Its budget
is that of all the parts together; the tokens sent never add up to more than one
prompt's budget in any part.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, groupby

from repodaily.context.tokens import count_tokens
from repodaily.models import (
    AnalysisInput,
    Commit,
    ContextFile,
    Coverage,
    CoverageReceipt,
    FileCategory,
    FileChange,
    FileReceipt,
    RepositoryContext,
)
from repodaily.paths import PathTable

__all__ = ["MIN_CLIP_TOKENS", "build_input", "refit"]

#: The smallest slice of a patch worth sending; below it, path and counts say as much.
MIN_CLIP_TOKENS = 50

_NEVER_READ = frozenset({FileCategory.generated, FileCategory.binary})
_CATEGORY_RANK = {category: rank for rank, category in enumerate(FileCategory)}
# Counting a candidate slice costs as much as reading it; a handful of guesses
# lands within a line or two of the best cut.
_CLIP_PROBES = 8
_LINE = re.compile(r"[^\n]*\n|[^\n]+")
#: What a diff's file and an analyzer's view of it both say: which file, how, and how much changed.
_DESCRIBED = {"path", "old_path", "status", "additions", "deletions", "binary"}


@dataclass
class _File:
    """One file while the budget is being spent: what it is, and what it was given."""

    change: FileChange
    category: FileCategory
    tokens_total: int
    coverage: Coverage = Coverage.stats_only
    text: str = ""
    tokens_sent: int = 0
    part: int | None = None

    def send(self, text: str, tokens: int, coverage: Coverage, parts: _Parts) -> None:
        self.text, self.tokens_sent = text, tokens
        self.coverage = Coverage.clipped if self.change.patch_truncated else coverage
        self.part = parts.take(tokens) if text else None


@dataclass
class _Parts:
    """The room left in each prompt the diff may be spread over."""

    rooms: list[int]

    @property
    def left(self) -> int:
        return sum(self.rooms)

    def take(self, tokens: int) -> int:
        """The part with the least room that takes ``tokens`` (the earliest on a tie), its room reduced."""
        part = min((room, index) for index, room in enumerate(self.rooms) if room >= tokens)[1]
        self.rooms[part] -= tokens
        return part


def build_input(
    repo: str,
    commit: Commit,
    *,
    budget_tokens: int,
    max_parts: int = 1,
    paths: PathTable | None = None,
    whole_patch: bool = False,
    repository: RepositoryContext | None = None,
) -> AnalysisInput:
    """What an analyzer may read about ``commit``: metadata, parsed message, and diff in at most ``max_parts`` parts.

    Each part holds at most ``budget_tokens`` of diff, one prompt's worth; the
    input's ``parts`` say which files' texts each part carries. Files are classed
    by ``paths``, the analyzer's path table (by default the package's,
    :meth:`PathTable.packaged`). See the module docstring for how the budget is
    spent; the commit message is outside it. With ``whole_patch`` the budget and
    every readable patch is read whole in one part and nothing is counted, whatever
    ``budget_tokens`` and ``max_parts`` say. ``repository`` is carried as given
    (:mod:`.repository` builds it once for a day's commits). Pure and
    deterministic: the same commit, budget, parts and table give the same input.
    """
    if budget_tokens < 0:
        raise ValueError(f"budget_tokens must not be negative, got {budget_tokens}")
    if max_parts < 1:
        raise ValueError(f"max_parts must be at least 1, got {max_parts}")
    table = paths or PathTable.packaged()
    files = sorted(
        (
            _File(
                change,
                table.category(change.path, binary=change.binary),
                0 if whole_patch else count_tokens(change.patch),
            )
            for change in commit.files
        ),
        key=_rank,
    )
    if whole_patch:
        budget_tokens, max_parts = 0, 1
    planned, receipt = _plan(files, budget_tokens, max_parts, whole_patch=whole_patch)
    return AnalysisInput(
        **commit.message_parts(),
        repo=repo,
        sha=commit.sha,
        author_name=commit.author_name,
        committed_at=commit.committed_at,
        parents=list(commit.parents),
        files=[_context_file(file) for file in files],
        parts=planned,
        receipt=receipt,
        total_additions=sum(change.additions for change in commit.files),
        total_deletions=sum(change.deletions for change in commit.files),
        repository=repository,
    )


def refit(item: AnalysisInput, *, budget_tokens: int, max_parts: int = 1) -> AnalysisInput:
    """``item`` planned again within a smaller budget: the texts it carries, spent by the same rules.

    For an endpoint whose context window turns out smaller than the prompts planned
    for it: a text sent whole may now be clipped, or left to path and counts, and
    the receipt says so. A file's received total stays what its whole patch held; a
    text cut again says how many lines of the text it was cut from were left out.
    """
    if budget_tokens < 0 or max_parts < 1:
        raise ValueError(f"cannot refit into {max_parts} part(s) of {budget_tokens} tokens")
    received = {file.path: file.tokens_total for file in item.receipt.files}
    files = [
        _File(
            FileChange(
                **file.model_dump(include=_DESCRIBED),
                patch=file.text,
                patch_truncated=file.coverage == Coverage.clipped,
                content_missing=file.coverage == Coverage.stats_only,
            ),
            file.category,
            count_tokens(file.text),
        )
        for file in item.files
    ]
    planned, receipt = _plan(files, budget_tokens, max_parts, whole_patch=False)
    totals = [
        entry.model_copy(update={"tokens_total": received.get(entry.path, entry.tokens_total)})
        for entry in receipt.files
    ]
    return item.model_copy(
        update={
            "files": [_context_file(file) for file in files],
            "parts": planned,
            "receipt": receipt.model_copy(update={"files": totals}),
        }
    )


def _plan(
    files: list[_File], budget_tokens: int, max_parts: int, *, whole_patch: bool
) -> tuple[list[list[int]], CoverageReceipt]:
    """Spend ``max_parts`` parts of ``budget_tokens`` over ``files`` (ranked): each part's file indexes, the receipt."""
    parts = _Parts([budget_tokens] * max_parts)
    for _, group in groupby(files, key=lambda file: file.category):
        readable = [file for file in group if _readable(file)]
        if whole_patch:
            for file in readable:
                file.send(file.change.patch, 0, Coverage.full, parts)
        else:
            _spend(readable, parts)
    planned = [[index for index, file in enumerate(files) if file.part == part] for part in range(max_parts)]
    receipt = CoverageReceipt(
        budget_tokens=budget_tokens * max_parts,
        tokens_sent=budget_tokens * max_parts - parts.left,
        files=[_receipt(file) for file in files],
    )
    return [part for part in planned if part] or [[]], receipt


def _readable(file: _File) -> bool:
    """Whether any budget may send this file's patch: not generated, binary or missing."""
    return file.category not in _NEVER_READ and not file.change.content_missing


def _rank(file: _File) -> tuple[int, int, str]:
    return _CATEGORY_RANK[file.category], -(file.change.additions + file.change.deletions), file.change.path


def _spend(group: list[_File], parts: _Parts) -> None:
    """Give one category's files (ranked) their text by fair shares of the room left in ``parts``."""
    by_size = sorted(group, key=lambda file: file.tokens_total)
    whole = 0
    for file in by_size:
        share = max(parts.left // (len(by_size) - whole), MIN_CLIP_TOKENS)
        if file.tokens_total > min(share, max(parts.rooms)):
            break
        file.send(file.change.patch, file.tokens_total, Coverage.full, parts)
        whole += 1
    too_big = sorted(by_size[whole:], key=_rank)
    for index, file in enumerate(too_big):
        allowance = min(max(parts.left // (len(too_big) - index), MIN_CLIP_TOKENS), max(parts.rooms))
        if allowance < MIN_CLIP_TOKENS:
            break
        clipped = _clip(file.change.patch, file.tokens_total, allowance)
        if clipped is not None:
            text, tokens = clipped
            file.send(text, tokens, Coverage.clipped, parts)


def _clip(patch: str, patch_tokens: int, budget: int) -> tuple[str, int] | None:
    """The longest top slice of ``patch`` that fits ``budget`` with its closing marker, if worth sending.

    The slice ends at a line boundary, never right after a hunk header. The token
    estimate is not exactly additive, so each candidate is counted whole: every
    probe guesses the cut from the characters per token seen so far, and the
    bracket between the longest slice that fits and the shortest that does not
    narrows until it closes or the probes run out.
    """
    lines = _LINE.findall(patch)
    ends = list(accumulate(map(len, lines)))
    # cuts[i]: a number of leading lines to keep; cut_ends[i]: how many characters that is.
    cuts = [kept for kept in range(1, len(lines)) if not lines[kept - 1].startswith("@@")]
    cut_ends = [ends[kept - 1] for kept in cuts]
    best: tuple[str, int] | None = None
    fitting, too_long = -1, len(cuts)  # indexes into cuts known to fit / known not to
    guess = bisect_right(cut_ends, len(patch) * budget / max(patch_tokens, 1)) - 1
    for _ in range(_CLIP_PROBES):
        probe = min(max(guess, fitting + 1), too_long - 1)
        if probe <= fitting:
            break
        kept = cuts[probe]
        text = "".join(lines[:kept]) + f"… ({len(lines) - kept} more lines clipped)"
        tokens = count_tokens(text)
        if tokens <= budget:
            fitting, best = probe, (text, tokens)
        else:
            too_long = probe
        guess = bisect_right(cut_ends, len(text) * budget / max(tokens, 1)) - 1
    if best is None or best[1] < MIN_CLIP_TOKENS:
        return None
    return best


def _context_file(file: _File) -> ContextFile:
    # Built, unvalidated, from a validated FileChange and this module's own enums and text:
    # validating them again cost more than planning the budget.
    described = {name: getattr(file.change, name) for name in _DESCRIBED}
    return ContextFile.model_construct(**described, category=file.category, coverage=file.coverage, text=file.text)


def _receipt(file: _File) -> FileReceipt:
    return FileReceipt.model_construct(
        path=file.change.path,
        category=file.category,
        coverage=file.coverage,
        tokens_total=file.tokens_total,
        tokens_sent=file.tokens_sent,
    )
