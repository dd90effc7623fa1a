"""One conversation with an SMTP server: connect, encrypt, log in, send or just look, quit.

Why the standard library's :mod:`smtplib` in a worker thread rather than an
asyncio client (aiosmtplib): a report is one message to one server, sent once a
day; a thread costs nothing here, and smtplib brings no dependency, speaks
every mode (implicit TLS, STARTTLS, none) and both common logins (PLAIN,
LOGIN, and CRAM-MD5).

A server that stops answering must not hold the run: ``timeout_s`` bounds every
socket operation in the thread, and the event loop holds a deadline of the same
length over the whole conversation, so a server that trickles its replies a
byte at a time is cut off too. At the deadline the socket is shut, which ends
the thread's wait.

Encryption is never given up quietly: ``starttls`` against a server that does
not offer STARTTLS is an error, not a plain-text session, and a certificate is
checked (against ``ca_file`` or the system's CAs) unless ``verify = false``.

Every failure becomes one :class:`~repodaily.errors.PublishError` line naming the
server and what it said, with the password masked even where the server
repeats it.
"""

from __future__ import annotations

import asyncio
import smtplib
import socket
import ssl
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from email.message import EmailMessage
from typing import Any, TypeVar

from repodaily.errors import ConfigError, PublishError
from repodaily.plugins import Health
from repodaily.publish.email.settings import EmailSettings, mailbox

__all__ = ["Sent", "Server", "probe", "send"]

T = TypeVar("T")
# How much of a server's reply an error quotes: its first line is what matters.
_REPLY_CHARS = 200


@dataclass(frozen=True)
class Sent:
    """What the server did with the recipients of one message."""

    accepted: list[str]
    #: Each refused address and the server's reply to it (``550 5.1.1 …``).
    refused: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class Server:
    """Where and how to connect: the settings, the password they name, the TLS context (made once)."""

    settings: EmailSettings
    password: str = field(repr=False)
    tls: ssl.SSLContext

    @classmethod
    def of(cls, settings: EmailSettings, environ: Mapping[str, str]) -> Server:
        """The server of ``settings``; :class:`ConfigError` when the password variable or the CA file is missing."""
        password = ""
        if settings.password_env:
            password = environ.get(settings.password_env, "")
            if not password:
                raise ConfigError(
                    f"email {settings.target}: the environment variable {settings.password_env} "
                    "(password_env) is not set"
                )
        return cls(settings, password, _tls_context(settings))


# What a server's refusal was of, the most specific first; its reply follows.
_REFUSALS: tuple[tuple[type[smtplib.SMTPResponseException], str], ...] = (
    (smtplib.SMTPAuthenticationError, "the server refused the login of {username!r}"),
    (smtplib.SMTPSenderRefused, "the server refused the sender {sender}"),
    (smtplib.SMTPDataError, "the server refused the message"),
    (smtplib.SMTPResponseException, "the server answered"),
)


class _Failed(Exception):
    """A step of the conversation failed; the message says which and why, in one line."""


class _Conversation:
    """One session, run in a worker thread; the event loop may cut it off (:meth:`abort`)."""

    def __init__(self, server: Server) -> None:
        self.server = server
        self.settings = server.settings
        self._smtp: smtplib.SMTP | None = None
        #: What worked so far, in order, for ``doctor``: connect, tls, auth.
        self.steps: dict[str, str] = {}

    def run(self, work: Callable[[smtplib.SMTP], T]) -> T:
        """Open the session, do ``work`` in it, quit; any failure as :class:`_Failed`."""
        try:
            smtp = self._open()
            result = work(smtp)
        except _Failed:
            raise
        except Exception as exc:  # smtplib, ssl and socket errors alike: one line each
            raise _Failed(self._reason(exc)) from exc
        finally:
            self._close()
        return result

    def _open(self) -> smtplib.SMTP:
        settings, context = self.settings, self.server.tls
        smtp: smtplib.SMTP
        if settings.security == "tls":
            smtp = smtplib.SMTP_SSL(timeout=settings.timeout_s, context=context)
        else:
            smtp = smtplib.SMTP(timeout=settings.timeout_s)
        # Made without a host so that abort() can reach it while the greeting is awaited; smtplib then checks
        # the certificate against the host it was made with, so that is set as the constructor would.
        vars(smtp)["_host"] = settings.host
        self._smtp = smtp
        self._step("connect")
        smtp.connect(settings.host, settings.smtp_port)
        self.steps["connect"] = "yes"
        if settings.security == "tls":
            self._encrypted(smtp, "TLS")
        smtp.ehlo_or_helo_if_needed()
        if settings.security == "starttls":
            self._step("tls")
            if not smtp.has_extn("starttls"):
                raise _Failed("the server does not offer STARTTLS; not sending unencrypted (security = starttls)")
            smtp.starttls(context=context)
            self._encrypted(smtp, "STARTTLS")
            smtp.ehlo_or_helo_if_needed()
        if settings.username:
            self._step("auth")
            if not smtp.has_extn("auth"):
                raise _Failed(f"the server offers no login (AUTH) for {settings.username!r}")
            smtp.login(settings.username, self.server.password)
            self.steps["auth"] = "yes"
        return smtp

    def _step(self, name: str) -> None:
        """``name`` is under way: until it works, it is the step that failed."""
        self.steps[name] = "no"

    def _encrypted(self, smtp: smtplib.SMTP, how: str) -> None:
        version = smtp.sock.version() if isinstance(smtp.sock, ssl.SSLSocket) else None
        self.steps["tls"] = f"{version or 'yes'} ({how})"

    def _close(self) -> None:
        smtp, self._smtp = self._smtp, None
        if smtp is None or smtp.sock is None:
            return
        try:
            smtp.quit()  # the message, if any, is already accepted: a failed goodbye changes nothing
        except (smtplib.SMTPException, OSError):
            smtp.close()

    def abort(self) -> None:
        """Cut the session off from another thread: the worker's pending read or write fails at once."""
        smtp = self._smtp
        sock = smtp.sock if smtp is not None else None
        if sock is not None:
            try:
                sock.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

    def _reason(self, exc: Exception) -> str:
        """What went wrong, in the server's words where it gave some."""
        settings = self.settings
        if isinstance(exc, ssl.SSLError):  # a handshake: the connection itself was made
            self.steps.update(connect="yes", tls="no")
        if isinstance(exc, ssl.SSLCertVerificationError):
            return f"its TLS certificate is not trusted: {exc.verify_message or exc.reason}"
        if isinstance(exc, ssl.SSLError):
            return f"TLS failed: {exc.reason or exc}"
        if isinstance(exc, smtplib.SMTPRecipientsRefused):
            refused = ", ".join(f"{address} ({_reply(*reply)})" for address, reply in exc.recipients.items())
            return f"the server refused every recipient: {refused}"
        if isinstance(exc, smtplib.SMTPResponseException):
            what = next(what for kind, what in _REFUSALS if isinstance(exc, kind))
            sender = exc.sender if isinstance(exc, smtplib.SMTPSenderRefused) else ""
            return f"{what.format(username=settings.username, sender=sender)}: {_reply(exc.smtp_code, exc.smtp_error)}"
        # A read that timed out: smtplib reports it as a disconnection, the timeout as its context.
        if isinstance(exc, TimeoutError) or isinstance(exc.__context__, TimeoutError):
            return _no_answer(settings)
        if isinstance(exc, smtplib.SMTPServerDisconnected):
            return f"the server closed the connection ({str(exc) or 'without a word'})"
        if isinstance(exc, socket.gaierror):
            return f"cannot find the host: {exc.strerror or exc}"
        if isinstance(exc, OSError):
            what = "cannot connect" if self.steps.get("connect") != "yes" else "the connection failed"
            return f"{what}: {exc.strerror or exc}"
        return f"{type(exc).__name__}: {exc}"


