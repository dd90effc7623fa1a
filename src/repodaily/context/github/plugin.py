"""The GitHub context source as a plugin, ``github`` (its settings in ``[github]``).

The factory imports the source (and with it the HTTP client) only when a run makes one.
"""

from __future__ import annotations

from repodaily.context.base import ContextSource, ContextSourceContext
from repodaily.context.github.settings import GitHubContextSettings
from repodaily.hookspecs import Register, hookimpl
from repodaily.plugins import PluginSpec

__all__ = ["create_github_context"]


def create_github_context(*, settings: GitHubContextSettings, context: ContextSourceContext) -> ContextSource:
    from repodaily.context.github.source import GitHubContext

    return GitHubContext(settings, context)


@hookimpl
def register_contexts(register: Register) -> None:
    register(
        PluginSpec(
            "github",
            create_github_context,
            settings=GitHubContextSettings,
            description="pull requests and releases from GitHub",
        )
    )
