"""The ``github`` source: a repository's commits from GitHub's REST API, for those who cannot or will not clone."""

from __future__ import annotations

from collections.abc import Callable, Coroutine, Generator, Sequence
from datetime import timedelta
from typing import Any, TypeVar

from repodaily.models import Commit
from repodaily.sources.base import Opened, SourceContext, Window
from repodaily.sources.github.reader import CommitReader
from repodaily.sources.github.session import Session
from repodaily.sources.github.settings import GitHubSourceSettings
from repodaily.sources.windows import bucket, check_windows

__all__ = ["GitHubSource"]

# The listing, like `git log --since`, ends a line of history at its first commit older
# than `since`, and committer dates on a branch are not monotonic (a fast-forward push
# can carry a commit made days earlier): the git source's slack, for the same days.
_WINDOW_SLACK = timedelta(days=2)
_T = TypeVar("_T")


class GitHubSource:
    """:class:`~repodaily.sources.base.Source` over GitHub's REST API: a listing per span, a request per commit.

    It is a :class:`~repodaily.sources.base.TreeSource` too: one request per tree.
    """

    def __init__(self, *, settings: GitHubSourceSettings, context: SourceContext) -> None:
        self.settings = settings
        self.context = context
        self._opened: Opened | None = None

    def open(self) -> Opened:
        """The repository's name as GitHub spells it and the branch read: one request."""
        name, default_branch = self._once(lambda reader: reader.repository())
        self._opened = Opened(name=name, branch=self.settings.branch or default_branch)
        return self._opened

    def tree_paths(self, sha: str) -> list[str]:
        """:class:`~repodaily.sources.base.TreeSource`: the files of ``sha``'s tree, one request."""
        return self._once(lambda reader: reader.tree_paths(sha))

    def collect_days(self, windows: Sequence[Window]) -> Generator[tuple[int, list[Commit]], None, None]:
        """Each window's commits, newest first; the span's listing first, then each day's commits as it is read."""
        check_windows(windows)
        if not windows:
            return
        branch = (self._opened or self.open()).branch
        session = Session(self.settings, self.context)
        try:
            reader = self._reader(session)
            chain = session.run(reader.first_parent(branch, since=windows[0][0] - _WINDOW_SLACK))
            for index, shas in enumerate(bucket(chain, windows)):
                session.client.new_budget()
                yield index, session.run(reader.commits(shas))
        finally:
            session.close()

    def _once(self, work: Callable[[CommitReader], Coroutine[Any, Any, _T]]) -> _T:
        """What ``work`` asks of GitHub, in a session of its own."""
        session = Session(self.settings, self.context)
        try:
            return session.run(work(self._reader(session)))
        finally:
            session.close()

    def _reader(self, session: Session) -> CommitReader:
        return CommitReader(session.client, self.settings.repository, self.context.max_patch_bytes)
