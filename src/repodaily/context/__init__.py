"""The context stage: one :class:`~repodaily.models.Commit` in, one :class:`~repodaily.models.AnalysisInput` out.

It decides what of a commit's diff an analyzer reads — most important files first,
within a token budget — and records the decision in a receipt, so that a report
can say which files were read whole, which were clipped and which were only
counted. That part is pure: no git, no network, no model files; only the context
sources (below) ask a platform.

- :mod:`.tokens` estimates token counts offline;
- :mod:`.budget` spends the budget and writes the receipts, ranking files by the
  categories of :mod:`repodaily.paths` (source, build, test, docs, generated, binary);
- :mod:`.repository` describes the commit's repository, bounded, for the analyzers that read it;
- :mod:`.base` is the protocol of context sources, plugins that add what a platform knows of a
  day (the pull request each commit came from, the releases); :mod:`.github` is GitHub's.
"""

from __future__ import annotations

from repodaily.context.budget import MIN_CLIP_TOKENS, build_input, refit
from repodaily.context.repository import describe_repository, primary_language
from repodaily.context.tokens import count_tokens

__all__ = ["MIN_CLIP_TOKENS", "build_input", "count_tokens", "describe_repository", "primary_language", "refit"]
