"""Every credential the process holds, gathered for the :class:`~repodaily.redact.Redactor`.

Keys are never written in the config: a setting whose name ends in ``_env``
names the environment variable that holds one (``api_key_env`` today, a webhook
secret's variable tomorrow). Credentials also sit in request headers
(``Authorization``, ``X-Api-Key``…), in the user-info of URLs
(``https://user:token@host/…``, a repository or an endpoint), and in the
variables the tools around us read whatever the config says (``LLM_API_KEY``,
``GITHUB_TOKEN``, ``GH_TOKEN``, ``TOKEN``). The settings are walked generically,
field by field, so a new ``*_env`` key, header table or URL field is covered
without touching this module.

A variable may hold a whole URL whose token is one part of it (a chat webhook:
``https://open.feishu.cn/open-apis/bot/v2/hook/<token>``,
``https://oapi.dingtalk.com/robot/send?access_token=<token>``). Registered whole,
every piece of it would be masked wherever it appears — ``https://`` in every
link of every report — so only its token-bearing parts are: the user-info, and
the path segments and query values that look like tokens (:func:`_token_like`).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from urllib.parse import parse_qsl, unquote, urlsplit

from pydantic import BaseModel

from repodaily.redact import MIN_SECRET_CHARS, Redactor
from repodaily.sources.git.locations import url_credentials

__all__ = ["WELL_KNOWN_VARIABLES", "redactor_for"]

#: Variables holding credentials whether or not the config names them.
WELL_KNOWN_VARIABLES = ("LLM_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "TOKEN")
# Header names whose values are credentials.
_CREDENTIAL_HEADER = re.compile(r"auth|key|token|secret|cookie|signature", re.IGNORECASE)
# A path segment or query value this long is taken for a token whatever it holds.
_TOKEN_CHARS = 16


def redactor_for(*settings: BaseModel, environ: Mapping[str, str]) -> Redactor:
    """A redactor for the well-known variables and every credential in ``settings``.

    ``settings`` are the config, or any part of it the process holds apart (an
    endpoint, a repository given on the command line).
    """
    held = [environ.get(name, "") for name in WELL_KNOWN_VARIABLES]
    for model in settings:
        held += _credentials(model, "", environ)
    return Redactor(value.strip() for value in held)


def _credentials(value: object, field: str, environ: Mapping[str, str]) -> Iterator[str]:
    """The credentials in ``value``, the setting named ``field``, and in everything it holds."""
    if isinstance(value, BaseModel):
        for name, item in value:
            yield from _credentials(item, name, environ)
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if field == "headers" and isinstance(item, str) and _CREDENTIAL_HEADER.search(str(key)):
                yield item.rpartition(" ")[2]  # the credential after a scheme such as Bearer or Basic
            # A plugin's table is held as a plain mapping: its keys name settings as a model's fields do.
            yield from _credentials(item, "" if field == "headers" else str(key), environ)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from _credentials(item, field, environ)
    elif isinstance(value, str):
        if field.endswith("_env"):
            yield from _held(environ.get(value, ""))
        yield from url_credentials(value)


def _held(value: str) -> Iterator[str]:
    """The credentials in a variable's value: all of it, or the token-bearing parts of a URL."""
    parts = urlsplit(value.strip())
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        yield value
        return
    yield from url_credentials(value)
    pieces = [unquote(segment) for segment in parts.path.split("/")]
    pieces += [piece for _, piece in parse_qsl(parts.query)] + [unquote(parts.fragment)]
    yield from (piece for piece in pieces if _token_like(piece))


def _token_like(piece: str) -> bool:
    """Whether a part of a URL looks like a token: long, or letters and digits mixed (not ``open-apis``, ``v2``)."""
    if len(piece) >= _TOKEN_CHARS:
        return True
    mixed = any(char.isdigit() for char in piece) and any(char.isalpha() for char in piece)
    return len(piece) >= MIN_SECRET_CHARS and mixed
