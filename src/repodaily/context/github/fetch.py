"""GitHub's answers through the store's cache: fresh ones reused, stale ones revalidated, new ones batched.

Three rules keep a daily run to a handful of requests, most of them free:

- **Fresh answers are not asked for again.** A merged pull request is closed
  for good; what can still change (a label added in triage, a typo fixed) rarely
  does, and never changes what the commit did. So one cached less than
  ``fresh_days`` ago is used as it is, and so is a number known to be no pull
  request, or a commit known to have none: a rerun of the same day sends nothing.
- **Stale answers are revalidated.** A cached answer with an ``ETag`` (or a
  ``Last-Modified``) is asked for again conditionally; GitHub answers 304 when
  nothing changed, and a 304 does not count against the rate limit.
- **New pull requests are fetched together.** With a token, one GraphQL request
  per :data:`~.pulls.BATCH` numbers; without one (GraphQL refuses anonymous
  callers), or where the API has no GraphQL, one REST request each. A GraphQL
  answer carries no validators, so the pull request's ``updatedAt`` is kept as
  its ``Last-Modified``: revalidating it later by REST is conditional all the same.

At most ``max_in_flight`` requests are open at once. The first failure that is
not an answer (a rate limit longer than the waits allowed, a refused token, a
timeout) stops the reader for the rest of the run: :attr:`GitHubReader.stopped`
says why, and nothing more is asked.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any, TypeVar

from repodaily.context.base import CachedAnswer, ContextCache
from repodaily.context.github.pulls import BATCH, from_graphql, from_rest, graphql_query, merge_commit_pull, when
from repodaily.context.github.releases import page_releases, reaches_before
from repodaily.errors import PublishError
from repodaily.models import PullRequest, Release
from repodaily.publish.github.client import GitHubClient, GitHubError, Reply

__all__ = ["NOT_ASKED", "GitHubReader"]

log = logging.getLogger(__name__)
_T = TypeVar("_T")


class _NotAsked:
    """What a request the stopped reader did not send returns: distinct from None, an answer that there is none."""


NOT_ASKED = _NotAsked()
# GraphQL is not there to use: refused without a token (401), absent on the API (404), or not allowed (403).
_NO_GRAPHQL = frozenset({401, 403, 404})
# Pages of releases read at most for one day: a project publishing more than 500 releases after it is rare.
_MAX_RELEASE_PAGES = 5


class GitHubReader:
    """Pull requests and releases of the repositories on one GitHub API, for one run."""

    def __init__(
        self,
        client: GitHubClient,
        cache: ContextCache,
        *,
        source: str,
        fresh: timedelta,
        graphql: bool,
        max_in_flight: int,
    ) -> None:
        self._client = client
        self._cache = cache
        self._source = source
        self._fresh = fresh
        self._graphql = graphql
        self._slots = asyncio.Semaphore(max_in_flight)
        #: Why the reader stopped asking, once it has: one line, redacted.
        self.stopped: str | None = None

    async def _guarded(self, request: Callable[[], Awaitable[_T]]) -> _T | _NotAsked:
        """``request`` within the in-flight bound, unless the reader has stopped; a failure stops it."""
        if self.stopped is not None:
            return NOT_ASKED
        async with self._slots:
            if self.stopped is not None:
                return NOT_ASKED
            try:
                return await request()
            except PublishError as exc:  # the client's errors (it was the publishers' first): one line, redacted
                self.stopped = str(exc)
            except (KeyError, TypeError, ValueError) as exc:  # an answer not of the shape GitHub gives
                self.stopped = f"{self._client.target}: an answer GitHub's API does not give ({type(exc).__name__})"
            return NOT_ASKED

    # -- pull requests by number

    async def pulls(self, repo: str, numbers: Sequence[int]) -> dict[int, PullRequest | None]:
        """The pull request of each of ``numbers`` (None: there is none); a number left out was not asked."""
        found: dict[int, PullRequest | None] = {}
        stale: dict[int, CachedAnswer | None] = {}
        unknown: list[int] = []
        for number in dict.fromkeys(numbers):
            cached = self._cached_pull(_pull_key(repo, number))
            if cached is not None and self._is_fresh(*cached):
                found[number] = cached[1]
            elif cached is not None and (cached[0].etag or cached[0].last_modified):
                stale[number] = cached[0]
            else:
                unknown.append(number)
        if self._graphql and unknown:
            batches = [unknown[i : i + BATCH] for i in range(0, len(unknown), BATCH)]
            for answer in await asyncio.gather(*(self._guarded(self._batch(repo, b)) for b in batches)):
                found.update({} if isinstance(answer, _NotAsked) else answer)
        asked = {**{n: None for n in unknown if n not in found}, **stale}
        answers = await asyncio.gather(*(self._guarded(self._one(repo, n, c)) for n, c in asked.items()))
        found.update({n: pull for n, pull in zip(asked, answers, strict=True) if not isinstance(pull, _NotAsked)})
        return found

    def _batch(self, repo: str, numbers: list[int]) -> Callable[[], Awaitable[dict[int, PullRequest | None]]]:
        return lambda: self._graphql_batch(repo, numbers)

    def _one(self, repo: str, number: int, cached: CachedAnswer | None) -> Callable[[], Awaitable[PullRequest | None]]:
        return lambda: self._rest_pull(repo, number, cached)

    async def _graphql_batch(self, repo: str, numbers: list[int]) -> dict[int, PullRequest | None]:
        """``numbers`` in one GraphQL request; empty when GraphQL turns out not to be there (REST takes over)."""
        if not self._graphql:
            return {}
        owner, name = repo.split("/", 1)
        try:
            reply = await self._client.graphql(graphql_query(numbers), {"owner": owner, "name": name})
        except GitHubError as exc:
            if exc.status not in _NO_GRAPHQL:
                raise
            if self._graphql:
                log.info("GitHub GraphQL is not available (HTTP %d): pull requests are read one by one", exc.status)
            self._graphql = False
            return {}
        data = reply.data if isinstance(reply.data, dict) else {}
        errors = [e for e in data.get("errors") or [] if not (isinstance(e, dict) and e.get("type") == "NOT_FOUND")]
        if errors:
            said = errors[0].get("message") if isinstance(errors[0], dict) else errors[0]
            raise PublishError(f"{self._client.target}: GraphQL: {self._client.redact(str(said))[:300]}")
        nodes = (data.get("data") or {}).get("repository") or {}
        found: dict[int, PullRequest | None] = {}
        for number in numbers:
            node = nodes.get(f"pr{number}")
            found[number] = self._masked(from_graphql(repo, node)) if isinstance(node, dict) else None
            updated = when(node.get("updatedAt")) if isinstance(node, dict) else None
            modified = format_datetime(updated.astimezone(UTC), usegmt=True) if updated else None
            self._keep(_pull_key(repo, number), found[number], last_modified=modified)
        return found

    async def _rest_pull(self, repo: str, number: int, cached: CachedAnswer | None) -> PullRequest | None:
        path = f"{GitHubClient.repo_path(repo)}/pulls/{number}"
        reply = await self._client.call("GET", path, expect=(200, 304, 404), headers=_conditions(cached))
        return self._answer(_pull_key(repo, number), reply, cached, lambda data: from_rest(repo, data))

    # -- the pull request of a commit that names none

    async def commit_pull(self, repo: str, sha: str) -> PullRequest | None | _NotAsked:
        """The pull request that merged commit ``sha``: None when none did, :data:`NOT_ASKED` when stopped."""
        key = f"{repo}/commit/{sha}"
        cached = self._cached_pull(key)
        if cached is not None and self._is_fresh(*cached):
            return cached[1]
        return await self._guarded(lambda: self._rest_commit_pull(repo, sha, key, cached[0] if cached else None))

    async def _rest_commit_pull(self, repo: str, sha: str, key: str, cached: CachedAnswer | None) -> PullRequest | None:
        path = f"{GitHubClient.repo_path(repo)}/commits/{sha}/pulls"
        # 422: GitHub does not know the commit (not pushed there); as good as no pull request.
        reply = await self._client.call("GET", path, expect=(200, 304, 404, 422), headers=_conditions(cached))
        return self._answer(key, reply, cached, lambda data: merge_commit_pull(repo, sha, data))

    # -- releases

    async def releases(self, repo: str, start: datetime, end: datetime) -> list[Release] | _NotAsked:
        """The releases published in [``start``, ``end``], oldest first; :data:`NOT_ASKED` when stopped."""
        return await self._guarded(lambda: self._releases(repo, start, end))

    async def _releases(self, repo: str, start: datetime, end: datetime) -> list[Release]:
        path: str | None = f"{GitHubClient.repo_path(repo)}/releases?per_page=100"
        published: list[Release] = []
        for _ in range(_MAX_RELEASE_PAGES):
            if path is None:
                break
            page, path = await self._release_page(repo, path)
            published += [r for r in page_releases(page) if r.published_at and start <= r.published_at <= end]
            if reaches_before(page, start):
                break
        return sorted(published, key=lambda release: release.published_at or start)

    async def _release_page(self, repo: str, path: str) -> tuple[list[Any], str | None]:
        """One page of the listing (as kept: the items we read) and the path of the next, conditional when cached."""
        key = f"{repo}/releases {path}"
        cached = self._cache.get_context(self._source, key)
        kept = _read_page(cached.payload) if cached is not None else None
        reply = await self._client.call("GET", path, expect=(200, 304), headers=_conditions(cached if kept else None))
        if reply.status == 304 and cached is not None and kept is not None:
            self._renew(key, cached)
            return kept
        listed = reply.data if isinstance(reply.data, list) else []
        items = [_release_item(item) for item in listed if isinstance(item, dict)]
        following = self._client.relative(reply.next)
        self._cache.put_context(self._source, key, _kept({"items": items, "next": following}, reply))
        return items, following

    # -- the cache

    def _cached_pull(self, key: str) -> tuple[CachedAnswer, PullRequest | None] | None:
        """The answer kept under ``key`` and the pull request it holds; None when none is kept or it does not read."""
        cached = self._cache.get_context(self._source, key)
        if cached is None:
            return None
        try:
            return cached, _read_pull(cached.payload)
        except ValueError:  # edited by hand, or kept by a release whose models differed: asked again
            return None

    def _is_fresh(self, cached: CachedAnswer, pull: PullRequest | None) -> bool:
        """A merged pull request, or the word that there is none, fetched less than ``fresh_days`` ago."""
        return datetime.now(UTC) - cached.fetched_at <= self._fresh and (pull is None or pull.merged_at is not None)

    def _answer(
        self, key: str, reply: Reply, cached: CachedAnswer | None, read: Callable[[Any], PullRequest | None]
    ) -> PullRequest | None:
        """The pull request a reply means: the cached one on a 304, else what ``read`` makes of it, kept."""
        if reply.status == 304 and cached is not None:
            self._renew(key, cached)
            return _read_pull(cached.payload)
        pull = self._masked(read(reply.data)) if reply.status == 200 and reply.data is not None else None
        self._cache.put_context(self._source, key, _kept(pull, reply))
        return pull

    def _masked(self, pull: PullRequest | None) -> PullRequest | None:
        """``pull`` with every credential the run knows masked in its author's text: a token pasted into a
        description must reach neither the store nor a model's prompt."""
        if pull is None:
            return None
        redact = self._client.redact
        return pull.model_copy(
            update={"title": redact(pull.title), "body": redact(pull.body), "labels": [redact(n) for n in pull.labels]}
        )

    def _keep(self, key: str, pull: PullRequest | None, *, last_modified: str | None) -> None:
        payload = pull.model_dump_json() if pull is not None else "null"
        self._cache.put_context(self._source, key, CachedAnswer(payload, datetime.now(UTC), None, last_modified))

    def _renew(self, key: str, cached: CachedAnswer) -> None:
        """A 304: the cached answer holds, as of now."""
        self._cache.put_context(self._source, key, replace(cached, fetched_at=datetime.now(UTC)))


