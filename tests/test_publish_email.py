"""The ``email`` publisher against real SMTP servers (aiosmtpd, :mod:`smtp_server`).

Each security mode delivers to a server that checks what a provider checks
(STARTTLS first, a trusted certificate, the password); the message is read back
from the bytes the server took; failures (a refused recipient, every recipient
refused, a wrong password, no server, a silent or trickling server, an
untrusted certificate, no STARTTLS) each end as the one line a user reads.
The report is the demo repository's, made by the real CLI, and the hostile
corpus goes through the HTML part in every field that shows text.
"""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import Sequence
from datetime import timedelta
from email.message import EmailMessage
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pytest
from click.testing import CliRunner
from hostile import ALL, params
from report_checks import HtmlReader
from smtp_server import (
    HOST,
    PASSWORD,
    USERNAME,
    TrustedCA,
    closed_port,
    make_ca,
    silent_server,
    smtp_server,
)

from repodaily.cli import main
from repodaily.demo.scenario import DEMO_DAY, DEMO_REPO_NAME, build_demo_repo
from repodaily.errors import ConfigError, PublishError
from repodaily.models import AnalysisStatus, DailyReport, DayLink, Highlight, Insight, Recommendation
from repodaily.plugins import registry
from repodaily.publish.base import Delivery, PublishContext
from repodaily.publish.email import plugin
from repodaily.publish.email.message import build_message
from repodaily.publish.email.plugin import EmailPublisher, health
from repodaily.publish.email.settings import EmailSettings
from repodaily.redact import Redactor
from repodaily.render import render_markdown
from repodaily.render.base import Artefact
from repodaily.render.weekly import weekly_artefacts
from repodaily.weekly import build_weekly, week_of

# aiosmtpd counts only STARTTLS as encryption; its implicit-TLS server is encrypted all the same.
pytestmark = pytest.mark.filterwarnings("ignore:Requiring AUTH while not requiring TLS:UserWarning")

PASSWORD_ENV = "SMTP_PASSWORD"
ENVIRON = {PASSWORD_ENV: PASSWORD}
SENDER = "repodaily 日报 <reports@example.com>"
RECIPIENTS = ["alice@example.com", "bob@example.org", "carol@example.net"]
# What an e-mail's HTML may hold: the page around the report, and what the report's Markdown makes.
PAGE_TAGS = {"html", "head", "meta", "title", "body", "table", "tbody", "thead", "tr", "td", "th"}
REPORT_TAGS = {"h1", "h2", "h3", "h4", "p", "ul", "ol", "li", "blockquote", "hr", "a", "sub", "br", "code"}
REPORT_TAGS |= {"strong", "em", "s"}
# Elements that carry no style of their own: structure, or nothing to show.
UNSTYLED = {"html", "head", "meta", "title", "br", "thead", "tbody", "tr", "em", "s"}
UNSTYLED_ANCHOR = re.compile(r"c-[0-9a-f]{7}")  # <a id="c-…"></a>: a place to link to, nothing to show


@pytest.fixture(scope="module")
def ca(tmp_path_factory: pytest.TempPathFactory) -> TrustedCA:
    return make_ca(tmp_path_factory.mktemp("ca"))


def _cli_report(repo: Path, *options: str) -> str:
    result = CliRunner().invoke(
        main, ["report", str(repo), "--name", DEMO_REPO_NAME, "--date", DEMO_DAY.isoformat(), *options]
    )
    assert result.exit_code == 0, result.stderr
    return result.stdout


@pytest.fixture(scope="module")
def demo_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "repo"
    build_demo_repo(path)
    return path


@pytest.fixture(scope="module")
def demo(demo_repo: Path, tmp_path_factory: pytest.TempPathFactory) -> tuple[DailyReport, list[Artefact]]:
    """The demo day's report and its Markdown and JSON, as the CLI renders them."""
    with pytest.MonkeyPatch.context() as patch:
        patch.chdir(tmp_path_factory.mktemp("run"))
        markdown = _cli_report(demo_repo)
        text = _cli_report(demo_repo, "--format", "json")
    artefacts = [
        Artefact("md", "md", "text/markdown; charset=utf-8", markdown),
        Artefact("json", "json", "application/json", text),
    ]
    return DailyReport.model_validate(json.loads(text)), artefacts


