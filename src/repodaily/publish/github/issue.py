"""The ``github-issue`` publisher: one issue per repository and day, which a rerun updates in place.

Finding the issue again. Its body begins with a hidden marker,
``<!-- repodaily:owner/name:2026-02-09 -->``. Once a run, the issues carrying
the configured labels are listed (open and closed, oldest first) and each
marker read; the report's issue is the oldest with its marker, and none opens
another. The list rather than the search API: search is eventually consistent,
and misses an issue opened a moment ago, which is just the issue a rerun after
a crash must find; it is also limited to 30 requests a minute. Without labels,
every issue of the repository is listed. Report text cannot forge a marker: the
renderer escapes ``<`` in everything foreign, and only a marker that begins the
body counts. Nor can a stranger: anyone may open an issue or comment whose body
begins with a marker, so only issues and comments written by the token's own
account count (``GET /user``); a token that may not ask who it is — GitHub
Actions' ``GITHUB_TOKEN``, an App's installation token — writes as a bot
account, which no person can be, and then only bots' count.

Long reports. A body or comment holds 65,536 characters. A longer report is
split at its sections (:mod:`.split`): the body holds the first part and one
comment each of the others, each beginning with its own marker
(``<!-- repodaily:owner/name:2026-02-09:2 -->`` for the second part), so a
rerun finds them among people's comments. A link into another part — the table
of contents to a commit whose section moved to a comment — points at that
part's anchor: ``#issuecomment-<id>`` for a comment, ``#issue-<id>`` for the
body, the anchors GitHub gives them on the issue's page. Those ids exist only
once the comment or issue does, so a new issue is opened with the first part
(its links into later parts still naming their report anchors), the comments
are added in order, and then each part whose links can now name their comments
is edited. A rerun knows every id before it writes: it edits only the parts
whose text changed, adds the comments that are missing, deletes its own
comments beyond the new count, and sends no write at all for an unchanged
report. The title is set again when it changed; labels and assignees are given
when the issue is opened and left to people afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from repodaily.errors import ConfigError, PublishError
from repodaily.models import DailyReport
from repodaily.publish.base import Delivery, PublishContext, fill_template
from repodaily.publish.github.client import GitHubError, RepositoryPublisher
from repodaily.publish.github.mentions import quiet_mentions
from repodaily.publish.github.settings import GitHubIssueSettings
from repodaily.publish.github.split import Part, split_markdown
from repodaily.render.base import Artefact

__all__ = ["MAX_CHARS", "GitHubIssuePublisher"]

NAME = "github-issue"
#: What GitHub takes in an issue body and in a comment.
MAX_CHARS = 65_536
#: The longest address a link into another part gets: ``#issuecomment-`` and a 64-bit id.
_HREF_ROOM = len("#issuecomment-") + 20
#: Room left for the marker of a comment numbered up to this.
_LAST_PART = 999_999
_BODY_MARKER = re.compile(r"<!-- repodaily:(\S+) -->\n")


@dataclass(frozen=True)
class _Author:
    """Who the token writes as: its ``login``, or None when it may not ask (it is then a bot account)."""

    login: str | None

    def wrote(self, item: dict[str, Any]) -> bool:
        user = item.get("user")
        if not isinstance(user, dict):
            return False
        if self.login is not None:
            return bool(user.get("login") == self.login)
        return bool(user.get("type") == "Bot")


def _key(report: DailyReport) -> str:
    """The report's name in markers; the repository percent-encoded, so that it cannot end the comment."""
    return f"{quote(report.repo, safe='/')}:{report.date.isoformat()}"


def _marker(key: str, number: int) -> str:
    """The first line of part ``number`` (0 is the body)."""
    return f"<!-- repodaily:{key} -->\n" if number == 0 else f"<!-- repodaily:{key}:{number + 1} -->\n"


def _normal(text: object) -> str:
    """A body as GitHub returns it, with the line ends we send (the web editor stores CRLF)."""
    return str(text or "").replace("\r\n", "\n")


def _markdown(artefacts: Sequence[Artefact]) -> Artefact:
    for artefact in artefacts:
        if artefact.format == "md":
            return artefact
    raise ConfigError(f'{NAME} posts the Markdown report: add "md" to [output] formats')


