"""The requests of the ``github`` source: the repository, the branch's tip, the listing, each commit.

The window is cut as the git source cuts it: the first-parent chain of the
branch, each commit by its committer date. GitHub's listing
(``GET …/commits?sha=&since=``) holds every commit reachable from the tip in
its time, side branches' included, newest first by date, a hundred a page; the
chain is walked through it from the tip by ``parents[0]``, so a commit of a
merged branch is never reported, however its date falls. The listing is not
bounded by ``until``: the chain from the tip down to a past day passes through
the commits made since, and without them a branch merged after that day could
not be told from the default branch.

Each commit of the chain in a window costs one request for its files, plus one
a page of 300 files past the first 300; GitHub lists at most 3,000 files of a
commit, and one that reaches them is marked ``files_incomplete``.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from repodaily.models import Commit
from repodaily.publish.github.client import GitHubClient
from repodaily.sources.github.files import commit_from, file_change, when

__all__ = ["MAX_FILES", "CommitReader"]

#: The most files GitHub lists of one commit, over its pages of 300.
MAX_FILES = 3000


class CommitReader:
    """One repository's commits through ``client``; every error is the client's (a ``PublishError``)."""

    def __init__(self, client: GitHubClient, repository: str, max_patch_bytes: int) -> None:
        self._client = client
        self._path = GitHubClient.repo_path(repository)
        self._max_patch_bytes = max_patch_bytes

    async def repository(self) -> tuple[str, str]:
        """The repository's ``owner/name`` as GitHub spells it, and its default branch."""
        data = (await self._client.call("GET", self._path)).data
        return str(data["full_name"]), str(data["default_branch"])

    async def first_parent(self, branch: str, since: datetime) -> list[tuple[str, float]]:
        """``(SHA, committer timestamp)`` of the branch's first-parent chain from its tip to ``since``, newest first.

        GitHub's listing stops a line of history at its first commit older than
        ``since`` (as ``git log --since`` does), so the chain ends there too.
        """
        tip = (await self._client.call("GET", f"{self._path}/branches/{branch}")).data["commit"]["sha"]
        stamp = since.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        listed: dict[str, tuple[str | None, float]] = {}
        async for item in self._client.pages(f"{self._path}/commits", {"sha": tip, "since": stamp}):
            parents = item["parents"]
            listed[item["sha"]] = (parents[0]["sha"] if parents else None, _committed(item))
        chain: list[tuple[str, float]] = []
        sha: str | None = tip
        while sha is not None and sha in listed:
            parent, committed = listed.pop(sha)
            chain.append((sha, committed))
            sha = parent
        return chain

    async def tree_paths(self, sha: str) -> list[str]:
        """Every file path in the tree of commit ``sha``: one request, which reads no file."""
        reply = await self._client.call("GET", f"{self._path}/git/trees/{sha}", params={"recursive": "1"})
        return [str(entry["path"]) for entry in reply.data["tree"] if entry["type"] != "tree"]

    async def commits(self, shas: Sequence[str]) -> list[Commit]:
        """Each of ``shas`` with its files, in that order; one after another, as GitHub asks of its callers."""
        return [await self._commit(sha) for sha in shas]

    async def _commit(self, sha: str) -> Commit:
        reply = await self._client.call("GET", f"{self._path}/commits/{sha}")
        entries: list[Any] = list(reply.data.get("files") or [])
        read: set[str] = set()
        following = self._client.following(reply, read)
        while following is not None:
            page = await self._client.call("GET", following)
            entries += page.data.get("files") or []
            following = self._client.following(page, read)
        files = [file_change(entry, self._max_patch_bytes) for entry in entries]
        return commit_from(reply.data, files, files_incomplete=len(entries) >= MAX_FILES)


def _committed(item: Any) -> float:
    return when(item["commit"]["committer"]["date"]).timestamp()