def _values(port: int, security: str = "starttls", ca: TrustedCA | None = None) -> dict[str, Any]:
    """A ``[[publish]]`` table for the server on ``port``: logging in unless ``none``, trusting ``ca``."""
    values: dict[str, Any] = {
        "host": HOST,
        "port": port,
        "security": security,
        "sender": SENDER,
        "recipients": RECIPIENTS,
        "timeout_s": 10,
    }
    if security != "none":
        values |= {"username": USERNAME, "password_env": PASSWORD_ENV}
    if ca is not None:
        values["ca_file"] = str(ca.file)
    return values


def _settings(port: int, security: str = "starttls", ca: TrustedCA | None = None, **changes: Any) -> EmailSettings:
    return EmailSettings.model_validate(_values(port, security, ca) | changes)


def _publish(
    settings: EmailSettings,
    report: DailyReport,
    artefacts: Sequence[Artefact],
    *,
    environ: dict[str, str] = ENVIRON,
    **context: Any,
) -> Delivery:
    publisher = EmailPublisher(settings=settings, context=PublishContext(environ=environ, **context))
    return asyncio.run(publisher.publish(report, artefacts))


def _parts(message: EmailMessage) -> list[str]:
    return [part.get_content_type() for part in message.walk()]


def _one_line(error: BaseException) -> str:
    text = str(error)
    assert "\n" not in text and "Traceback" not in text, text
    return text


def _pieces(secret: str, size: int = 8) -> list[str]:
    return [secret[i : i + size] for i in range(len(secret) - size + 1)]


# --------------------------------------------------------------------------- delivery in each mode


def test_starttls_delivers_one_multipart_message_to_every_recipient(ca: TrustedCA, demo) -> None:
    report, artefacts = demo
    with smtp_server("starttls", ca) as server:
        delivery = _publish(_settings(server.port, "starttls", ca), report, artefacts)
    assert delivery == Delivery("email", locations=[f"mailto:{address}" for address in RECIPIENTS])
    (received,) = server.received
    assert (received.mail_from, received.rcpt_tos, received.login) == ("reports@example.com", RECIPIENTS, USERNAME)
    assert server.mechanisms == ["PLAIN"]
    message = received.message
    assert _parts(message) == [
        "multipart/mixed",
        "multipart/alternative",
        "text/plain",
        "text/html",
        "application/json",
    ]
    text, html = message.get_body(("plain",)), message.get_body(("html",))
    assert text is not None and html is not None
    assert [text.get_content_charset(), html.get_content_charset()] == ["utf-8", "utf-8"]
    assert text.get_content().replace("\r\n", "\n") == artefacts[0].text  # the Markdown (MIME text ends lines in CRLF)
    assert "每日更新报告" in html.get_content()
    (attachment,) = message.iter_attachments()
    assert attachment.get_filename() == f"inferno-{DEMO_DAY}.json"
    assert json.loads(attachment.get_content()) == json.loads(artefacts[1].text)
    assert message["Subject"] == f"[repodaily] {DEMO_REPO_NAME} {DEMO_DAY}"
    assert message["From"] == SENDER and message["To"] == ", ".join(RECIPIENTS)
    assert message["Auto-Submitted"] == "auto-generated" and message["Date"].datetime is not None
    assert re.fullmatch(r"<repodaily\.20260302\.[0-9a-f]{24}@example\.com>", message["Message-ID"])
    assert max(len(line) for line in received.data.split(b"\r\n")) <= 78  # 7-bit clean, folded, no 8BITMIME needed
    assert received.data.isascii()


def test_implicit_tls_logs_in_with_login_when_the_server_offers_no_plain(ca: TrustedCA, demo) -> None:
    report, artefacts = demo
    with smtp_server("tls", ca, exclude_mechanisms=["PLAIN"]) as server:
        delivery = _publish(_settings(server.port, "tls", ca), report, artefacts[:1])
    assert server.mechanisms == ["LOGIN"]
    (received,) = server.received
    assert received.login == USERNAME and len(delivery.locations) == len(RECIPIENTS)
    assert _parts(received.message) == ["multipart/alternative", "text/plain", "text/html"]


