"""The settings of the GitHub publishers, and where their repository and token come from.

Neither setting holds a secret: ``token_env`` names the variable that holds the
token. The replaced tool read ``TOKEN`` and ``REPOSITORY``; both still work when
the configured variable and key are unset, so its users switch by changing one line.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from repodaily.errors import ConfigError
from repodaily.publish.base import check_template
from repodaily.publish.files import FilesSettings

__all__ = [
    "FALLBACK_TOKEN",
    "Access",
    "GitHubFileSettings",
    "GitHubIssueSettings",
    "GitHubReadSettings",
    "GitHubSettings",
    "check_api_url",
    "check_repository",
]

#: The replaced tool's variables, read when the configured ones are unset.
LEGACY_TOKEN = "TOKEN"
LEGACY_REPOSITORY = "REPOSITORY"
#: Read by readers of GitHub when the configured variable is unset: the GitHub CLI's.
FALLBACK_TOKEN = "GH_TOKEN"
# GitHub's own rules: an owner of letters, digits and hyphens; a name of those and "._".
_REPOSITORY = re.compile(r"[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}")


def check_repository(value: str) -> str:
    """``value`` when it is an ``owner/name`` GitHub could hold; a ValueError otherwise."""
    if not _REPOSITORY.fullmatch(value) or value.endswith(("/.", "/..")):
        raise ValueError(f"{value!r} is not a repository of the form owner/name")
    return value


def check_api_url(value: str) -> str:
    """An API base URL: http(s), a host, no credentials (the token is named by ``token_env``), no trailing slash."""
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"{value!r} is not an http(s) URL")
    if parts.username or parts.password:
        raise ValueError("the API URL cannot hold credentials: name the token's variable in token_env")
    return value.rstrip("/")


class GitHubReadSettings(BaseModel):
    """What a reader of GitHub is told (the context source, the github source): the token's variable, the API.

    Public repositories are read without a token, so none is no error: ``GH_TOKEN``
    is read when the configured variable is unset, and without either GitHub is
    asked anonymously.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    token_env: str = Field(
        default="GITHUB_TOKEN", min_length=1, description="The variable holding the token; unset: GH_TOKEN."
    )
    api_url: str = Field(
        default="https://api.github.com",
        description="The REST API's base URL: GitHub Enterprise's https://HOST/api/v3, or a local test server.",
    )
    timeout_s: float = Field(default=30.0, gt=0, description="Deadline of one whole request, answer included.")

    @field_validator("api_url")
    @classmethod
    def _api_url(cls, value: str) -> str:
        return check_api_url(value)

    def token(self, environ: Mapping[str, str]) -> str | None:
        """The token from the configured variable, else ``GH_TOKEN``; None to ask without one."""
        return (environ.get(self.token_env) or environ.get(FALLBACK_TOKEN) or "").strip() or None


class GitHubSettings(BaseModel):
    """What both GitHub publishers need: the repository, the variable holding the token, the API and its limits."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    repository: str | None = Field(
        default=None,
        description='The repository to publish into, "owner/name"; unset: the REPOSITORY variable.',
    )
    token_env: str = Field(
        default="GITHUB_TOKEN",
        min_length=1,
        description="The variable holding the token; when it is unset, TOKEN is read.",
    )
    api_url: str = Field(
        default="https://api.github.com",
        description="The REST API's base URL: GitHub Enterprise's https://HOST/api/v3, or a local test server.",
    )
    timeout_s: float = Field(default=30.0, gt=0, description="Deadline of one whole request, answer included.")
    max_wait_s: float = Field(default=60.0, ge=0, description="Most seconds of rate-limit waits per report.")

    @field_validator("repository")
    @classmethod
    def _repository(cls, value: str | None) -> str | None:
        return None if value is None else check_repository(value)

    @field_validator("api_url")
    @classmethod
    def _api_url(cls, value: str) -> str:
        return check_api_url(value)


class GitHubFileSettings(GitHubSettings, FilesSettings):
    """Each artefact committed at ``dir``/``path`` (the files publisher's template) on ``branch``."""

    dir: str = Field(default="reports", min_length=1, description="The folder of the repository the reports go in.")
    path: str = Field(
        default="{year}/{repo}/{date}.md",
        description="The path under dir, a template of repo, owner, name, date, year, month, day, lang; "
        "the artefact's suffix replaces its extension.",
    )
    branch: str | None = Field(default=None, description="The branch to commit to; unset: the default branch.")
    message: str = Field(
        default="Report: {repo} - {date}",
        min_length=1,
        description="The commit message, a template of the same fields as path.",
    )

    @field_validator("dir")
    @classmethod
    def _inside_the_repository(cls, value: str) -> str:
        folder = PurePosixPath(value)
        if folder.is_absolute() or ".." in folder.parts or "\\" in value:
            raise ValueError(f"{value!r} is not a folder inside the repository (relative, with / and no ..)")
        return value

    @field_validator("message")
    @classmethod
    def _message_fields(cls, value: str) -> str:
        check_template(value, "message template")
        return value


class GitHubIssueSettings(GitHubSettings):
    """One issue per repository and day, found again on a rerun by a hidden marker in its body."""

    title: str = Field(
        default="{repo} daily report {date}",
        min_length=1,
        description="The issue title, a template of repo, owner, name, date, year, month, day, lang.",
    )
    labels: tuple[str, ...] = Field(
        default=("repodaily",),
        description="Labels given to the issue; a rerun looks for its issue among the issues carrying them all.",
    )
    assignees: tuple[str, ...] = Field(default=(), description="Logins the issue is assigned to when it is opened.")

    @field_validator("title")
    @classmethod
    def _title_fields(cls, value: str) -> str:
        check_template(value, "title template")
        return value

    @field_validator("labels")
    @classmethod
    def _no_comma(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        # The issue list filters by a comma-separated list of labels.
        if any("," in label or not label.strip() for label in value):
            raise ValueError("a label cannot be empty or contain a comma")
        return value


@dataclass(frozen=True)
class Access:
    """The repository and token a publisher uses, read from the settings and the environment."""

    repository: str
    token: str

    @classmethod
    def of(cls, publisher: str, settings: GitHubSettings, environ: Mapping[str, str]) -> Access:
        """Both, or a ConfigError that names the key and the variables to set (never a value)."""
        repository = settings.repository or environ.get(LEGACY_REPOSITORY, "").strip()
        if not repository:
            raise ConfigError(f'{publisher}: no repository: set repository = "owner/name" or {LEGACY_REPOSITORY}')
        try:
            check_repository(repository)
        except ValueError as exc:
            raise ConfigError(f"{publisher}: {LEGACY_REPOSITORY}: {exc}") from None
        token = (environ.get(settings.token_env) or environ.get(LEGACY_TOKEN) or "").strip()
        if not token:
            raise ConfigError(f"{publisher}: no token: set {settings.token_env} (token_env) or {LEGACY_TOKEN}")
        return cls(repository, token)
