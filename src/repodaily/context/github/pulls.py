"""Pull requests read from GitHub's answers: a GraphQL query for many at once, and the REST shapes.

GraphQL fetches up to :data:`BATCH` pull requests in one request, each under an
alias (``pr123: pullRequest(number: 123) {…}``): a day of vLLM (about thirty
merged pull requests) is one request, where REST takes one each. A number that
is no pull request (an issue's, a deleted one's) comes back null with a
``NOT_FOUND`` error for its alias; that is an answer, not a failure.

Every text field goes through :mod:`.text` here, at the edge, so nothing past
this module sees a raw body.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from repodaily.context.github.text import (
    MAX_LABEL_CHARS,
    MAX_LABELS,
    MAX_LINKED,
    clean_body,
    clean_line,
    closing_issues,
)
from repodaily.models import PullRequest

__all__ = ["BATCH", "from_graphql", "from_rest", "graphql_query", "merge_commit_pull", "when"]

#: Pull requests per GraphQL request: GitHub's node limit leaves room for far more; 50 keeps an answer small.
BATCH = 50

_FIELDS = (
    "number title body url mergedAt updatedAt baseRefName author { login } "
    f"labels(first: {MAX_LABELS}) {{ nodes {{ name }} }} "
    f"closingIssuesReferences(first: {MAX_LINKED}) {{ nodes {{ number repository {{ nameWithOwner }} }} }}"
)


def graphql_query(numbers: Sequence[int]) -> str:
    """One query for ``numbers`` of the repository ``$owner/$name``, each under the alias ``pr<number>``."""
    aliases = " ".join(f"pr{number}: pullRequest(number: {int(number)}) {{ {_FIELDS} }}" for number in numbers)
    return f"query($owner: String!, $name: String!) {{ repository(owner: $owner, name: $name) {{ {aliases} }} }}"


def when(value: Any) -> datetime | None:
    """A GitHub timestamp (`2026-02-09T03:04:05Z`) as a datetime; None when absent or unreadable."""
    try:
        return datetime.fromisoformat(str(value).replace("Z", "+00:00")) if value else None
    except ValueError:
        return None


def _labels(names: Iterable[Any]) -> list[str]:
    cleaned = (clean_line(str(name), MAX_LABEL_CHARS) for name in names if name)
    return list(dict.fromkeys(name for name in cleaned if name))[:MAX_LABELS]


def _pull(repo: str, number: Any, node: Mapping[str, Any], **fields: Any) -> PullRequest:
    body = node.get("body") if isinstance(node.get("body"), str) else ""
    return PullRequest(
        number=int(number),
        title=clean_line(node.get("title")),
        body=clean_body(body),
        linked_issues=closing_issues(body, repo),
        **fields,
    )


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def from_graphql(repo: str, node: Mapping[str, Any]) -> PullRequest:
    """A pull request from the GraphQL node :func:`graphql_query` asks for; closing references join the keywords'."""
    pull = _pull(
        repo,
        node["number"],
        node,
        labels=_labels(label.get("name") for label in _list((node.get("labels") or {}).get("nodes"))),
        author=clean_line((node.get("author") or {}).get("login"), MAX_LABEL_CHARS) or None,
        merged_at=when(node.get("mergedAt")),
        base=node.get("baseRefName") or None,
        url=node.get("url") or None,
    )
    references = _list((node.get("closingIssuesReferences") or {}).get("nodes"))
    linked = [
        int(issue["number"])
        for issue in references
        if isinstance(issue, dict)
        and str((issue.get("repository") or {}).get("nameWithOwner", repo)).lower() == repo.lower()
    ]
    return pull.model_copy(update={"linked_issues": list(dict.fromkeys([*linked, *pull.linked_issues]))[:MAX_LINKED]})


def from_rest(repo: str, data: Mapping[str, Any]) -> PullRequest:
    """A pull request from a REST pull-request object (``GET …/pulls/{n}``, ``GET …/commits/{sha}/pulls``)."""
    return _pull(
        repo,
        data["number"],
        data,
        labels=_labels(label.get("name") for label in _list(data.get("labels")) if isinstance(label, dict)),
        author=clean_line((data.get("user") or {}).get("login"), MAX_LABEL_CHARS) or None,
        merged_at=when(data.get("merged_at")),
        base=(data.get("base") or {}).get("ref") or None,
        url=data.get("html_url") or None,
    )


def merge_commit_pull(repo: str, sha: str, pulls: Sequence[Any]) -> PullRequest | None:
    """Of the pull requests GitHub lists for commit ``sha``, the one that merged it, else the first merged one."""
    candidates = [pull for pull in pulls if isinstance(pull, dict) and "number" in pull]
    chosen = next((p for p in candidates if p.get("merge_commit_sha") == sha), None) or next(
        (p for p in candidates if p.get("merged_at")), None
    )
    return from_rest(repo, chosen) if chosen is not None else None
