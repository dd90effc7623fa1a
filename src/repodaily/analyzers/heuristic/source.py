"""The heuristic's own code and tables, hashed for its fingerprint.

A rule's meaning lives in Python as much as in ``rules.toml``: how a tag is
normalised, how votes are weighed, how a glob matches, how a subject is parsed.
So the fingerprint hashes every file this package ships (its modules,
``rules.toml`` and the conventions presets) and every repodaily module they
import, transitively (:func:`~repodaily.digests.with_imports`: the glob dialect
of :mod:`repodaily.paths`, the subject parsing of :mod:`repodaily.sources.message`,
the enums of :mod:`repodaily.models`, the merge of :mod:`repodaily.tables`, …).

That errs towards re-analysing: an edit to a comment or to a model the
heuristic does not read refreshes its cache too. It is the right side to err
on, because re-analysing costs the heuristic milliseconds a commit, while a
hand-picked list of files would go stale the day the heuristic imports a new
helper. The rule *data* a repository brings (its conventions) is not a file of
the package; :attr:`RuleSet.fingerprint <repodaily.analyzers.heuristic.rules.RuleSet.fingerprint>`
hashes the merged table for that.
"""

from __future__ import annotations

from functools import cache

from repodaily.digests import digest, package_tree, with_imports

__all__ = ["source_digest"]


@cache
def source_digest() -> str:
    """Short hash of the heuristic's code and shipped tables; read once per process."""
    return digest(with_imports(package_tree(__package__, suffixes=(".py", ".toml"))))
