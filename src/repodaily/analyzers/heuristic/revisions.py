"""A library built from its source moved to another upstream revision, read from the file that pins it.

Projects that compile a third-party library into their own release (a vendored
copy, or a checkout their build fetches) keep the upstream revision in a file
of its own named for the library. A commit that swaps the one revision line of
such a file for another changes what every installation runs, whatever else
it rebases alongside (patches carried against upstream, compatibility shims)
and whatever its title says ("llama.cpp update"): the rubric's build change,
of medium importance (a routine bump of a declared dependency is a floor in a
manifest, read by :mod:`.patch`, not this).
"""

from __future__ import annotations

from repodaily.analyzers.heuristic.evidence import Evidence
from repodaily.analyzers.heuristic.files import Files
from repodaily.analyzers.heuristic.patch import signed_lines
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.sentences import code_span

__all__ = ["read_revision_pins"]


def read_revision_pins(evidence: Evidence, facts: Files, rules: RuleSet) -> None:
    """Vote for the rule's type and floor the importance when a pin file's revision line is swapped."""
    pins = rules.revision_pins
    named, revision = pins.regexes
    for file in facts.files:
        pinned = named.fullmatch(file.path.rpartition("/")[2])
        if pinned is None:
            continue
        removed, added = signed_lines(file.text, "-"), signed_lines(file.text, "+")
        if len(removed) != 1 or len(added) != 1:
            continue
        old, new = removed[0][1:].strip(), added[0][1:].strip()
        if old != new and revision.fullmatch(old) and revision.fullmatch(new):
            cite = code_span(f"{pinned.group('name')} {old} → {new}")
            evidence.vote(pins.type, pins.weight, cite)
            evidence.floors.append((pins.min_importance, cite))
            evidence.user_facing = True
            evidence.fired.add("revision_pins")
            return
