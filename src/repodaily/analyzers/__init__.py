"""Analyzers: what judges one commit against the rubric.

The protocol is :mod:`repodaily.analyzers.base`; the built-ins are
:mod:`~repodaily.analyzers.heuristic` (offline rules, the default and every
analysis's fallback) and :mod:`~repodaily.analyzers.llm` (any OpenAI-compatible
model), each entering through the plugin registry like a third party's would.
"""

from repodaily.analyzers.base import Analyzer, BatchAnalyzer, BatchEndpoint, MapReduceBatchAnalyzer

__all__ = ["Analyzer", "BatchAnalyzer", "BatchEndpoint", "MapReduceBatchAnalyzer"]
