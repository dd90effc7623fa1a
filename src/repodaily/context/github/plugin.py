"""The GitHub context source as a plugin, ``github`` (its settings in ``[github]``), and what ``doctor`` checks.

The factory and the check import the source (and with it the HTTP client) only when called.
"""

from __future__ import annotations

from collections.abc import Mapping

from repodaily.context.base import ContextSource, ContextSourceContext
from repodaily.context.github.settings import GitHubContextSettings
from repodaily.errors import RepodailyError
from repodaily.hookspecs import Register, hookimpl
from repodaily.plugins import Health, PluginSpec
from repodaily.redact import NO_SECRETS

__all__ = ["create_github_context", "github_health"]


def create_github_context(*, settings: GitHubContextSettings, context: ContextSourceContext) -> ContextSource:
    from repodaily.context.github.source import GitHubContext

    return GitHubContext(settings, context)


async def github_health(settings: GitHubContextSettings, environ: Mapping[str, str]) -> list[Health]:
    """The API as the token (or an anonymous caller) sees it, and the requests left this hour; none when off.

    Off means ``enabled = false``, or ``auto`` without a token (nothing is read then).
    ``GET /rate_limit`` costs nothing against the limit it reports.
    """
    token = settings.token(environ)
    if settings.enabled is False or (settings.enabled == "auto" and token is None):
        return []
    from repodaily.publish.github.client import GitHubClient

    target = f"github context {settings.api_url}"
    client = GitHubClient.reading(target, settings, max_wait_s=0, environ=environ, redact=NO_SECRETS)
    checks = {"token": "yes" if token else "none"}
    try:
        checks["rate limit"] = await client.rate_limit_left()
    except RepodailyError as exc:
        return [Health(target=target, ok=False, checks={**checks, "answers": "NO"}, problem=str(exc))]
    finally:
        await client.aclose()
    checks["graphql"] = "yes" if token else "no (needs a token)"
    problem = "" if token else "no token: public repositories only, 60 requests an hour"
    return [Health(target=target, ok=True, checks=checks, problem=problem)]


@hookimpl
def register_contexts(register: Register) -> None:
    register(
        PluginSpec(
            "github",
            create_github_context,
            settings=GitHubContextSettings,
            description="pull requests and releases from GitHub",
            health=github_health,
        )
    )