def _pull_key(repo: str, number: int) -> str:
    return f"{repo}/pull/{number}"


def _read_pull(payload: str) -> PullRequest | None:
    data = json.loads(payload)
    return None if data is None else PullRequest.model_validate(data)


def _read_page(payload: str) -> tuple[list[Any], str | None] | None:
    """A kept page of releases: its items and the path of the next; None when it does not read."""
    try:
        kept = json.loads(payload)
        return list(kept["items"]), kept["next"]
    except (ValueError, KeyError, TypeError):
        return None


def _conditions(cached: CachedAnswer | None) -> dict[str, str]:
    """The headers that make a request conditional on ``cached`` still holding."""
    if cached is None:
        return {}
    if cached.etag:
        return {"If-None-Match": cached.etag}
    return {"If-Modified-Since": cached.last_modified} if cached.last_modified else {}


def _kept(value: PullRequest | dict[str, Any] | None, reply: Reply) -> CachedAnswer:
    """What to keep of ``reply``: ``value`` and the reply's validators (a 404 has none: it is kept as fetched)."""
    payload = value.model_dump_json() if isinstance(value, PullRequest) else json.dumps(value)
    ok = reply.status == 200
    etag = reply.headers.get("etag") if ok else None
    return CachedAnswer(payload, datetime.now(UTC), etag, reply.headers.get("last-modified") if ok else None)


def _release_item(item: dict[str, Any]) -> dict[str, Any]:
    """The fields of a release the report reads: a page is kept this small, not as GitHub sent it."""
    fields = ("tag_name", "name", "html_url", "published_at", "created_at", "prerelease", "draft")
    return {name: item.get(name) for name in fields}
