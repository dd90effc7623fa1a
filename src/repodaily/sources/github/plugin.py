"""The ``github`` source as a plugin: ``source = "github"`` and ``repository = "owner/name"`` in ``[[repos]]``.

The factory and ``doctor``'s check import the source (and with it the HTTP client) only when called.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from repodaily.errors import RepodailyError
from repodaily.hookspecs import Register, hookimpl
from repodaily.plugins import Health, PluginSpec
from repodaily.redact import NO_SECRETS
from repodaily.sources.base import Source, SourceContext
from repodaily.sources.git.locations import infer_repo_name
from repodaily.sources.github.settings import GitHubSourceSettings

__all__ = ["create_github_source", "github_source_health"]


def create_github_source(*, settings: GitHubSourceSettings, context: SourceContext) -> Source:
    from repodaily.sources.github.source import GitHubSource

    return GitHubSource(settings=settings, context=context)


async def github_source_health(settings: GitHubSourceSettings, environ: Mapping[str, str]) -> list[Health]:
    """Whether the token (or an anonymous caller) can read the repository, its branch, and the requests left."""
    from repodaily.publish.github.client import GitHubClient
    from repodaily.sources.github.reader import CommitReader

    target = f"github source {settings.repository}"
    client = GitHubClient.reading(target, settings, max_wait_s=0, environ=environ, redact=NO_SECRETS)
    token = settings.token(environ) is not None
    checks = {"token": "yes" if token else "none"}
    try:
        _, default_branch = await CommitReader(client, settings.repository, 0).repository()
        checks["branch"] = settings.branch or default_branch
        checks["rate limit"] = await client.rate_limit_left()
    except RepodailyError as exc:
        problem = str(exc).removeprefix(f"{target}: ")  # doctor names the target before the problem
        return [Health(target=target, ok=False, checks={**checks, "readable": "NO"}, problem=problem)]
    finally:
        await client.aclose()
    problem = "" if token else "no token: public repositories only, 60 requests an hour"
    return [Health(target=target, ok=True, checks=checks, problem=problem)]


def _locate(location: str) -> dict[str, Any]:
    """``owner/name``, or a URL of the repository on GitHub (``https://github.com/owner/name``)."""
    return {"repository": infer_repo_name(location) or location}


@hookimpl
def register_sources(register: Register) -> None:
    register(
        PluginSpec(
            "github",
            create_github_source,
            settings=GitHubSourceSettings,
            description="GitHub's REST API, without a clone: small repositories",
            locate=_locate,
            health=github_source_health,
        )
    )
