"""One GitHub client on a private event loop, for a source whose protocol is synchronous.

The pipeline calls a source from inside its own event loop, where
``asyncio.run`` cannot start another; the client of the publishers and the
context source (:class:`~repodaily.publish.github.client.GitHubClient`) is
asynchronous. So each session runs its coroutines on a loop of its own, on one
worker thread, and the caller waits as it waits for git. Errors are mapped
here, at the edge: the client's become :class:`~repodaily.errors.SourceError`
in one line, and so does an answer of a shape GitHub does not give. An
interrupted run cancels what the loop is doing (a rate-limit wait may be long),
so the worker thread does not outlive it (:mod:`repodaily.interrupts`).
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from repodaily.errors import PublishError, SourceError
from repodaily.interrupts import stoppable
from repodaily.publish.github.client import GitHubClient
from repodaily.sources.base import SourceContext
from repodaily.sources.github.settings import GitHubSourceSettings

__all__ = ["Session"]

_T = TypeVar("_T")


class Session:
    """A client for one repository and the loop it runs on; :meth:`close` ends both."""

    def __init__(self, settings: GitHubSourceSettings, context: SourceContext) -> None:
        self.client = GitHubClient.reading(
            f"github source {settings.repository}",
            settings,
            max_wait_s=settings.max_wait_s,
            environ=context.environ,
            redact=context.redact,
        )
        self._loop = asyncio.new_event_loop()
        self._worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="github-source")

    def run(self, work: Coroutine[Any, Any, _T]) -> _T:
        """The result of ``work``, run to its end on the session's loop."""
        try:
            with stoppable(lambda: self._loop.call_soon_threadsafe(_cancel_tasks, self._loop)):
                return self._worker.submit(self._loop.run_until_complete, work).result()
        except PublishError as exc:
            raise SourceError(str(exc)) from exc
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise SourceError(
                f"{self.client.target}: an answer GitHub's API does not give ({type(exc).__name__})"
            ) from exc

    def close(self) -> None:
        try:
            self._worker.submit(self._loop.run_until_complete, self.client.aclose()).result()
        finally:
            self._worker.submit(self._loop.close).result()
            self._worker.shutdown()


def _cancel_tasks(loop: asyncio.AbstractEventLoop) -> None:
    for task in asyncio.all_tasks(loop):
        task.cancel()
