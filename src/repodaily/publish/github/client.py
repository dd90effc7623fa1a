"""The GitHub client the publishers and the GitHub context source share: headers, deadlines, rate limits, errors.

Every request carries ``Accept: application/vnd.github+json``, the API version
it was written against (``X-GitHub-Api-Version: 2022-11-28``) and the token, if
there is one, as ``Authorization: Bearer`` (public repositories are read
without). The token goes nowhere else: every text taken from an answer is
redacted before it can reach an error message, and a pagination link is
followed only while it stays on the configured API, so the header never
travels to another host.

GitHub limits a token in two ways, and says which in its answers:

- the primary limit, requests per hour: ``x-ratelimit-remaining`` falls to 0 and
  ``x-ratelimit-reset`` gives the epoch second it refills. A refusal (403/429)
  with a remaining count of 0 waits until then; so does the next request after
  an answer that used the last one, before it is sent.
- secondary limits, on bursts and on content creation: 403/429 with
  ``retry-after`` seconds, or, without it, at least a minute (GitHub's advice).

A wait is taken only while the report's total stays within ``max_wait_s``
(:meth:`GitHubClient.new_budget` starts a report's count); a longer one fails at
once (:class:`RateLimited`) with one line saying when GitHub will take requests again, rather than
holding a daily run for an hour. Nothing else is retried here: a request that
changes something and got no answer may have done it, and each publisher finds
its own earlier work on the next run instead (a blob SHA, an issue marker).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import AsyncIterator, Callable, Collection, Mapping
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from typing import Any
from urllib.parse import quote

import httpx

from repodaily import json_input
from repodaily.errors import PublishError
from repodaily.publish.base import PublishContext
from repodaily.publish.github.settings import Access, GitHubReadSettings, GitHubSettings
from repodaily.redact import Redactor
from repodaily.waits import server_wait

__all__ = ["API_VERSION", "GitHubClient", "GitHubError", "RateLimited", "Reply", "RepositoryPublisher"]

API_VERSION = "2022-11-28"
_MEDIA_TYPE = "application/vnd.github+json"
# A refusal without a retry-after: GitHub asks for at least a minute.
_SECONDARY_WAIT_S = 60.0
# The reset is a whole second; waking on it can still be a moment early.
_RESET_MARGIN_S = 1.0
# Refusals answered by a wait, per request, however short the waits (a retry-after of 0 repeated).
_MAX_ATTEMPTS = 5
# A page of 100 issues with 65,536-character bodies is about 26 MB of UTF-8; no answer we ask for is larger.
_MAX_BODY_BYTES = 64 * 1024 * 1024
_MESSAGE_CHARS = 300
_RATE_STATUS = frozenset({403, 429})
# A read GitHub failed to answer (a dropped connection, a gateway's 502): asked again after these waits.
# Writes are not: one whose answer was lost may have been made, and a second would conflict or repeat it.
_TRANSIENT_STATUS = frozenset({500, 502, 503, 504})
_TRANSIENT_WAITS_S = (1.0, 4.0)


class GitHubError(PublishError):
    """GitHub answered with a status the caller did not expect; ``status`` says which."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


class RateLimited(GitHubError):
    """GitHub refuses requests for longer than the waits allowed: asking again now is pointless."""


class _Lost(PublishError):
    """No answer came: the connection was refused or dropped before the body's last byte."""


@dataclass(frozen=True)
class _Request:
    """One request as sent (and sent again after a rate-limit wait); ``path`` names it in errors."""

    method: str
    url: str
    path: str
    params: Mapping[str, str] | None = None
    body: Any = None
    headers: Mapping[str, str] | None = None


@dataclass(frozen=True)
class Reply:
    """One answer: its status, its JSON (None for an empty body), its headers, the next page's URL if any."""

    status: int
    data: Any
    headers: httpx.Headers
    next: str | None = None


def _message(data: Any) -> str:
    """GitHub's own words from an error body: its message and those of each validation error."""
    if not isinstance(data, dict):
        return ""
    details = [
        str(error.get("message") or error.get("code") or "") if isinstance(error, dict) else str(error)
        for error in data.get("errors") or []
    ]
    words = ": ".join(filter(None, [str(data.get("message") or ""), "; ".join(filter(None, details))]))
    return " ".join(words.split())


