"""The keys of a ``[[repos]]`` entry read by the ``github`` source: which repository, which branch, which API.

No setting holds a secret: ``token_env`` names the variable that holds the
token, and ``GH_TOKEN`` (the GitHub CLI's) is read when that one is unset. A
public repository is read without one, within 60 requests an hour.
"""

from __future__ import annotations

from pydantic import Field, field_validator

from repodaily.publish.github.settings import GitHubReadSettings, check_repository

__all__ = ["GitHubSourceSettings"]


class GitHubSourceSettings(GitHubReadSettings):
    """Where the commits are read: ``repository`` on the REST API at ``api_url``."""

    repository: str = Field(description='The repository, "owner/name".')
    branch: str | None = Field(default=None, description="The branch to read; unset: the repository's default.")
    max_wait_s: float = Field(
        default=60.0, ge=0, description="Most seconds of rate-limit waits per report day; past it the run fails."
    )

    @field_validator("repository")
    @classmethod
    def _repository(cls, value: str) -> str:
        return check_repository(value)