def test_a_local_relay_without_security_takes_the_message_without_a_login(demo) -> None:
    report, artefacts = demo
    with smtp_server("none", login=False) as server:
        _publish(_settings(server.port, "none"), report, artefacts, environ={})
    (received,) = server.received
    assert received.login is None and received.rcpt_tos == RECIPIENTS


def test_the_subject_template_fills_its_fields_and_is_encoded(ca: TrustedCA, demo) -> None:
    report, artefacts = demo
    template = "日报 {owner}/{name} {year}-{month}-{day} ({lang}): {high} high of {total}"
    with smtp_server("starttls", ca) as server:
        _publish(_settings(server.port, "starttls", ca, subject=template), report, artefacts)
    (received,) = server.received
    raw_subject = re.search(rb"^Subject: (.*(?:\r\n[ \t].*)*)", received.data, re.MULTILINE)
    assert raw_subject is not None and b"=?utf-8?" in raw_subject.group(1)  # RFC 2047 on the wire
    expected = f"日报 demo-org/inferno 2026-03-02 (zh): {report.stats.high} high of {report.stats.total}"
    assert received.message["Subject"] == expected


def test_a_resend_carries_the_same_message_id_and_other_content_another(ca: TrustedCA, demo) -> None:
    """A rerun's timings differ (the run block), not its content; another day, language or analysis does."""
    report, artefacts = demo
    rerun = report.model_copy(update={"run": report.run.model_copy(update={"seconds": 99.0})})
    other = report.model_copy(update={"date": DEMO_DAY - timedelta(days=1)})
    english = report.model_copy(update={"language": "en"})
    fewer = report.model_copy(update={"commits": report.commits[1:]})
    with smtp_server("starttls", ca) as server:
        for each in (report, rerun, other, english, fewer):
            _publish(_settings(server.port, "starttls", ca), each, artefacts)
    ids = [received.message["Message-ID"] for received in server.received]
    assert ids[0] == ids[1] and len(set(ids)) == 4


# --------------------------------------------------------------------------- refusals and failures


def test_a_refused_recipient_is_reported_and_the_others_get_the_report(ca: TrustedCA, demo, caplog) -> None:
    report, artefacts = demo
    caplog.set_level(logging.WARNING)
    with smtp_server("starttls", ca, refuse=["bob@example.org"]) as server:
        delivery = _publish(_settings(server.port, "starttls", ca), report, artefacts)
    assert delivery.locations == ["mailto:alice@example.com", "mailto:carol@example.net"]
    (received,) = server.received
    assert received.rcpt_tos == ["alice@example.com", "carol@example.net"]
    (warning,) = [
        r.getMessage() for r in caplog.records if r.name.startswith("repodaily") and r.levelno >= logging.WARNING
    ]
    assert "\n" not in warning and "bob@example.org" in warning and "550 5.1.1" in warning
    assert f"smtp://{HOST}:{server.port}" in warning


def test_every_recipient_refused_is_one_error_line(ca: TrustedCA, demo) -> None:
    report, artefacts = demo
    with smtp_server("starttls", ca, refuse=RECIPIENTS) as server:
        with pytest.raises(PublishError) as failed:
            _publish(_settings(server.port, "starttls", ca), report, artefacts)
    line = _one_line(failed.value)
    assert line.startswith(f"smtp://{HOST}:{server.port}: the server refused every recipient: ")
    assert all(address in line for address in RECIPIENTS) and server.received == []


@pytest.mark.parametrize(
    ("refusal", "line"),
    [
        (
            {"refuse_mail": "553 5.7.1 <reports@example.com>: Sender address rejected: not owned by user"},
            "the server refused the sender reports@example.com: 553 5.7.1 <reports@example.com>: Sender address "
            "rejected: not owned by user",
        ),
        (
            {"refuse_data": "554 5.7.1 Message rejected as spam"},
            "the server refused the message: 554 5.7.1 Message rejected as spam",
        ),
    ],
    ids=["sender", "message"],
)
def test_a_refused_sender_or_message_is_one_line(ca: TrustedCA, demo, refusal: dict[str, str], line: str) -> None:
    report, artefacts = demo
    with smtp_server("starttls", ca, **refusal) as server:
        with pytest.raises(PublishError) as failed:
            _publish(_settings(server.port, "starttls", ca), report, artefacts)
    assert _one_line(failed.value) == f"smtp://{HOST}:{server.port}: {line}"
    assert server.received == []


