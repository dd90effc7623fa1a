"""The ``email`` publisher's settings: the SMTP server, how to reach it safely, and the message.

The password is never a setting: ``password_env`` names the environment
variable that holds it. Contradictions are config errors when the file is read,
not surprises at the first delivery: a login over an unencrypted connection, a
CA file for a connection that uses no TLS, an address that is not one.
"""

from __future__ import annotations

import re
from email.utils import getaddresses
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from repodaily.publish.base import TEMPLATE_FIELDS, check_template

__all__ = ["DEFAULT_PORTS", "SUBJECT_FIELDS", "EmailSettings", "mailbox"]

Security = Literal["tls", "starttls", "none"]
#: The port each security mode uses unless ``port`` says otherwise (RFC 8314: 465 and 587; 25 for relays).
DEFAULT_PORTS: dict[Security, int] = {"tls": 465, "starttls": 587, "none": 25}
#: What a subject template may name: the report's fields and its counts.
SUBJECT_FIELDS = (*TEMPLATE_FIELDS, "high", "total")
# One address: no spaces, brackets, quotes or separators around a single "@".
_ADDRESS = re.compile(r"[^@\s<>,;:\"()\[\]\\]+@[^@\s<>,;:\"()\[\]\\]+")


def mailbox(value: str) -> str:
    """The bare address of ``value`` (``name@example.com`` or ``Name <name@example.com>``), for the envelope."""
    return getaddresses([value])[0][1]


class EmailSettings(BaseModel):
    """One ``[[publish]]`` table with ``type = "email"``."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    host: str = Field(min_length=1, description="The SMTP server's host name (checked against its certificate).")
    port: int | None = Field(
        default=None, ge=1, le=65535, description="Its port; by default 465 for tls, 587 for starttls, 25 for none."
    )
    security: Security = Field(
        default="starttls",
        description=(
            'How the connection is encrypted: "starttls" (upgrade after connecting; the server must offer it), '
            '"tls" (TLS from the first byte), or "none" (a local relay; no login is sent over it).'
        ),
    )
    username: str = Field(default="", description="The login name; empty for a server that needs no login.")
    password_env: str = Field(
        default="", description="The environment variable holding the password (required with a username)."
    )
    sender: str = Field(min_length=1, description='The From address: "reports@example.com" or "Name <addr>".')
    recipients: list[str] = Field(min_length=1, description="The To addresses; each gets the same message.")
    subject: str = Field(
        default="[repodaily] {repo} {date}",
        description=f"The subject, a template with the fields {', '.join('{' + f + '}' for f in SUBJECT_FIELDS)}.",
    )
    timeout_s: float = Field(
        default=30.0,
        gt=0,
        le=600,
        description="A deadline for the whole conversation with the server: connect, TLS, login, send, quit.",
    )
    verify: bool = Field(
        default=True, description="Check the server's TLS certificate and host name (turn off only for a test relay)."
    )
    ca_file: str = Field(
        default="", description="A PEM file of the CAs to trust instead of the system's (a private CA)."
    )

    @field_validator("sender", "recipients")
    @classmethod
    def _addresses(cls, value: str | list[str]) -> str | list[str]:
        return _address(value) if isinstance(value, str) else [_address(item) for item in value]

    @field_validator("subject")
    @classmethod
    def _known_fields(cls, value: str) -> str:
        check_template(value, "subject template", {"high": 0, "total": 0})
        return value

    @model_validator(mode="after")
    def _consistent(self) -> Self:
        if bool(self.username) != bool(self.password_env):
            raise ValueError("username and password_env go together: set both to log in, or neither")
        if self.username and self.security == "none":
            raise ValueError('security = "none" would send the password unencrypted: use "starttls" or "tls"')
        if self.ca_file and (self.security == "none" or not self.verify):
            raise ValueError("ca_file is used only to verify a TLS server: it needs verify = true and tls or starttls")
        return self

    @property
    def smtp_port(self) -> int:
        """The port connected to: ``port``, or the security mode's default."""
        return self.port or DEFAULT_PORTS[self.security]

    @property
    def target(self) -> str:
        """How messages name the server: ``smtp://host:port``."""
        return f"smtp://{self.host}:{self.smtp_port}"


def _address(value: str) -> str:
    """``value`` when it holds exactly one e-mail address, else a ValueError that says so."""
    parsed = getaddresses([value])
    if len(parsed) != 1 or not _ADDRESS.fullmatch(parsed[0][1]) or any(char in value for char in "\r\n"):
        raise ValueError(f"{value!r} is not one e-mail address (name@example.com or Name <name@example.com>)")
    return value
