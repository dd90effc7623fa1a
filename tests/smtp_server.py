"""Real SMTP servers on 127.0.0.1 for the e-mail publisher's tests.

:func:`smtp_server` runs aiosmtpd, the way a mail provider's submission port
behaves: STARTTLS (required before anything else) or TLS from the first byte on
a certificate from a test CA (trustme), AUTH PLAIN and LOGIN with a checked
password (required before MAIL), a recipient refused with 550 as Postfix words
it, and every accepted message recorded with its envelope, as bytes. A wrong
password is answered the way a careless server does: with the password quoted
back, so the tests can show that it still never reaches an error line.

:func:`silent_server` accepts connections and never answers; with
``trickle=True`` it sends its greeting one byte at a time, forever, so only a
deadline over the whole conversation ends it. :func:`closed_port` is a port
nothing listens on.
"""

from __future__ import annotations

import contextlib
import socket
import ssl
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from email import message_from_bytes, policy
from email.message import EmailMessage
from pathlib import Path
from typing import Any, Literal

import trustme
from aiosmtpd.controller import Controller
from aiosmtpd.smtp import AuthResult, LoginPassword

HOST = "127.0.0.1"
USERNAME = "reports@example.com"
PASSWORD = "Tr0ub4dor&3-horse-battery"
REFUSED_REPLY = "550 5.1.1 <{address}>: Recipient address rejected: User unknown in virtual mailbox table"


@dataclass
class Received:
    """One message as the server took it: envelope and bytes, and the login that sent it."""

    mail_from: str
    rcpt_tos: list[str]
    data: bytes
    login: str | None

    @property
    def message(self) -> EmailMessage:
        parsed = message_from_bytes(self.data, policy=policy.default)
        assert isinstance(parsed, EmailMessage)
        return parsed


@dataclass
class _Handler:
    """Refuses the addresses in ``refuse`` at RCPT, records every message, checks the password."""

    refuse: Sequence[str] = ()
    #: A reply that refuses every sender at MAIL, or every message at the end of DATA.
    refuse_mail: str = ""
    refuse_data: str = ""
    received: list[Received] = field(default_factory=list)
    mechanisms: list[str] = field(default_factory=list)

    async def handle_MAIL(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if self.refuse_mail:
            return self.refuse_mail
        envelope.mail_from = address
        return "250 2.1.0 Ok"

    async def handle_RCPT(self, server: Any, session: Any, envelope: Any, address: str, options: Any) -> str:
        if address in self.refuse:
            return REFUSED_REPLY.format(address=address)
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 Ok"

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.refuse_data:
            return self.refuse_data
        login = session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None
        self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), bytes(envelope.content), login))
        return "250 2.0.0 Ok: queued as 4F1A2B3C"

    def authenticate(self, server: Any, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
        self.mechanisms.append(mechanism)
        if isinstance(data, LoginPassword) and (data.login, data.password) == (USERNAME.encode(), PASSWORD.encode()):
            return AuthResult(success=True, auth_data=data)
        given = data.password.decode(errors="replace") if isinstance(data, LoginPassword) else "?"
        return AuthResult(success=False, handled=False, message=f"535 5.7.8 Error: authentication failed: {given}")


class _AnyPortController(Controller):
    """aiosmtpd's controller on a free port (port 0), found once it listens."""

    def _trigger_server(self) -> None:
        assert self.server is not None
        self.port = self.server.sockets[0].getsockname()[1]
        super()._trigger_server()


@dataclass
class RunningServer:
    port: int
    handler: _Handler

    @property
    def received(self) -> list[Received]:
        return self.handler.received

    @property
    def mechanisms(self) -> list[str]:
        return self.handler.mechanisms


@dataclass(frozen=True)
class TrustedCA:
    """A CA the tests trust, and the server certificate it issued for 127.0.0.1."""

    ca: trustme.CA
    file: Path

    def server_context(self) -> ssl.SSLContext:
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        self.ca.issue_cert("mail.test", HOST).configure_cert(context)
        return context


def make_ca(directory: Path) -> TrustedCA:
    ca = trustme.CA()
    path = directory / "test-ca.pem"
    ca.cert_pem.write_to_path(str(path))
    return TrustedCA(ca, path)


@contextlib.contextmanager
def smtp_server(
    security: Literal["tls", "starttls", "none"],
    ca: TrustedCA | None = None,
    *,
    login: bool = True,
    refuse: Sequence[str] = (),
    refuse_mail: str = "",
    refuse_data: str = "",
    exclude_mechanisms: Sequence[str] = (),
    offer_starttls: bool = True,
) -> Iterator[RunningServer]:
    """An SMTP server speaking ``security``; with ``login``, AUTH is required and the password checked."""
    handler = _Handler(refuse=refuse, refuse_mail=refuse_mail, refuse_data=refuse_data)
    options: dict[str, Any] = {
        "server_hostname": "mail.test",
        "authenticator": handler.authenticate,
        "auth_required": login,
        "auth_exclude_mechanism": list(exclude_mechanisms),
    }
    if security == "tls":
        assert ca is not None
        # The whole connection is encrypted, which aiosmtpd only knows of STARTTLS.
        options |= {"ssl_context": ca.server_context(), "auth_require_tls": False}
    elif security == "starttls" and offer_starttls:
        assert ca is not None
        options |= {"tls_context": ca.server_context(), "require_starttls": True}
    else:
        options["auth_require_tls"] = False
    controller = _AnyPortController(handler, hostname=HOST, port=0, **options)
    controller.start()
    try:
        yield RunningServer(controller.port, handler)
    finally:
        controller.stop()


@contextlib.contextmanager
def silent_server(*, trickle: bool = False) -> Iterator[int]:
    """A port that accepts and then says nothing (or its greeting a byte every 50 ms, never finished)."""
    listener = socket.create_server((HOST, 0))
    stop = threading.Event()
    connections: list[socket.socket] = []

    def serve() -> None:
        listener.settimeout(0.05)
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                connections.append(listener.accept()[0])
            for connection in connections if trickle else []:
                with contextlib.suppress(OSError):
                    connection.send(b"2")

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        stop.set()
        thread.join()
        for connection in connections:
            connection.close()
        listener.close()


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on: connecting is refused at once."""
    with socket.create_server((HOST, 0)) as probe:
        return probe.getsockname()[1]
