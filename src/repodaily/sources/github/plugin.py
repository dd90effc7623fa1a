"""The ``github`` source as a plugin: ``source = "github"`` and ``repository = "owner/name"`` in ``[[repos]]``.

The factory imports the source (and with it the HTTP client) only when called.
"""

from __future__ import annotations

from typing import Any

from repodaily.hookspecs import Register, hookimpl
from repodaily.plugins import PluginSpec
from repodaily.sources.base import Source, SourceContext
from repodaily.sources.git.locations import infer_repo_name
from repodaily.sources.github.settings import GitHubSourceSettings

__all__ = ["create_github_source"]


def create_github_source(*, settings: GitHubSourceSettings, context: SourceContext) -> Source:
    from repodaily.sources.github.source import GitHubSource

    return GitHubSource(settings=settings, context=context)


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
        )
    )