def _server_now(headers: Mapping[str, str]) -> float:
    """The server's clock from its Date header (ours may be off), else ours."""
    try:
        return parsedate_to_datetime(headers["date"]).timestamp()
    except (KeyError, TypeError, ValueError):
        return time.time()


def _reset_in(headers: Mapping[str, str]) -> float | None:
    """Seconds until the primary limit refills, when the answer says it is used up."""
    if headers.get("x-ratelimit-remaining", "").strip() != "0":
        return None
    try:
        reset = float(headers["x-ratelimit-reset"])
    except (KeyError, ValueError):
        return _SECONDARY_WAIT_S
    return max(reset - _server_now(headers), 0.0) + _RESET_MARGIN_S


def _refusal_wait(status: int, headers: Mapping[str, str], message: str) -> tuple[str, float] | None:
    """Which limit refused a request and how long to wait, or None when the refusal is not a rate limit."""
    if status not in _RATE_STATUS:
        return None
    if (reset := _reset_in(headers)) is not None:
        return "primary", reset
    if (asked := server_wait(headers, refused=True)) is not None:  # Retry-After, in seconds or as an HTTP date
        return "secondary", asked
    if "retry-after" in headers or status == 429 or "rate limit" in message.lower():
        return "secondary", _SECONDARY_WAIT_S
    return None  # a 403 that is about permissions