def test_a_wrong_password_is_one_line_that_does_not_hold_it(ca: TrustedCA, demo) -> None:
    """The server quotes the password it was given; the error line still does not."""
    report, artefacts = demo
    wrong = "not-the-Password-4711"
    with smtp_server("starttls", ca) as server:
        with pytest.raises(PublishError) as failed:
            _publish(_settings(server.port, "starttls", ca), report, artefacts, environ={PASSWORD_ENV: wrong})
    line = _one_line(failed.value)
    assert f"refused the login of '{USERNAME}': 535 5.7.8" in line and "[redacted]" in line
    assert not [piece for piece in _pieces(wrong) if piece in line]
    assert server.received == []


def test_an_unreachable_server_is_one_line_at_once(demo) -> None:
    report, artefacts = demo
    port = closed_port()
    started = time.monotonic()
    with pytest.raises(PublishError) as failed:
        _publish(_settings(port, "starttls"), report, artefacts)
    assert time.monotonic() - started < 2
    assert _one_line(failed.value) == f"smtp://{HOST}:{port}: cannot connect: Connection refused"


@pytest.mark.parametrize("trickle", [False, True], ids=["silent", "trickling"])
def test_a_server_that_does_not_answer_is_cut_off_at_the_deadline(demo, trickle: bool) -> None:
    """Silent: every read times out. Trickling: no read does, one byte comes every 50 ms; the deadline still holds."""
    report, artefacts = demo
    with silent_server(trickle=trickle) as port:
        started = time.monotonic()
        with pytest.raises(PublishError) as failed:
            _publish(_settings(port, "starttls", timeout_s=0.5), report, artefacts)
        elapsed = time.monotonic() - started
    assert 0.4 < elapsed < 2
    assert _one_line(failed.value) == f"smtp://{HOST}:{port}: no answer within 0.5 s"


@pytest.mark.parametrize("security", ["tls", "starttls"])
def test_a_certificate_from_an_unknown_ca_is_refused(ca: TrustedCA, demo, security: str) -> None:
    report, artefacts = demo
    with smtp_server(security, ca) as server:  # type: ignore[arg-type]
        with pytest.raises(PublishError) as failed:
            _publish(_settings(server.port, security), report, artefacts)  # the system's CAs only
    line = _one_line(failed.value)
    assert (
        line
        == f"smtp://{HOST}:{server.port}: its TLS certificate is not trusted: unable to get local issuer certificate"
    )
    assert server.received == []


def test_verify_false_trusts_any_certificate(ca: TrustedCA, demo) -> None:
    report, artefacts = demo
    with smtp_server("tls", ca) as server:
        _publish(_settings(server.port, "tls", verify=False), report, artefacts)
    assert len(server.received) == 1


def test_a_server_without_starttls_is_not_sent_to_in_the_clear(demo) -> None:
    report, artefacts = demo
    with smtp_server("starttls", login=False, offer_starttls=False) as server:
        with pytest.raises(PublishError) as failed:
            _publish(_settings(server.port, "starttls"), report, artefacts)
    assert "does not offer STARTTLS" in _one_line(failed.value) and server.received == []


# --------------------------------------------------------------------------- dry run, settings, health


def test_a_dry_run_sends_nothing_and_shows_the_message_masked(ca: TrustedCA, demo) -> None:
    report, artefacts = demo
    token = "ghp_Zq8Xw2Ev7Rt4Yu1Io6Pa3Sd9Fg5Hj0Kl2Mn"
    leaky = [Artefact("md", "md", "text/markdown", artefacts[0].text + f"\nthe model said {token}\n")]
    with smtp_server("starttls", ca) as server:
        delivery = _publish(
            _settings(server.port, "starttls", ca), report, leaky, dry_run=True, redact=Redactor([token])
        )
    assert server.received == []
    assert delivery.locations == [f"mailto:{address}" for address in RECIPIENTS]
    preview = delivery.preview
    assert preview is not None
    assert preview.startswith(f"# would send by smtp://{HOST}:{server.port} (text/plain, text/html)\n")
    assert f"Subject: [repodaily] {DEMO_REPO_NAME} {DEMO_DAY}\n" in preview and "每日更新报告" in preview
    assert "the model said [redacted]" in preview and "\r" not in preview
    assert not [piece for secret in (token, PASSWORD) for piece in _pieces(secret) if piece in preview]


