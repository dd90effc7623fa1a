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
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping

from pydantic import BaseModel

from repodaily.redact import Redactor
from repodaily.sources.git.locations import url_credentials

__all__ = ["WELL_KNOWN_VARIABLES", "redactor_for"]

#: Variables holding credentials whether or not the config names them.
WELL_KNOWN_VARIABLES = ("LLM_API_KEY", "GITHUB_TOKEN", "GH_TOKEN", "TOKEN")
# Header names whose values are credentials.
_CREDENTIAL_HEADER = re.compile(r"auth|key|token|secret|cookie|signature", re.IGNORECASE)


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
            yield environ.get(value, "")
        yield from url_credentials(value)
