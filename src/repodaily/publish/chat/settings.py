"""Settings of the chat publishers: which variables hold the webhook and its secret, the link, the limits.

No setting holds a secret. A webhook URL carries its token, so the config names
the environment variable that holds it (``webhook_url_env``), and the signing
secret's too (``secret_env``); both are read from the run's environment when
the publisher is made (:func:`read_secrets`), so they never reach a config
dump, a log line or an error message.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, field_validator

from repodaily.errors import ConfigError
from repodaily.publish.base import check_template

__all__ = [
    "ChatSettings",
    "DingTalkSettings",
    "FeishuSettings",
    "Secrets",
    "SignedSettings",
    "SlackSettings",
    "WeComSettings",
    "WebhookSettings",
    "read_secrets",
]


def _webhook_url_env(default: str) -> Any:
    """The ``webhook_url_env`` field, with each platform's own default variable."""
    return Field(
        default=default,
        min_length=1,
        description="The environment variable holding the webhook URL (the URL carries the token).",
    )


class ChatSettings(BaseModel):
    """What every chat publisher takes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    webhook_url_env: str = _webhook_url_env("")
    report_url: str = Field(
        default="",
        description=(
            "Where the full report can be read, linked from the message: a template with the fields "
            "{repo} {owner} {name} {date} {year} {month} {day} {lang}; empty for no link."
        ),
    )
    timeout_s: float = Field(
        default=10, gt=0, description="Deadline of one attempt, all told: connecting, sending, the whole answer."
    )
    max_attempts: int = Field(default=4, ge=1, description="Attempts at one message, the first included.")
    max_wait_s: float = Field(
        default=120, ge=0, description="The longest the waits between attempts may add up to (Retry-After included)."
    )

    @field_validator("report_url")
    @classmethod
    def _a_web_address_template(cls, value: str) -> str:
        if not value:
            return value
        filled = check_template(value, "report_url")
        parts = urlsplit(filled)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            raise ValueError("report_url must be an http(s) URL")
        return value


class SignedSettings(ChatSettings):
    """A platform that can sign its messages with a shared secret."""

    secret_env: str = Field(
        default="", description="The environment variable holding the signing secret; empty: messages are not signed."
    )


class FeishuSettings(SignedSettings):
    """A Feishu (Lark) group's custom bot."""

    webhook_url_env: str = _webhook_url_env("FEISHU_WEBHOOK_URL")


class DingTalkSettings(SignedSettings):
    """A DingTalk group's custom robot."""

    webhook_url_env: str = _webhook_url_env("DINGTALK_WEBHOOK_URL")


class WeComSettings(ChatSettings):
    """A WeCom (WeChat Work) group robot; it has no signatures."""

    webhook_url_env: str = _webhook_url_env("WECOM_WEBHOOK_URL")


class SlackSettings(ChatSettings):
    """A Slack incoming webhook; it has no signatures."""

    webhook_url_env: str = _webhook_url_env("SLACK_WEBHOOK_URL")


class WebhookSettings(SignedSettings):
    """Any HTTP endpoint that takes JSON."""

    webhook_url_env: str = _webhook_url_env("REPODAILY_WEBHOOK_URL")
    payload: Literal["summary", "report"] = Field(
        default="summary",
        description='"summary": the chat summary as a JSON object; "report": the JSON report, as rendered.',
    )


@dataclass(frozen=True)
class Secrets:
    """What the environment holds for one target: the webhook URL and the signing secret (empty: unsigned)."""

    url: str
    secret: str = ""

    def __repr__(self) -> str:
        return "Secrets(…)"


def read_secrets(settings: ChatSettings, environ: Mapping[str, str], *, target: str) -> Secrets:
    """The target's webhook URL and secret from ``environ``; a ConfigError names a missing or unusable variable."""
    name = settings.webhook_url_env
    url = environ.get(name, "").strip()
    if not url:
        raise ConfigError(f"{target}: the environment variable {name} (webhook_url_env) is not set")
    try:
        usable = urlsplit(url).scheme in ("http", "https") and bool(urlsplit(url).hostname)
    except ValueError:  # a malformed address (an unclosed IPv6 bracket)
        usable = False
    if not usable:
        raise ConfigError(f"{target}: {name} must hold an http(s) URL")  # the value itself is a secret
    secret_name = settings.secret_env if isinstance(settings, SignedSettings) else ""
    secret = environ.get(secret_name, "").strip() if secret_name else ""
    if secret_name and not secret:
        raise ConfigError(f"{target}: the environment variable {secret_name} (secret_env) is not set")
    return Secrets(url=url, secret=secret)