def test_a_missing_password_variable_is_a_config_error_naming_it(demo) -> None:
    with pytest.raises(ConfigError, match=f"the environment variable {PASSWORD_ENV} \\(password_env\\) is not set"):
        EmailPublisher(settings=_settings(587), context=PublishContext(environ={}))


def test_a_ca_file_that_cannot_be_read_is_a_config_error(tmp_path: Path) -> None:
    (tmp_path / "not-a-ca.pem").write_text("no certificate here\n", encoding="utf-8")
    for name in ("missing.pem", "not-a-ca.pem"):
        settings = _settings(587, ca_file=str(tmp_path / name))
        with pytest.raises(ConfigError, match=f"smtp://{HOST}:587: cannot read ca_file .*{name}"):
            EmailPublisher(settings=settings, context=PublishContext(environ=ENVIRON))


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"password_env": ""}, "username and password_env go together"),
        ({"security": "none"}, "would send the password unencrypted"),
        ({"verify": False, "ca_file": "ca.pem"}, "ca_file is used only to verify"),
        ({"recipients": ["alice@example.com, bob@example.org"]}, "is not one e-mail address"),
        ({"recipients": []}, "at least 1 item"),
        ({"sender": "reports at example.com"}, "is not one e-mail address"),
        ({"subject": "{repo} {weekday}"}, "unknown or malformed field in subject template: 'weekday'"),
        ({"password": "hunter2"}, "Extra inputs are not permitted"),
    ],
)
def test_settings_refuse_what_cannot_work(changes: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=re.escape(message)):
        EmailSettings.model_validate(_values(587) | changes)


def test_the_port_follows_the_security_mode() -> None:
    ports = [
        EmailSettings(host="mail.example.com", security=mode, sender="a@example.com", recipients=["b@example.com"])
        for mode in ("tls", "starttls", "none")
    ]
    assert [settings.target for settings in ports] == [
        "smtp://mail.example.com:465",
        "smtp://mail.example.com:587",
        "smtp://mail.example.com:25",
    ]


def test_health_says_what_worked_and_where_it_stopped(ca: TrustedCA) -> None:
    with smtp_server("starttls", ca) as server:
        settings = _settings(server.port, "starttls", ca)
        (ok,) = asyncio.run(health(settings, ENVIRON))
        (refused,) = asyncio.run(health(settings, {PASSWORD_ENV: "wrong-password-123"}))
    assert ok.ok is True and ok.target == f"smtp://{HOST}:{server.port}"
    assert {key: ok.checks[key] for key in ("connect", "tls", "auth")} == {
        "connect": "yes",
        "tls": "TLSv1.3 (STARTTLS)",
        "auth": "yes",
    }
    assert ok.checks["latency"].endswith(" s")
    assert refused.ok is False and refused.checks == {"connect": "yes", "tls": "TLSv1.3 (STARTTLS)", "auth": "no"}
    assert "535" in refused.problem and "wrong-pa" not in refused.problem and server.received == []
    (down,) = asyncio.run(health(_settings(closed_port(), "starttls"), ENVIRON))
    assert (down.ok, down.checks) == (False, {"connect": "no"}) and "Connection refused" in down.problem
    (unset,) = asyncio.run(health(settings, {}))
    assert unset.ok is False and PASSWORD_ENV in unset.problem


# --------------------------------------------------------------------------- the HTML part


def _html(message: EmailMessage) -> str:
    part = message.get_body(("html",))
    assert part is not None
    return str(part.get_content())


def _message(report: DailyReport, markdown: str) -> EmailMessage:
    artefact = Artefact("md", "md", "text/markdown; charset=utf-8", markdown)
    return build_message(report, [artefact], _settings(587), str)


