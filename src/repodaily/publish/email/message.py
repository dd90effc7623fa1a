"""The e-mail of one report (or one week's digest): headers, the Markdown as text, the same as HTML, others attached.

Structure (RFC 2046): ``multipart/alternative`` of ``text/plain`` (the Markdown
report, which reads well as text) and ``text/html`` (the same report styled,
:mod:`.html_part`); when the run renders other formats too (``json``), they are
attachments and the whole is ``multipart/mixed``. Every part is UTF-8 and the
message is 7-bit clean (base64 or quoted-printable, whichever is shorter), so no
relay that lacks 8BITMIME can mangle Chinese text; the subject and names are
encoded words (RFC 2047).

The ``Message-ID`` is the same every time the same report is sent (:func:`message_id`),
so a resend after a crash in mid-delivery is recognisable as the same message:
clients that thread or deduplicate by it (Gmail does) show one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from email.message import EmailMessage
from email.policy import SMTP
from email.utils import format_datetime, localtime

from repodaily.delivery import content_hash, week_hash
from repodaily.errors import ConfigError
from repodaily.models import DailyReport
from repodaily.publish.base import report_fields
from repodaily.publish.email.html_part import email_html
from repodaily.publish.email.settings import EmailSettings, mailbox
from repodaily.render.base import Artefact
from repodaily.render.page_labels import WEEK_LABELS
from repodaily.weekly import WeeklyDigest

__all__ = ["build_message", "build_week_message", "message_id", "subject"]

#: CRLF line ends, RFC 2047 headers, and bodies encoded to 7 bits.
POLICY = SMTP.clone(cte_type="7bit")
#: The artefact that is the message's body; every other one is attached.
BODY_FORMAT = "md"


def subject(template: str, report: DailyReport) -> str:
    """The subject for ``report``: the template's fields filled, on one line."""
    filled = template.format(**report_fields(report), high=report.stats.high, total=report.stats.total)
    return " ".join(filled.split())


def message_id(report: DailyReport, artefacts: Sequence[Artefact], sender: str) -> str:
    """The same ``<…@domain>`` each time this content of this report is sent from this sender's domain.

    Keyed like the delivery ledger (:func:`repodaily.delivery.content_hash`): a resend of the same
    content (a crash in mid-delivery, ``--force``) is recognisably the same message, and a report whose
    content changed is a new one, which a client that drops repeated ids still shows.
    """
    domain = mailbox(sender).rpartition("@")[2]
    return f"<repodaily.{report.date:%Y%m%d}.{content_hash(report, artefacts)[:24]}@{domain}>"


def build_message(
    report: DailyReport, artefacts: Sequence[Artefact], settings: EmailSettings, redact: Callable[[str], str]
) -> EmailMessage:
    """The message for ``report`` to the configured recipients, every text passed through ``redact``."""
    name = report.repo.rpartition("/")[2] or "report"
    letter = _Letter(
        redact(subject(settings.subject, report)),
        report.language,
        message_id(report, artefacts, settings.sender),
        f"{name}-{report.date}",
    )
    return _message(letter, artefacts, settings, redact)


def build_week_message(
    digest: WeeklyDigest, artefacts: Sequence[Artefact], settings: EmailSettings, redact: Callable[[str], str]
) -> EmailMessage:
    """The message of a week's digest: its title as the subject, its Markdown as the body, as a day's is made.

    Its ``Message-ID`` is keyed by the week and the digest's content, so a resend is the same message.
    """
    name = digest.repo.rpartition("/")[2] or "report"
    words = WEEK_LABELS[digest.language]
    title = f"{digest.repo} · {words.title.format(week=digest.week, start=digest.start, end=digest.end)}"
    domain = mailbox(settings.sender).rpartition("@")[2]
    key = f"<repodaily.{digest.week}.{week_hash(digest, artefacts)[:24]}@{domain}>"
    letter = _Letter(redact(" ".join(title.split())), digest.language, key, f"{name}-{digest.week}")
    return _message(letter, artefacts, settings, redact)


@dataclass(frozen=True)
class _Letter:
    """What one message is about: its subject, language, Message-ID, and the stem of its attachments' names."""

    subject: str
    language: str
    message_id: str
    stem: str


def _message(
    letter: _Letter, artefacts: Sequence[Artefact], settings: EmailSettings, redact: Callable[[str], str]
) -> EmailMessage:
    body = next((artefact for artefact in artefacts if artefact.format == BODY_FORMAT), None)
    if body is None:
        formats = ", ".join(artefact.format for artefact in artefacts) or "none"
        raise ConfigError(
            f'email needs the "{BODY_FORMAT}" format for its body (add it to [output] formats; got {formats})'
        )
    text = redact(body.text)
    message = EmailMessage(policy=POLICY)
    message["Subject"] = letter.subject
    message["From"] = settings.sender
    message["To"] = ", ".join(settings.recipients)
    message["Date"] = format_datetime(localtime())
    message["Message-ID"] = letter.message_id
    message["Auto-Submitted"] = "auto-generated"  # RFC 3834: no vacation replies to a robot
    message.set_content(text, subtype="plain", charset="utf-8")
    message.add_alternative(
        email_html(text, title=letter.subject, language=letter.language), subtype="html", charset="utf-8"
    )
    for artefact in artefacts:
        if artefact is not body:
            _attach(message, redact(artefact.text), artefact.media_type, f"{letter.stem}.{artefact.suffix}")
    return message


def _attach(message: EmailMessage, text: str, media_type: str, filename: str) -> None:
    """``text`` attached as ``filename``, of its artefact's media type (a text type says it is UTF-8)."""
    maintype, slash, subtype = media_type.partition(";")[0].strip().partition("/")
    if not (slash and maintype and subtype):
        maintype, subtype = "application", "octet-stream"
    params = {"charset": "utf-8"} if maintype == "text" else {}
    message.add_attachment(text.encode("utf-8"), maintype, subtype, filename=filename, params=params)
