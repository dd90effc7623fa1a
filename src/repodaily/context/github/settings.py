"""The ``[github]`` table: whether the context source runs, with which token, against which API.

No setting holds a secret: ``token_env`` names the variable that holds the token;
``GH_TOKEN`` (the GitHub CLI's) is read when that one is unset. Without a token
the public REST API still answers, 60 requests an hour, which a day of a small
public repository fits in; GraphQL needs a token and is skipped.
"""

from __future__ import annotations

from typing import Literal
from urllib.parse import urlsplit

from pydantic import Field

from repodaily.publish.github.settings import GitHubReadSettings

__all__ = ["GitHubContextSettings"]

_GITHUB_HOST = "github.com"


class GitHubContextSettings(GitHubReadSettings):
    """The ``[github]`` table: the token's variable, the API, and how much to ask of it."""

    enabled: bool | Literal["auto"] = Field(
        default="auto",
        description=(
            "Read pull requests and releases: auto for repositories on github.com when a token is set "
            "(anonymous reads run out at 60 requests an hour), true for all, false never."
        ),
    )
    max_wait_s: float = Field(
        default=30.0, ge=0, description="Most seconds of rate-limit waits per day; past it the run goes on without."
    )
    max_in_flight: int = Field(default=4, ge=1, le=16, description="Requests to GitHub at once.")
    fresh_days: float = Field(
        default=7.0, ge=0, description="A merged pull request cached this recently is used without asking again."
    )

    def serves(self, repo: str, web_url: str | None, *, token: bool) -> bool:
        """Whether to read the context of ``repo``: always when enabled, on github.com with a ``token`` when auto.

        Without a token GitHub answers 60 requests an hour, fewer than one busy day's
        pull requests: asking by default would mark most reports as lacking context.
        """
        if self.enabled == "auto":
            return token and web_url is not None and urlsplit(web_url).hostname == _GITHUB_HOST
        return bool(self.enabled) and "/" in repo
