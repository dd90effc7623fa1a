"""A commit its title calls new or better tests, whose diff is mostly test files.

"[MoE Refactor] Add more MoE layer tests", "Add unit tests for pooler activation
functions", "Improve cold and warm start compile tests": the tests are the change,
and the few source lines beside them (a helper the tests call, a debug hook, a
one-line tweak) serve them. A series tag (`[MoE Refactor]`) or the verb "Add"
would read the commit as a refactor or a feature; the title's object and the
diff's share of test lines say it is tests, of low importance.
"""

from __future__ import annotations

from repodaily.analyzers.heuristic.evidence import Evidence
from repodaily.analyzers.heuristic.files import Files
from repodaily.analyzers.heuristic.prose import MAX_QUOTED, clip
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.title import Title
from repodaily.models import ChangeType

__all__ = ["read_tests_title"]


def read_tests_title(evidence: Evidence, title: Title, facts: Files, rules: RuleSet, quote: str) -> None:
    """Vote for tests when the title's object is tests and test files carry most of the changed lines.

    A changelog entry the commit adds says it changed something for users beside its tests
    (read after the changelog for that reason).
    """
    rule = rules.diff.tests_title
    # Cheap checks first: most titles never say "test", and a commit without test files is no test change.
    if rule is None or evidence.changelog or "test" not in title.description.lower():
        return
    test_lines = total = 0
    for i in facts.counted:
        lines = facts.files[i].additions + facts.files[i].deletions
        total += lines
        if rules.path_rules(facts.classes[i]).type == ChangeType.test:
            test_lines += lines
    if not test_lines or test_lines < rule.min_test_share * total:
        return
    if (match := rule.regex.search(title.description)) is None:
        return
    evidence.vote(rule.type, rule.weight, quote.format(text=clip(match.group(0), MAX_QUOTED)))
    evidence.fired.add("diff.tests_title")