def _problems(reader: HtmlReader, report: DailyReport) -> list[str]:
    """Elements, attributes and links that neither the page nor the report's templates make."""
    ids = {element.attrs["id"] for element in reader.elements if "id" in element.attrs}
    urls = {address for commit in report.commits for address in (commit.url, commit.pr_url) if address}
    problems = [f"<{e.tag}> {e.attrs}" for e in reader.elements if e.tag not in PAGE_TAGS | REPORT_TAGS]
    for element in reader.elements:
        for name, value in element.attrs.items():
            squeezed = re.sub(r"[\s\x00-\x1f]", "", value).lower()
            if name.startswith("on") or "javascript:" in squeezed or "url(" in squeezed or "expression(" in squeezed:
                problems.append(f"<{element.tag} {name}={value!r}>")
        href = unquote(element.attrs.get("href", ""))
        if element.tag == "a" and "href" in element.attrs and href not in urls and href.removeprefix("#") not in ids:
            problems.append(f"<a href={href!r}> leads neither to the report's commits nor inside it")
    return problems + [f"stray </{tag}>" for tag in reader.stray_end_tags]


def test_the_html_part_is_styled_inline_and_self_contained(demo) -> None:
    report, artefacts = demo
    html = _html(_message(report, artefacts[0].text))
    reader = HtmlReader(html)
    assert _problems(reader, report) == []
    assert not re.search(r"<(script|style|link|img|iframe)\b", html, re.IGNORECASE)
    unstyled = [
        f"<{e.tag} {e.attrs}>"
        for e in reader.elements
        if e.tag not in UNSTYLED and "style" not in e.attrs
        if not (e.tag == "a" and UNSTYLED_ANCHOR.fullmatch(e.attrs.get("id", "")))
    ]
    assert unstyled == []
    cells = [e for e in reader.elements if e.tag in ("td", "th") and {"thead", "tbody"} & set(e.inside)]
    fonts = {e.attrs["style"] for e in reader.elements if e.tag == "h1"} | {e.attrs["style"] for e in cells}
    assert len(cells) == 3 * (1 + len(report.commits))
    assert all("'Microsoft YaHei'" in style and "'PingFang SC'" in style for style in fonts)
    rows = reader.texts("tr")
    assert len(rows) == 1 + len(report.commits) + 2  # header and commits, and the two layout rows of the page
    anchors = [
        unquote(e.attrs["href"]) for e in reader.elements if e.tag == "a" and e.attrs.get("href", "").startswith("#")
    ]
    assert len(anchors) > len(report.commits)  # the TOC's links, each of which resolves (checked above)
    assert html.startswith('<!DOCTYPE html>\n<html lang="zh-CN">')


@pytest.mark.parametrize("payload", params(ALL))
def test_hostile_text_is_inert_in_the_html_part(demo, payload: str) -> None:
    """Every field that shows commit or model text holds the payload: only our elements and links come out."""
    report, _ = demo
    first, second, *others = report.commits
    deep = first.analysis.model_copy(
        update={
            "summary": [payload],
            "one_line": payload,
            "importance_reason": payload,
            "impact_scope": [payload],
            "insights": [Insight(aspect="security", text=payload)],
            "risks": [payload],
            "recommendations": [Recommendation(audience="operators", text=payload)],
            "note": payload,
            "status": AnalysisStatus.fallback,
        }
    )
    commits = [
        first.model_copy(update={"analysis": deep, "subject": payload, "author": payload, "message_lines": [payload]}),
        second.model_copy(update={"analysis": second.analysis.model_copy(update={"one_line": payload})}),
        *others,
    ]
    hostile = report.model_copy(
        update={
            "commits": commits,
            "highlights": [Highlight(text=payload, shas=[first.sha])],
            "links": [DayLink(kind="series", label=payload, shas=[first.sha, second.sha])],
        }
    )
    reader = HtmlReader(_html(_message(hostile, render_markdown(hostile))))
    assert _problems(reader, hostile) == []


