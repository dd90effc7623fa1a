"""The GitHub context source: each commit's pull request and the day's releases, or as much as GitHub allows.

Which pull request a commit came from is read first from the commit itself: the
``(#N)`` suffix GitHub's squash merges write, or a merge commit's ``Merge pull
request #N``; only a commit naming none costs a lookup
(``GET …/commits/{sha}/pulls``). The numbers are then fetched together
(:mod:`.fetch`).

When GitHub stops answering (the hourly limit of an anonymous caller used up, a
secondary limit that asks for more than ``max_wait_s``, a refused token), the
source says so in one line and asks nothing more for the rest of the run; each
report after that is complete but for its pull-request context, and says so.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from collections.abc import Sequence
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from repodaily.context.base import ContextSourceContext, DayContext
from repodaily.context.github.settings import GitHubContextSettings
from repodaily.models import Commit, PullRequest

if TYPE_CHECKING:
    from repodaily.context.github.fetch import GitHubReader
    from repodaily.publish.github.client import GitHubClient

__all__ = ["GitHubContext"]

log = logging.getLogger(__name__)


class GitHubContext:
    """Pull requests and releases of the repositories on one GitHub API, for one run."""

    def __init__(self, settings: GitHubContextSettings, context: ContextSourceContext) -> None:
        self._settings = settings
        self._context = context
        self._token = settings.token(context.environ) is not None
        # Made when a day is first asked for: a run that serves no repository (no token, by
        # default) loads no HTTP client and no TLS certificates.
        self._client: GitHubClient | None = None
        self._said_stopped = False

    def serves(self, repo: str, web_url: str | None) -> bool:
        return self._settings.serves(repo, web_url, token=self._token)

    @functools.cached_property
    def _reader(self) -> GitHubReader:
        from repodaily.context.github.fetch import GitHubReader
        from repodaily.publish.github.client import GitHubClient

        settings, context = self._settings, self._context
        self._client = GitHubClient.reading(
            f"GitHub context ({settings.api_url})",
            settings,
            max_wait_s=settings.max_wait_s,
            environ=context.environ,
            redact=context.redact,
        )
        return GitHubReader(
            self._client,
            context.cache,
            source=f"github {settings.api_url}",
            fresh=timedelta(days=settings.fresh_days),
            graphql=self._token,
            max_in_flight=settings.max_in_flight,
        )

    async def day(self, repo: str, commits: Sequence[Commit], start: datetime, end: datetime) -> DayContext:
        """The pull request of each of ``commits`` that has one, and the releases published in [``start``, ``end``]."""
        reader = self._reader
        assert self._client is not None  # made with the reader
        self._client.new_budget()
        named = {commit.sha: commit.pr_number for commit in commits if commit.pr_number is not None}
        unnamed = [commit.sha for commit in commits if commit.pr_number is None]
        by_number, releases, found = await asyncio.gather(
            reader.pulls(repo, list(named.values())),
            reader.releases(repo, start, end),
            asyncio.gather(*(reader.commit_pull(repo, sha) for sha in unnamed)),
        )
        pulls = {sha: pull for sha, number in named.items() if (pull := by_number.get(number)) is not None}
        pulls.update({sha: pull for sha, pull in zip(unnamed, found, strict=True) if isinstance(pull, PullRequest)})
        if reader.stopped is not None and not self._said_stopped:
            self._said_stopped = True
            log.warning("no more pull-request context this run, reports say so: %s", reader.stopped)
        return DayContext(
            pulls=pulls,
            releases=releases if isinstance(releases, list) else [],
            complete=reader.stopped is None,
        )

    async def aclose(self) -> None:
        if self._client is not None:
            await self._client.aclose()