def _reply(code: int, message: bytes | str) -> str:
    """A server's reply on one line: ``550 5.1.1 <bob@…>: no such user``."""
    text = message.decode("utf-8", "replace") if isinstance(message, bytes) else message
    line = " ".join(text.split())
    return f"{code} {line[:_REPLY_CHARS]}{'…' if len(line) > _REPLY_CHARS else ''}"


def _tls_context(settings: EmailSettings) -> ssl.SSLContext:
    """The client TLS context: the system's CAs or ``ca_file``, host name checked; nothing checked without verify."""
    if not settings.verify:
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context
    try:
        return ssl.create_default_context(cafile=settings.ca_file or None)
    except (OSError, ssl.SSLError) as exc:
        raise ConfigError(f"email {settings.target}: cannot read ca_file {settings.ca_file}: {exc}") from exc


async def _converse(conversation: _Conversation, work: Callable[[smtplib.SMTP], T], redact: Callable[[str], str]) -> T:
    """Run ``work`` in a session within ``timeout_s``; a :class:`PublishError` line naming the server if it fails."""
    settings = conversation.settings
    future = asyncio.ensure_future(asyncio.to_thread(conversation.run, work))
    try:
        return await asyncio.wait_for(asyncio.shield(future), settings.timeout_s)
    except TimeoutError:  # the deadline: errors inside the thread arrive as _Failed
        reason = _no_answer(settings)
    except _Failed as exc:
        reason = str(exc)
    finally:
        if not future.done():
            conversation.abort()
            future.add_done_callback(_consume)
    raise PublishError(redact(" ".join(f"{settings.target}: {reason}".split())))


def _no_answer(settings: EmailSettings) -> str:
    return f"no answer within {settings.timeout_s:g} s"


def _consume(future: asyncio.Future[Any]) -> None:
    """Collect the outcome of a conversation cut off at its deadline, so that nothing reports it unread."""
    if not future.cancelled():
        future.exception()


async def send(server: Server, message: EmailMessage, recipients: list[str], redact: Callable[[str], str]) -> Sent:
    """Send ``message`` to ``recipients``; those the server refuses are in :attr:`Sent.refused`.

    Every recipient refused, or any other failure: :class:`PublishError`.
    """

    def deliver(smtp: smtplib.SMTP) -> dict[str, tuple[int, bytes]]:
        return smtp.send_message(message, from_addr=mailbox(server.settings.sender), to_addrs=recipients)

    refused = await _converse(_Conversation(server), deliver, redact)
    return Sent(
        accepted=[address for address in recipients if address not in refused],
        refused={address: redact(_reply(*reply)) for address, reply in refused.items()},
    )


async def probe(server: Server, redact: Callable[[str], str]) -> Health:
    """``doctor``'s check: connect, EHLO, STARTTLS, log in, quit; what worked, and where it stopped."""
    started = time.monotonic()
    conversation = _Conversation(server)
    try:
        await _converse(conversation, lambda smtp: smtp.noop(), redact)
    except PublishError as exc:
        return Health(server.settings.target, False, checks=dict(conversation.steps), problem=str(exc))
    checks = {**conversation.steps, "latency": f"{time.monotonic() - started:.2f} s"}
    return Health(server.settings.target, True, checks=checks)
