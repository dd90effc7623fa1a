"""What the pull request a commit came from says: its labels and its body's cues, as more evidence.

A label (``[labels]`` in the rule table) is a maintainer's triage and votes
between the diff's evidence and the title's words; the body is read by the
patterns that read the commit's body (``where = "body"``: a ``BREAKING CHANGE:``
footer, a security advisory), each vote at ``[pull_request] body_trust`` of its
weight, after what a template leaves in every body (comments, unticked checklist
items) is dropped. The body is not quoted: the texts say what the commit's own
message declares.
The pull request's title is not read: a squash merge's subject already is it.
"""

from __future__ import annotations

import re

from repodaily.analyzers.heuristic.evidence import Evidence, apply_pattern
from repodaily.analyzers.heuristic.rules import RuleSet
from repodaily.analyzers.heuristic.sentences import Messages
from repodaily.models import PullRequest

__all__ = ["read_pull_request"]

_TEMPLATE_TEXT = re.compile(r"<!--.*?(?:-->|\Z)|^[ \t]*[-*+][ \t]+\[ \][^\n]*$", re.DOTALL | re.MULTILINE)


def read_pull_request(evidence: Evidence, pull_request: PullRequest, rules: RuleSet, messages: Messages) -> None:
    """Add the votes and signals of ``pull_request``'s labels and body to ``evidence``."""
    for label in pull_request.labels:
        found = rules.lookup_label(label)
        if found is None:
            continue
        key, rule = found
        evidence.fired.add(f"labels.{key}")
        cite = messages.render("evidence_label", label=label)
        evidence.vote(rule.type, rule.weight, cite)
        if rule.signal is not None:
            evidence.signal(rule.signal, cite)
    body = _TEMPLATE_TEXT.sub("", pull_request.body)
    trust = rules.pull_request.body_trust
    for name, pattern in rules.patterns.items():
        if pattern.where == "body" and (match := pattern.regex.search(body)):
            evidence.fired.add(f"pull_request.{name}")
            apply_pattern(evidence, pattern, match, messages.quote, trust=trust)