class GitHubClient:
    """Requests to one GitHub API for one publisher, named ``target`` in every error."""

    def __init__(
        self,
        *,
        target: str,
        api_url: str,
        token: str | None,
        timeout_s: float,
        max_wait_s: float,
        redact: Callable[[str], str],
    ) -> None:
        self.target = target
        self._api_url = api_url
        self._timeout_s = timeout_s
        self._max_wait_s = max_wait_s
        #: Masks every credential the run knows, and this token whatever the run knows: for all we send or say.
        self.redact = redact
        headers = {"Accept": _MEDIA_TYPE, "X-GitHub-Api-Version": API_VERSION}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        # No per-read timeouts: each request runs under one deadline for the whole exchange.
        self._http = httpx.AsyncClient(headers=headers, timeout=None)
        self._waited = 0.0
        self._paused_until: float | None = None  # monotonic time the used-up primary limit refills

    @classmethod
    def connect(
        cls, publisher: str, settings: GitHubSettings, environ: Mapping[str, str], redact: Callable[[str], str]
    ) -> tuple[GitHubClient, str]:
        """A client for ``publisher`` and the repository it publishes into, from its settings and the environment.

        Its :attr:`redact`, for its errors and for what the publisher sends, masks what ``redact`` (the
        run's) does and the token itself, whatever the run's knows.
        """
        access = Access.of(publisher, settings, environ)
        own = Redactor([access.token])
        client = cls(
            target=f"{publisher} {access.repository}",
            api_url=settings.api_url,
            token=access.token,
            timeout_s=settings.timeout_s,
            max_wait_s=settings.max_wait_s,
            redact=lambda text: own(redact(text)),
        )
        return client, access.repository

    @classmethod
    def reading(
        cls,
        target: str,
        settings: GitHubReadSettings,
        *,
        max_wait_s: float,
        environ: Mapping[str, str],
        redact: Callable[[str], str],
    ) -> GitHubClient:
        """A client that reads with the token ``settings`` name, or none; its :attr:`redact` masks that token too."""
        token = settings.token(environ)
        own = Redactor([token] if token else [])
        return cls(
            target=target,
            api_url=settings.api_url,
            token=token,
            timeout_s=settings.timeout_s,
            max_wait_s=max_wait_s,
            redact=lambda text: own(redact(text)),
        )

    @staticmethod
    def repo_path(repository: str) -> str:
        """The API path of a repository: ``/repos/owner/name``."""
        owner, _, name = repository.partition("/")
        return f"/repos/{quote(owner, safe='')}/{quote(name, safe='')}"

    def new_budget(self) -> None:
        """A new report begins: its waits for rate limits count from zero."""
        self._waited = 0.0

    async def call(
        self,
        method: str,
        path: str,
        *,
        params: Mapping[str, str] | None = None,
        body: Any = None,
        expect: Collection[int] = (200,),
        headers: Mapping[str, str] | None = None,
    ) -> Reply:
        """One request to ``path`` (under the API URL); :class:`GitHubError` for a status not in ``expect``.

        ``headers`` add to ours: ``If-None-Match`` makes a conditional request, whose 304 costs no rate limit.
        """
        return await self._call(_Request(method, f"{self._api_url}{path}", path, params, body, headers), expect)

    @property
    def graphql_url(self) -> str:
        """The GraphQL endpoint beside this REST API: ``/graphql`` on github.com, ``/api/graphql`` on Enterprise."""
        if self._api_url.endswith("/api/v3"):
            return self._api_url.removesuffix("/v3") + "/graphql"
        return f"{self._api_url}/graphql"

    async def graphql(self, query: str, variables: Mapping[str, Any]) -> Reply:
        """One GraphQL query; its ``errors`` (a field not found, a limit) are the caller's to read in the answer."""
        body = {"query": query, "variables": dict(variables)}
        return await self._call(_Request("POST", self.graphql_url, "/graphql", body=body), (200,))

    async def rate_limit_left(self) -> str:
        """What is left of the hour's requests, as ``doctor`` shows it; asking costs nothing against it."""
        reply = await self.call("GET", "/rate_limit")
        data: dict[str, Any] = reply.data if isinstance(reply.data, dict) else {}
        core = (data.get("resources") or {}).get("core") or {}
        return f"{core.get('remaining', '?')} of {core.get('limit', '?')} left"

    def relative(self, url: str | None) -> str | None:
        """The path of ``url`` (a pagination link) under this API; None when it leads elsewhere, where no token goes."""
        if url is None or not url.startswith(f"{self._api_url}/"):
            return None
        return url.removeprefix(self._api_url)

    def following(self, reply: Reply, read: set[str]) -> str | None:
        """The path of the page after ``reply`` (see :meth:`relative`); ``read`` holds the pages followed so far.

        A ``next`` link back to a page already followed (a proxy or server that
        hands out the same link forever) would be read without end, and so would
        pages that repeat one already read under ever new links (a proxy that drops
        the ``page`` asked): either is an error, not the end of the listing, whose
        later items stay unknown.
        """
        path = self.relative(reply.next)
        if path is None:
            return None
        if path in read:
            raise PublishError(f"{self.target}: the next page's link leads back to a page already read: {path}")
        page = "page " + hashlib.sha256(json.dumps(reply.data, sort_keys=True, default=str).encode()).hexdigest()
        if page in read:
            raise PublishError(
                f"{self.target}: a page of the listing repeats one already read (does the server drop `page`?): {path}"
            )
        read.update((path, page))
        return path

    async def pages(self, path: str, params: Mapping[str, str]) -> AsyncIterator[Any]:
        """Every item of a listing, 100 a page, following the ``next`` links while they stay on this API."""
        url: str | None = f"{self._api_url}{path}"
        query: Mapping[str, str] | None = {**params, "per_page": "100"}
        read: set[str] = set()
        while url is not None:
            reply = await self._call(_Request("GET", url, path, query), (200,))
            if not isinstance(reply.data, list):
                raise PublishError(f"{self.target}: GET {path}: the answer is not a list")
            for item in reply.data:
                yield item
            following = self.following(reply, read)
            url, query = (f"{self._api_url}{following}", None) if following is not None else (None, None)

    async def _call(self, request: _Request, expect: Collection[int]) -> Reply:
        method, path = request.method, request.path
        for attempt in range(1, _MAX_ATTEMPTS + 1):
            await self._until_refilled()
            reply = await self._read_again_if_lost(request)
            if (reset := _reset_in(reply.headers)) is not None and reply.status not in _RATE_STATUS:
                self._paused_until = time.monotonic() + reset  # that was the last request of the hour
            if reply.status in expect:
                return reply
            message = self.redact(_message(reply.data))
            if (refusal := _refusal_wait(reply.status, reply.headers, message)) is None:
                raise self._error(method, path, reply.status, message)
            if attempt == _MAX_ATTEMPTS:
                break
            limit, seconds = refusal
            await self._wait(seconds, f"the {limit} rate limit")
        raise RateLimited(f"{self.target}: {method} {path}: still rate limited after {_MAX_ATTEMPTS} attempts", 429)

    async def _read_again_if_lost(self, request: _Request) -> Reply:
        """The exchange; a read whose answer was lost (a dropped connection, a 5xx) is sent again, twice at most.

        A deadline that passes is not a lost answer: a server that hangs would hang again.
        """
        reads = request.method == "GET" or request.url == self.graphql_url  # our GraphQL only queries
        waits = list(_TRANSIENT_WAITS_S) if reads else []
        while True:
            try:
                reply = await self._exchange(request)
            except _Lost as exc:
                if not waits:
                    raise
                await self._wait(waits.pop(0), f"a lost answer ({exc})")
                continue
            if reply.status not in _TRANSIENT_STATUS or not waits:
                return reply
            await self._wait(waits.pop(0), f"HTTP {reply.status}")

    async def _until_refilled(self) -> None:
        if self._paused_until is not None:
            pause, self._paused_until = self._paused_until - time.monotonic(), None
            if pause > 0:
                await self._wait(pause, "the primary rate limit (used up)")

    async def _wait(self, seconds: float, why: str) -> None:
        if self._waited + seconds > self._max_wait_s:
            # The budget is the report's: name what it already spent, or a wait shorter than it reads as a bug.
            spent = f" after {self._waited:.0f} s of waits" if self._waited >= 1 else ""
            raise RateLimited(
                f"{self.target}: GitHub refuses requests for {seconds:.0f} s ({why}){spent}, more than "
                f"max_wait_s = {self._max_wait_s:g} s allows for a report; try again later",
                429,
            )
        self._waited += seconds
        await asyncio.sleep(seconds)

    def _error(self, method: str, path: str, status: int, message: str) -> GitHubError:
        hints = {
            401: "the token was refused",
            403: "the token lacks a permission",
            404: "not found, or the token cannot see it",
        }
        hint = f" ({hints[status]})" if status in hints else ""
        said = f": {message[:_MESSAGE_CHARS]}" if message else ""
        return GitHubError(f"{self.target}: {method} {path}: HTTP {status}{hint}{said}", status)

    async def _exchange(self, request: _Request) -> Reply:
        """One exchange, from connecting to the body's last byte, within the deadline."""
        method, path = request.method, request.path
        try:
            async with asyncio.timeout(self._timeout_s):
                async with self._http.stream(
                    method, request.url, params=request.params, json=request.body, headers=request.headers
                ) as response:
                    chunks, size = [], 0
                    async for chunk in response.aiter_bytes():
                        chunks.append(chunk)
                        size += len(chunk)
                        if size > _MAX_BODY_BYTES:
                            raise PublishError(f"{self.target}: {method} {path}: the answer exceeds 64 MB")
                    content = b"".join(chunks)
        except (TimeoutError, httpx.TimeoutException) as exc:  # a server that hangs costs one deadline, not three
            raise PublishError(f"{self.target}: {method} {path}: no answer within {self._timeout_s:g} s") from exc
        except httpx.TransportError as exc:
            detail = self.redact(str(exc))[:_MESSAGE_CHARS]
            raise _Lost(f"{self.target}: {method} {path}: {type(exc).__name__}: {detail}") from exc
        except httpx.HTTPError as exc:
            detail = self.redact(str(exc))[:_MESSAGE_CHARS]
            raise PublishError(f"{self.target}: {method} {path}: {type(exc).__name__}: {detail}") from exc
        try:
            data = json_input.loads(content) if content.strip() else None
        except ValueError:
            if 200 <= response.status_code < 300:
                raise PublishError(f"{self.target}: {method} {path}: the answer is not JSON") from None
            data = None  # an error page from a proxy: the status says enough
        return Reply(response.status_code, data, response.headers, response.links.get("next", {}).get("url"))

    async def aclose(self) -> None:
        await self._http.aclose()


class RepositoryPublisher:
    """What both GitHub publishers are made of: the run's context, a client, and the repository they publish into."""

    #: The publisher's name, in its errors and deliveries.
    name = ""

    def __init__(self, settings: GitHubSettings, context: PublishContext) -> None:
        self.context = context
        self._client, self.repository = GitHubClient.connect(self.name, settings, context.environ, context.redact)
        self._repo_path = GitHubClient.repo_path(self.repository)

    async def aclose(self) -> None:
        await self._client.aclose()
