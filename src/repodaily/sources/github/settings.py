"""The keys of a ``[[repos]]`` entry read by the ``github`` source: which repository, which branch, which API.

No setting holds a secret: ``token_env`` names the variable that holds the
token, and ``GH_TOKEN`` (the GitHub CLI's) is read when that one is unset. A
public repository is read without one, within 60 requests an hour.
"""

from __future__ import annotations

from collections.abc import Mapping

from pydantic import BaseModel, ConfigDict, Field, field_validator

from repodaily.context.github.settings import FALLBACK_TOKEN
from repodaily.publish.github.settings import check_api_url, check_repository

__all__ = ["GitHubSourceSettings"]


class GitHubSourceSettings(BaseModel):
    """Where the commits are read: ``repository`` on the REST API at ``api_url``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    repository: str = Field(description='The repository, "owner/name".')
    branch: str | None = Field(default=None, description="The branch to read; unset: the repository's default.")
    token_env: str = Field(
        default="GITHUB_TOKEN", min_length=1, description="The variable holding the token; unset: GH_TOKEN."
    )
    api_url: str = Field(
        default="https://api.github.com",
        description="The REST API's base URL: GitHub Enterprise's https://HOST/api/v3, or a local test server.",
    )
    timeout_s: float = Field(default=30.0, gt=0, description="Deadline of one whole request, answer included.")
    max_wait_s: float = Field(
        default=60.0, ge=0, description="Most seconds of rate-limit waits per report day; past it the run fails."
    )

    @field_validator("repository")
    @classmethod
    def _repository(cls, value: str) -> str:
        return check_repository(value)

    @field_validator("api_url")
    @classmethod
    def _api_url(cls, value: str) -> str:
        return check_api_url(value)

    def token(self, environ: Mapping[str, str]) -> str | None:
        """The token from the configured variable, else ``GH_TOKEN``; None to ask without one."""
        return (environ.get(self.token_env) or environ.get(FALLBACK_TOKEN) or "").strip() or None