def test_raw_html_images_and_foreign_links_from_a_template_are_shown_as_text(demo) -> None:
    """Defence in depth: even Markdown that carries them (a user's template) yields no foreign element or link."""
    report, _ = demo
    markdown = (
        '# t\n\n<div onclick="x()">block</div>\n\ntext <img src=x onerror=alert(1)> <b>bold</b> '
        "![pixel](https://tracker.example/p.gif) [click](javascript:alert(1)) [ok](https://example.com/x)\n"
    )
    html = _html(_message(report, markdown))
    reader = HtmlReader(html)
    assert {e.tag for e in reader.elements} - PAGE_TAGS == {"h1", "p", "a"}
    assert [e.attrs["href"] for e in reader.elements if e.tag == "a"] == ["https://example.com/x"]
    assert "&lt;img src=x onerror=alert(1)&gt;" in html and "&lt;div onclick" in html and "pixel" in html


# --------------------------------------------------------------------------- through the CLI


def test_repodaily_run_delivers_by_email_and_doctor_checks_the_server(
    ca: TrustedCA, demo_repo: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    registry().add_plugin(plugin, "email")  # as its entry point will, once installed
    monkeypatch.setenv(PASSWORD_ENV, PASSWORD)
    with smtp_server("starttls", ca, refuse=["carol@example.net"]) as server:
        config = tmp_path / "repodaily.toml"
        config.write_text(
            f'cache_dir = "{tmp_path / "cache"}"\n[output]\nformats = ["md", "json"]\n'
            f'[[publish]]\ntype = "email"\nhost = "{HOST}"\nport = {server.port}\nusername = "{USERNAME}"\n'
            f'password_env = "{PASSWORD_ENV}"\nsender = "{SENDER}"\nrecipients = {json.dumps(RECIPIENTS)}\n'
            f'ca_file = "{ca.file}"\n'
            f'[[repos]]\nname = "{DEMO_REPO_NAME}"\npath = "{demo_repo}"\n',
            encoding="utf-8",
        )
        run = CliRunner().invoke(main, ["run", "--config", str(config), "--date", DEMO_DAY.isoformat()])
        doctor = CliRunner().invoke(main, ["doctor", "--config", str(config)])
    assert run.exit_code == 0, run.stderr
    assert run.stdout.split() == ["mailto:alice@example.com", "mailto:bob@example.org"]
    assert [line for line in run.stderr.splitlines() if "carol@example.net" in line] == [
        f"repodaily: WARNING: email: smtp://{HOST}:{server.port} refused the recipient carol@example.net "
        "(550 5.1.1 <carol@example.net>: Recipient address rejected: User unknown in virtual mailbox table); "
        f"{DEMO_REPO_NAME} {DEMO_DAY} went to the others"
    ]
    (received,) = [r for r in server.received if r.rcpt_tos == ["alice@example.com", "bob@example.org"]]
    assert _parts(received.message)[-1] == "application/json"
    assert doctor.exit_code == 0, doctor.stderr
    assert f"smtp://{HOST}:{server.port}" in doctor.stdout + doctor.stderr


# --------------------------------------------------------------------------- a week


def test_a_weekly_email_carries_the_weeks_digest(ca: TrustedCA, demo) -> None:
    report, _ = demo
    digest = build_weekly([report], week_of(DEMO_DAY))
    artefacts = weekly_artefacts(digest, ["md", "json"])
    with smtp_server("starttls", ca) as server:
        settings = _settings(server.port, "starttls", ca)
        publisher = EmailPublisher(settings=settings, context=PublishContext(environ=ENVIRON))
        delivery = asyncio.run(publisher.publish_week(digest, artefacts))
    assert delivery.locations == [f"mailto:{address}" for address in RECIPIENTS]
    (received,) = server.received
    message = received.message
    assert message["Subject"] == f"{DEMO_REPO_NAME} · 周报 {digest.week}（{digest.start} — {digest.end}）"
    text = message.get_body(("plain",))
    assert text is not None and text.get_content().replace("\r\n", "\n") == artefacts[0].text
    (attachment,) = message.iter_attachments()
    assert attachment.get_filename() == f"inferno-{digest.week}.json"
    assert re.fullmatch(rf"<repodaily\.{digest.week}\.[0-9a-f]{{24}}@example\.com>", message["Message-ID"])
    assert received.data.isascii()
