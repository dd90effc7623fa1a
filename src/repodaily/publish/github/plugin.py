"""The GitHub publishers as plugins: ``github-file`` and ``github-issue``, and what ``doctor`` checks for both.

The factories import the publishers (and with them the HTTP client) only when a
run configures one.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from repodaily.errors import RepodailyError
from repodaily.hookspecs import Register, hookimpl
from repodaily.plugins import Health, PluginSpec
from repodaily.publish.base import PublishContext, Publisher
from repodaily.publish.github.settings import GitHubFileSettings, GitHubIssueSettings, GitHubSettings

__all__ = ["create_file_publisher", "create_issue_publisher", "repository_health"]


def create_file_publisher(*, settings: GitHubFileSettings, context: PublishContext) -> Publisher:
    from repodaily.publish.github.file import GitHubFilePublisher

    return GitHubFilePublisher(settings=settings, context=context)


def create_issue_publisher(*, settings: GitHubIssueSettings, context: PublishContext) -> Publisher:
    from repodaily.publish.github.issue import GitHubIssuePublisher

    return GitHubIssuePublisher(settings=settings, context=context)


async def repository_health(publisher: str, settings: GitHubSettings, environ: Mapping[str, str]) -> list[Health]:
    """The repository as the token sees it: reachable, writable, issues on, and the requests left this hour."""
    from repodaily.publish.github.client import GitHubClient

    try:
        client, repository = GitHubClient.connect(publisher, settings, environ, lambda text: text)
    except RepodailyError as exc:
        return [Health(target=publisher, ok=False, problem=str(exc))]
    target = f"{publisher} {repository}"
    try:
        reply = await client.call("GET", GitHubClient.repo_path(repository))
    except RepodailyError as exc:
        return [Health(target=target, ok=False, checks={"reachable": "NO"}, problem=str(exc))]
    finally:
        await client.aclose()
    data: dict[str, Any] = reply.data if isinstance(reply.data, dict) else {}
    permissions = data.get("permissions")
    # An app's installation token (Actions' GITHUB_TOKEN) is told no permissions here: unknown, not refused.
    push = permissions.get("push") if isinstance(permissions, dict) else None
    mark = {True: "yes", False: "NO", None: "?"}
    checks = {"reachable": "yes", "auth": "yes", "write": mark[push]}
    problems = [] if push is not False else [f"{target}: the token cannot write to the repository"]
    if isinstance(settings, GitHubIssueSettings):
        has_issues = data.get("has_issues") if isinstance(data.get("has_issues"), bool) else None
        checks["issues"] = mark[has_issues]
        problems += [f"{target}: the repository has issues turned off"] if has_issues is False else []
    remaining, limit = reply.headers.get("x-ratelimit-remaining"), reply.headers.get("x-ratelimit-limit")
    checks["rate limit"] = f"{remaining} of {limit} left" if remaining and limit else "-"
    return [Health(target=target, ok=not problems, checks=checks, problem="; ".join(problems))]


async def _file_health(settings: GitHubFileSettings, environ: Mapping[str, str]) -> list[Health]:
    return await repository_health("github-file", settings, environ)


async def _issue_health(settings: GitHubIssueSettings, environ: Mapping[str, str]) -> list[Health]:
    return await repository_health("github-issue", settings, environ)


@hookimpl
def register_publishers(register: Register) -> None:
    register(
        PluginSpec(
            "github-file",
            create_file_publisher,
            settings=GitHubFileSettings,
            description="files committed to a GitHub repository",
            health=_file_health,
        )
    )
    register(
        PluginSpec(
            "github-issue",
            create_issue_publisher,
            settings=GitHubIssueSettings,
            description="one GitHub issue per repository and day",
            health=_issue_health,
        )
    )
