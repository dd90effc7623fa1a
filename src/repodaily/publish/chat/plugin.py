"""The chat publishers as plugins: ``feishu``, ``dingtalk``, ``wecom``, ``slack`` and ``webhook``.

Loading the registry reads only the settings models; a publisher's HTTP client
and platform module are imported when one is made. ``doctor`` checks that each
target's variables are set and hold a usable URL, and sends nothing: a check
must not post in a team's chat.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

from repodaily.errors import ConfigError
from repodaily.hookspecs import Register, hookimpl
from repodaily.plugins import Health, PluginSpec
from repodaily.publish.chat.settings import (
    ChatSettings,
    DingTalkSettings,
    FeishuSettings,
    SlackSettings,
    WebhookSettings,
    WeComSettings,
    read_secrets,
)

__all__ = ["PLATFORMS"]

#: Each publisher: its settings, the module and class of its platform, what it delivers to.
PLATFORMS: dict[str, tuple[type[ChatSettings], str, str]] = {
    "feishu": (FeishuSettings, "feishu.Feishu", "a Feishu (Lark) group's custom bot, signed"),
    "dingtalk": (DingTalkSettings, "dingtalk.DingTalk", "a DingTalk group's custom robot, signed"),
    "wecom": (WeComSettings, "wecom.WeCom", "a WeCom group robot"),
    "slack": (SlackSettings, "slack.Slack", "a Slack incoming webhook"),
    "webhook": (WebhookSettings, "webhook.Webhook", "any HTTP endpoint: JSON, signed as GitHub's webhooks"),
}


def _factory(name: str) -> Callable[..., Any]:
    module, _, cls = PLATFORMS[name][1].partition(".")

    def create(*, settings: ChatSettings, **context: Any) -> Any:
        from repodaily.publish.chat.publisher import ChatPublisher

        platform = getattr(importlib.import_module(f"repodaily.publish.chat.{module}"), cls)
        return ChatPublisher(platform, settings=settings, **context)

    return create


def _health(name: str) -> Callable[[Any, Mapping[str, str]], Any]:
    async def health(settings: ChatSettings, environ: Mapping[str, str]) -> list[Health]:
        from repodaily.publish.chat.transport import mask_url

        try:
            secrets = read_secrets(settings, environ, target=name)
        except ConfigError as exc:
            return [Health(target=name, ok=False, problem=str(exc))]
        checks = {"webhook": mask_url(secrets.url), "signed": "yes" if secrets.secret else "no"}
        return [Health(target=name, ok=True, checks=checks)]

    return health


@hookimpl
def register_publishers(register: Register) -> None:
    for name, (settings, _, description) in PLATFORMS.items():
        register(PluginSpec(name, _factory(name), settings=settings, description=description, health=_health(name)))
