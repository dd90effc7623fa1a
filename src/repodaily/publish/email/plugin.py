"""The ``email`` publisher as a plugin: each report becomes one message to the configured recipients.

A recipient the server refuses (``550 no such user``) costs only that
recipient: the others get the report, the refusal is logged as one warning line
naming the address, and the delivery counts as made (the run's ledger then
keeps a rerun from sending it again to those who got it). Only when every
recipient is refused, or the server cannot be reached, logged in to or trusted,
does the delivery fail, with one line naming the server.

SMTP has no way to ask whether a message was already delivered; what the
platform allows is a recognisable resend: the ``Message-ID`` is the same each
time (:func:`.message.message_id`).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from email.message import EmailMessage

from repodaily.errors import ConfigError
from repodaily.hookspecs import Register, hookimpl
from repodaily.models import DailyReport
from repodaily.plugins import Health, PluginSpec
from repodaily.publish.base import Delivery, PublishContext
from repodaily.publish.email.message import build_message
from repodaily.publish.email.settings import EmailSettings, mailbox
from repodaily.publish.email.transport import Server, probe, send
from repodaily.redact import Redactor
from repodaily.render.base import Artefact

__all__ = ["EmailPublisher"]

log = logging.getLogger(__name__)


class EmailPublisher:
    """:class:`~repodaily.publish.base.Publisher` by SMTP; the password is read from the environment when made."""

    def __init__(self, *, settings: EmailSettings, context: PublishContext) -> None:
        self.settings = settings
        self.context = context
        self.server = Server.of(settings, context.environ)
        # The run's redactor knows the password when the CLI read the config; this one knows it in any case.
        self._own = Redactor([self.server.password])

    def redact(self, text: str) -> str:
        """``text`` with the password and every other credential of the run masked."""
        return self.context.redact(self._own(text))

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        message = build_message(report, artefacts, self.settings, self.redact)
        recipients = [mailbox(recipient) for recipient in self.settings.recipients]
        if self.context.dry_run:
            return Delivery("email", locations=self._where(recipients), preview=self._preview(message))
        sent = await send(self.server, message, recipients, self.redact)
        for address, reply in sent.refused.items():
            log.warning(
                "email: %s refused the recipient %s (%s); %s %s went to the others",
                self.settings.target,
                address,
                reply,
                report.repo,
                report.date,
            )
        return Delivery("email", locations=self._where(sent.accepted))

    def _where(self, addresses: list[str]) -> list[str]:
        return [self.redact(f"mailto:{address}") for address in addresses]

    def _preview(self, message: EmailMessage) -> str:
        """The headers and the text part, as the recipients would get them (the HTML part is the same report)."""
        headers = "".join(f"{name}: {value}\n" for name, value in message.items())
        text = message.get_body(("plain",))
        parts = [part.get_content_type() for part in message.walk() if not part.is_multipart()]
        body = text.get_content().replace("\r\n", "\n") if text is not None else ""
        return self.redact(f"# would send by {self.settings.target} ({', '.join(parts)})\n{headers}\n{body}")

    async def aclose(self) -> None:
        pass


async def health(settings: EmailSettings, environ: Mapping[str, str]) -> list[Health]:
    """``doctor``: can the server be reached, encrypted to, and logged in to."""
    try:
        server = Server.of(settings, environ)
    except ConfigError as exc:
        return [Health(settings.target, False, problem=str(exc))]
    return [await probe(server, Redactor([server.password]))]


@hookimpl
def register_publishers(register: Register) -> None:
    register(
        PluginSpec(
            "email",
            EmailPublisher,
            settings=EmailSettings,
            description="an e-mail per report, by SMTP",
            health=health,
        )
    )