class GitHubIssuePublisher(RepositoryPublisher):
    """:class:`~repodaily.publish.base.Publisher` keeping one issue per repository and day."""

    name = NAME

    def __init__(self, *, settings: GitHubIssueSettings, context: PublishContext) -> None:
        super().__init__(settings, context)
        self.settings = settings
        self._issues_path = f"{self._repo_path}/issues"
        #: The issue of each marker key, listed once per run and kept up to date as issues are written.
        self._issues: dict[str, dict[str, Any]] = {}
        self._listed = False
        self._author: _Author | None = None

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        key = _key(report)
        title = self._client.redact(fill_template(self.settings.title, report))
        markdown = quiet_mentions(self._client.redact(_markdown(artefacts).text))
        try:
            parts = split_markdown(markdown, room=MAX_CHARS - len(_marker(key, _LAST_PART)), href_room=_HREF_ROOM)
        except ValueError as exc:
            raise PublishError(f"{self._client.target}: {exc}") from None
        if self.context.dry_run:
            return self._preview(title, key, parts)
        self._client.new_budget()
        issue = await self._sync(key, title, parts)
        return Delivery(NAME, locations=[str(issue.get("html_url", ""))])

    def _preview(self, title: str, key: str, parts: list[Part]) -> Delivery:
        labels = ", ".join(self.settings.labels) or "none"
        texts = [_marker(key, number) + part.text for number, part in enumerate(parts)]
        preview = f"# would open or update the issue {title!r} in {self.repository} (labels: {labels})\n{texts[0]}"
        for number, text in enumerate(texts[1:], start=2):
            preview += f"\n# and its comment, part {number} of {len(texts)}\n{text}"
        return Delivery(NAME, locations=[f"{self.repository} issue {title!r}"], preview=self._client.redact(preview))

    async def _sync(self, key: str, title: str, parts: list[Part]) -> dict[str, Any]:
        """Bring the report's issue and comments to ``parts``, writing only what differs; the issue."""
        issue = await self._find(key)
        hrefs: list[str | None] = [None] * len(parts)
        comments: dict[int, dict[str, Any]] = {}
        extra: list[dict[str, Any]] = []
        if issue is not None:
            hrefs[0] = f"#issue-{issue['id']}"
            comments, extra = await self._comments(issue, key, len(parts))
            for number, comment in comments.items():
                hrefs[number] = f"#issuecomment-{comment['id']}"
        texts = {number: _normal(comment["body"]) for number, comment in comments.items()}
        if issue is None:
            issue = await self._open(key, title, _marker(key, 0) + parts[0].resolve(hrefs))
            hrefs[0] = f"#issue-{issue['id']}"
        texts[0] = _normal(issue["body"])
        for number in range(1, len(parts)):
            if number not in comments:
                text = _marker(key, number) + parts[number].resolve(hrefs)
                comments[number] = await self._write("POST", f"{self._number(issue)}/comments", {"body": text}, 201)
                hrefs[number], texts[number] = f"#issuecomment-{comments[number]['id']}", text
        for number, part in enumerate(parts):
            final = _marker(key, number) + part.resolve(hrefs)
            if number == 0 and (final != texts[0] or issue.get("title") != title):
                issue = await self._write("PATCH", self._number(issue), {"title": title, "body": final}, 200)
                self._issues[key] = issue
            elif number > 0 and final != texts[number]:
                await self._write("PATCH", f"comments/{comments[number]['id']}", {"body": final}, 200)
        for comment in extra:
            await self._client.call("DELETE", f"{self._issues_path}/comments/{comment['id']}", expect=(204,))
        return issue

    async def _find(self, key: str) -> dict[str, Any] | None:
        """The report's issue, from the run's one listing of the labelled issues."""
        if not self._listed:
            self._listed = True
            params = {"state": "all", "sort": "created", "direction": "asc"}
            if self.settings.labels:
                params["labels"] = ",".join(self.settings.labels)
            async for item in self._client.pages(self._issues_path, params):
                marked = _BODY_MARKER.match(_normal(item.get("body"))) if isinstance(item, dict) else None
                if marked and "pull_request" not in item and await self._ours(item):
                    self._issues.setdefault(marked.group(1), self._checked(item, "the issue list"))
        return self._issues.get(key)

    async def _comments(
        self, issue: dict[str, Any], key: str, count: int
    ) -> tuple[dict[int, dict[str, Any]], list[dict[str, Any]]]:
        """The issue's comments that hold parts of this report, by part; and those holding parts it no longer has."""
        own = re.compile(rf"<!-- repodaily:{re.escape(key)}:(\d+) -->\n")
        found: dict[int, dict[str, Any]] = {}
        extra: list[dict[str, Any]] = []
        async for comment in self._client.pages(f"{self._issues_path}/{self._number(issue)}/comments", {}):
            marked = own.match(_normal(comment.get("body"))) if isinstance(comment, dict) else None
            if marked is None or not isinstance(comment.get("id"), int) or not await self._ours(comment):
                continue
            number = int(marked.group(1)) - 1
            if 1 <= number < count and number not in found:
                found[number] = comment
            else:
                extra.append(comment)
        return found, extra

    async def _ours(self, item: dict[str, Any]) -> bool:
        """Whether the issue or comment ``item`` was written by this token's account (a marker alone proves nothing)."""
        if self._author is None:
            try:
                reply = await self._client.call("GET", "/user")
            except GitHubError as exc:
                if exc.status not in (403, 404):  # a rate limit waits in the client and ends as 429: not an answer
                    raise
                self._author = _Author(None)
            else:
                login = reply.data.get("login") if isinstance(reply.data, dict) else None
                self._author = _Author(login if isinstance(login, str) else None)
        return self._author.wrote(item)

    async def _open(self, key: str, title: str, body: str) -> dict[str, Any]:
        fields: dict[str, Any] = {"title": title, "body": body, "labels": list(self.settings.labels)}
        if self.settings.assignees:
            fields["assignees"] = list(self.settings.assignees)
        reply = await self._client.call("POST", self._issues_path, body=fields, expect=(201,))
        issue = self._checked(reply.data, "the new issue")
        self._issues[key] = issue
        return issue

    async def _write(self, method: str, path: str, fields: dict[str, Any], status: int) -> dict[str, Any]:
        """POST or PATCH under the repository's issues; the issue or comment GitHub returns."""
        reply = await self._client.call(method, f"{self._issues_path}/{path}", body=fields, expect=(status,))
        return self._checked(reply.data, f"{method} {path}")

    def _number(self, issue: dict[str, Any]) -> str:
        number = issue.get("number")
        if not isinstance(number, int):
            raise PublishError(f"{self._client.target}: GitHub's answer has no issue number")
        return str(number)

    def _checked(self, data: Any, what: str) -> dict[str, Any]:
        """``data`` if it is an issue or comment (an id and a body), else a PublishError."""
        if not isinstance(data, dict) or not isinstance(data.get("id"), int) or not isinstance(data.get("body"), str):
            raise PublishError(f"{self._client.target}: GitHub's answer to {what} is not an issue or comment")
        return data
