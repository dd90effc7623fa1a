"""The GitHub endpoints the context source reads, on top of the publishers' fake (tests/github_fake.py).

:class:`GitHubContextFake` is a :class:`~github_fake.GitHubFake` (the same
token, version and rate-limit checks, ETags and 304s) that also answers:

- ``GET /repos/{owner}/{repo}/pulls/{number}``: a pull request in GitHub's REST
  shape, 404 for a number that is none;
- ``GET /repos/{owner}/{repo}/commits/{sha}/pulls``: the pull requests whose
  merge commit ``sha`` is;
- ``GET /repos/{owner}/{repo}/releases``: newest first, paged with ``Link``;
- ``GET /rate_limit``: what is left of the hour (asking costs nothing);
- ``POST /graphql``: ``repository(owner:, name:)`` with ``prN: pullRequest(number: N)``
  aliases, answered as GitHub answers (``NOT_FOUND`` errors beside a null for a
  number that is no pull request; 401 without a token, whatever the repository).
"""

from __future__ import annotations

import asyncio
import re
from typing import Any

from endpoint_simulator import HttpRequest
from github_fake import GitHubFake, _error

_ALIAS = re.compile(r"(\w+): pullRequest\(number: (\d+)\)")


class GitHubContextFake(GitHubFake):
    """One repository's pull requests and releases on a fake GitHub."""

    def __init__(self, token: str, repository: str = "acme/widgets") -> None:
        super().__init__(token, repository)
        self.pulls: dict[int, dict[str, Any]] = {}
        self.releases: list[dict[str, Any]] = []
        #: Seconds each answer takes, so requests overlap as they do against GitHub.
        self.delay_s = 0.0
        #: The most requests that were open at once.
        self.most_in_flight = 0
        self._in_flight = 0

    # -- what tests arrange

    def add_pull(
        self,
        number: int,
        title: str,
        *,
        merged_at: str,
        body: str = "",
        labels: tuple[str, ...] = (),
        author: str = "octocat",
        merge_commit_sha: str | None = None,
        base: str = "main",
        closes: tuple[int, ...] = (),
    ) -> dict[str, Any]:
        """A merged pull request; ``closes`` are the issues GitHub links to it (its closing references)."""
        html = f"https://github.com/{self.repository}/pull/{number}"
        pull = {
            "url": f"{self.origin}/repos/{self.repository}/pulls/{number}",
            "id": 1_900_000_000 + number,
            "node_id": f"PR_kwDOMGrFTs5{number:08d}",
            "html_url": html,
            "number": number,
            "state": "closed",
            "locked": False,
            "title": title,
            "user": self._user(author),
            "body": body,
            "labels": [self._label(name) for name in labels],
            "created_at": merged_at,
            "updated_at": merged_at,
            "closed_at": merged_at,
            "merged_at": merged_at,
            "merge_commit_sha": merge_commit_sha,
            "draft": False,
            "head": {"label": f"{author}:topic-{number}", "ref": f"topic-{number}", "sha": "0" * 40},
            "base": {"label": f"{self.repository.split('/')[0]}:{base}", "ref": base, "sha": "1" * 40},
            "author_association": "CONTRIBUTOR",
            "merged": True,
            "_closes": list(closes),  # not GitHub's REST field: what GraphQL's closingIssuesReferences lists
        }
        self.pulls[number] = pull
        return pull

    def edit_pull(self, number: int, *, updated_at: str, **fields: Any) -> None:
        """Someone edits a pull request (a label added after the merge, a title fixed)."""
        self.pulls[number].update(fields, updated_at=updated_at)

    def add_release(
        self, tag: str, *, published_at: str, name: str = "", draft: bool = False, prerelease: bool = False
    ) -> None:
        ident = 200_000_000 + len(self.releases)
        self.releases.append(
            {
                "url": f"{self.origin}/repos/{self.repository}/releases/{ident}",
                "html_url": f"https://github.com/{self.repository}/releases/tag/{tag}",
                "id": ident,
                "author": self._user("release-bot"),
                "node_id": f"RE_kwDOMGrFTs4{ident}",
                "tag_name": tag,
                "target_commitish": "main",
                "name": name or tag,
                "draft": draft,
                "prerelease": prerelease,
                "created_at": published_at,
                "published_at": None if draft else published_at,
                "assets": [],
                "body": "",
            }
        )

    # -- the server

    async def _respond(self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self._in_flight)
        try:
            await asyncio.sleep(self.delay_s)
            await super()._respond(request, reader, writer)
        finally:
            self._in_flight -= 1

    def _answer(self, request: HttpRequest) -> tuple[int, Any, list[tuple[str, str]]]:
        if request.path not in ("/rate_limit", "/graphql"):
            return super()._answer(request)
        given = request.headers.get("authorization")
        if given is not None and given != f"Bearer {self.token}":
            return 401, _error("Bad credentials", status=401), []
        if request.path == "/rate_limit":  # anyone may ask
            return 200, self._rate_limit(), []
        if given is None:
            return 401, _error("This endpoint requires you to be authenticated.", "https://docs.github.com/graphql"), []
        if self._refusals:
            return self._refusals.pop(0)
        return 200, self._graphql(request.json() or {}), []

    def _rate_limit(self) -> dict[str, Any]:
        core = {"limit": 5000, "used": 5000 - self.remaining, "remaining": self.remaining, "reset": 1770000000}
        graphql = {"limit": 5000, "used": 0, "remaining": 5000, "reset": 1770000000}
        return {"resources": {"core": core, "graphql": graphql}, "rate": core}

    def _rest(self, pull: dict[str, Any]) -> dict[str, Any]:
        return {key: value for key, value in pull.items() if not key.startswith("_")}

    def _route(self, request: HttpRequest, rest: list[str], query: dict[str, str]) -> tuple[int, Any, list[Any]]:
        if request.method == "GET":
            match rest:
                case ["pulls", number] if number.isdigit():
                    if int(number) not in self.pulls:
                        return (
                            404,
                            _error("Not Found", "https://docs.github.com/rest/pulls/pulls#get-a-pull-request", 404),
                            [],
                        )
                    return 200, self._rest(self.pulls[int(number)]), []
                case ["commits", sha, "pulls"]:
                    merged = [self._rest(p) for p in self.pulls.values() if p["merge_commit_sha"] == sha]
                    return 200, merged, []
                case ["releases"]:
                    newest = sorted(self.releases, key=lambda release: release["created_at"], reverse=True)
                    return self._list(newest, query, "releases")
        return super()._route(request, rest, query)

    def _graphql(self, body: dict[str, Any]) -> dict[str, Any]:
        query, variables = str(body.get("query", "")), body.get("variables") or {}
        if f"{variables.get('owner')}/{variables.get('name')}" != self.repository:
            message = (
                f"Could not resolve to a Repository with the name '{variables.get('owner')}/{variables.get('name')}'."
            )
            return {
                "data": {"repository": None},
                "errors": [{"type": "NOT_FOUND", "path": ["repository"], "message": message}],
            }
        nodes: dict[str, Any] = {}
        errors = []
        for alias, number in _ALIAS.findall(query):
            pull = self.pulls.get(int(number))
            nodes[alias] = self._node(pull) if pull else None
            if pull is None:
                message = f"Could not resolve to a PullRequest with the number of {number}."
                errors.append({"type": "NOT_FOUND", "path": ["repository", alias], "message": message})
        return {"data": {"repository": nodes}, **({"errors": errors} if errors else {})}

    def _node(self, pull: dict[str, Any]) -> dict[str, Any]:
        return {
            "number": pull["number"],
            "title": pull["title"],
            "body": pull["body"],
            "url": pull["html_url"],
            "mergedAt": pull["merged_at"],
            "updatedAt": pull["updated_at"],
            "baseRefName": pull["base"]["ref"],
            "author": {"login": pull["user"]["login"]},
            "labels": {"nodes": [{"name": label["name"]} for label in pull["labels"]]},
            "closingIssuesReferences": {
                "nodes": [{"number": n, "repository": {"nameWithOwner": self.repository}} for n in pull["_closes"]]
            },
        }
