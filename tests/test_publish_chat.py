"""The chat publishers against real local receivers that check what each platform checks.

Each publisher is made as the registry makes it (settings, a publish context
whose environment holds the webhook URL and secret) and posts to a receiver
from :mod:`chat_receivers` on 127.0.0.1, which verifies the signature by the
platform's documented algorithm, enforces its limits and answers with its real
codes. Time is real except the waits between attempts: a clock that moves
when the publisher sleeps, so a 7-second Retry-After costs nothing and is seen.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from typing import Any

import pytest
from chat_receivers import (
    DingTalkReceiver,
    FeishuReceiver,
    Receiver,
    SlackReceiver,
    WebhookReceiver,
    WeComReceiver,
)
from hostile import ALL
from llm_fakes import FakeTime
from markdown_it import MarkdownIt

from repodaily.errors import ConfigError, PublishError
from repodaily.models import (
    Analysis,
    ChangeType,
    CoverageReceipt,
    DailyReport,
    Highlight,
    HighlightKind,
    Importance,
    ReportCommit,
    RunInfo,
    Stats,
)
from repodaily.plugins import registry
from repodaily.publish.base import Delivery, PublishContext
from repodaily.publish.chat import plugin
from repodaily.publish.chat.dingtalk import DingTalk
from repodaily.publish.chat.feishu import Feishu
from repodaily.publish.chat.publisher import ChatPublisher, Platform
from repodaily.publish.chat.settings import (
    ChatSettings,
    DingTalkSettings,
    FeishuSettings,
    Secrets,
    SlackSettings,
    WebhookSettings,
    WeComSettings,
)
from repodaily.publish.chat.slack import Slack
from repodaily.publish.chat.summary import summarize
from repodaily.publish.chat.transport import Pace
from repodaily.publish.chat.webhook import Webhook
from repodaily.publish.chat.wecom import WeCom
from repodaily.redact import NO_SECRETS, Redactor
from repodaily.render.base import Artefact
from repodaily.weekly import build_weekly

SECRET = "SECa1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d2e3f4"
REPORT_URL = "https://github.com/acme/reports/blob/main/{year}/{repo}/{date}.md"
OUR_REPORT = "https://github.com/acme/reports/blob/main/2026/acme/app/2026-03-02.md"
PLATFORMS: dict[str, tuple[type[Platform], type[ChatSettings], type[Receiver]]] = {
    "feishu": (Feishu, FeishuSettings, FeishuReceiver),
    "dingtalk": (DingTalk, DingTalkSettings, DingTalkReceiver),
    "wecom": (WeCom, WeComSettings, WeComReceiver),
    "slack": (Slack, SlackSettings, SlackReceiver),
    "webhook": (Webhook, WebhookSettings, WebhookReceiver),
}
SIGNED = ("feishu", "dingtalk", "webhook")


# --------------------------------------------------------------------------- reports and publishers


def _commit(index: int, importance: Importance, subject: str, one_line: str) -> ReportCommit:
    sha = f"{index:x}".rjust(40, "a")
    analysis = Analysis(
        type=ChangeType.fix,
        importance=importance,
        one_line=one_line,
        coverage=CoverageReceipt(budget_tokens=100, tokens_sent=10),
        analyzer="heuristic/test",
    )
    return ReportCommit(
        sha=sha,
        short_sha=sha[:7],
        url=f"https://github.com/acme/app/commit/{sha}",
        committed_at=datetime(2026, 3, 2, 9, index % 60, tzinfo=UTC),
        author="Ada",
        subject=subject,
        message_lines=[subject],
        analysis=analysis,
    )


def _report(
    high: list[tuple[str, str]] | None = None,
    *,
    language: str = "zh",
    highlights: list[str] | None = None,
    seconds: float = 1.5,
) -> DailyReport:
    """A day of acme/app with these high commits (subject, one line), one low commit and one degraded."""
    pairs = high if high is not None else [("[Kernel] Fix FP8 overflow (#101)", "修复 FP8 溢出导致的错误结果")]
    commits = [_commit(i + 1, Importance.high, s, line) for i, (s, line) in enumerate(pairs)]
    commits.append(_commit(len(pairs) + 1, Importance.low, "[Doc] Typo", "修正文档拼写"))
    texts = highlights if highlights is not None else ["FP8 溢出修复值得关注"]
    return DailyReport(
        repo="acme/app",
        date=date(2026, 3, 2),
        timezone="Asia/Shanghai",
        language=language,  # type: ignore[arg-type]
        commits=commits,
        stats=Stats(total=len(commits), high=len(pairs), low=1, degraded=1),
        highlights=[Highlight(text=text, shas=[]) for text in texts],
        run=RunInfo(analyzer="heuristic/test", seconds=seconds),
    )


def _publisher(
    name: str,
    receiver: Receiver,
    *,
    dry_run: bool = False,
    time: FakeTime | None = None,
    signed: bool = True,
    redact: Redactor = NO_SECRETS,
    **settings: Any,
) -> ChatPublisher:
    platform, model, _ = PLATFORMS[name]
    environ = {"HOOK_URL": receiver.url, "HOOK_SECRET": SECRET}
    table: dict[str, Any] = {"webhook_url_env": "HOOK_URL", "report_url": REPORT_URL, **settings}
    if signed and name in SIGNED:
        table["secret_env"] = "HOOK_SECRET"
    time = time or FakeTime()
    context = PublishContext(dry_run=dry_run, redact=redact, environ=environ)
    return ChatPublisher(
        platform, settings=model.model_validate(table), context=context, sleep=time.sleep, clock=time.clock
    )


def _publish(publisher: ChatPublisher, report: DailyReport, artefacts: list[Artefact] | None = None) -> Delivery:
    async def go() -> Delivery:
        try:
            return await publisher.publish(report, artefacts or [])
        finally:
            await publisher.aclose()

    return asyncio.run(go())


@pytest.fixture(params=list(PLATFORMS))
def platform(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def receiver(platform: str) -> Iterator[Receiver]:
    _, _, kind = PLATFORMS[platform]
    with kind(SECRET) as made:
        yield made


# --------------------------------------------------------------------------- what each platform receives


def _texts(platform: str, body: dict[str, Any]) -> str:
    """All the text a platform's message shows, in order (for the checks that read the words)."""
    if platform == "feishu":
        (post,) = body["content"]["post"].values()
        return "\n".join([post["title"], *("".join(e["text"] for e in line) for line in post["content"])])
    if platform == "dingtalk":
        return body["markdown"]["text"]
    if platform == "wecom":
        return body["markdown"]["content"]
    if platform == "slack":
        texts = []
        for block in body["blocks"]:
            texts += [block["text"]["text"]] if "text" in block else [e["text"] for e in block["elements"]]
        return "\n".join(texts)
    return json.dumps(body, ensure_ascii=False)


def test_each_platform_receives_the_summary_in_its_own_shape(platform, receiver):
    delivery = _publish(_publisher(platform, receiver), _report())
    (request,) = receiver.delivered
    body = request.json()
    assert delivery.publisher == platform and delivery.preview is None
    assert delivery.locations == [f"{receiver.origin}/…"]  # where it went, the token not shown
    if platform == "feishu":
        assert body["msg_type"] == "post" and set(body) == {"timestamp", "sign", "msg_type", "content"}
        line = body["content"]["post"]["zh_cn"]["content"][4]
        assert line[0] == {"tag": "a", "text": "[Kernel] Fix FP8 overflow (#101)", "href": _report().commits[0].url}
    elif platform in ("dingtalk", "wecom"):
        assert body["msgtype"] == "markdown"
        assert "- ［Kernel］ Fix FP8 overflow (#101)" not in _texts(platform, body)  # a link, not text
        assert f"[［Kernel］ Fix FP8 overflow (#101)]({_report().commits[0].url})" in _texts(platform, body)
    elif platform == "slack":
        assert [block["type"] for block in body["blocks"]] == ["header", *["section"] * 4, "context"]
        assert body["text"].startswith("acme/app · 每日更新报告（2026-03-02）")
    else:
        assert body["commits"] == [
            {
                "sha": "aaaaaaa",
                "title": "[Kernel] Fix FP8 overflow (#101)",
                "one_line": "修复 FP8 溢出导致的错误结果",
                "url": _report().commits[0].url,
            }
        ]
        assert body["stats"] == {"total": 2, "high": 1, "medium": 0, "low": 1, "degraded": 1}
    if platform != "webhook":
        shown = _texts(platform, body)
        for words in (
            "acme/app",
            "本日共 2 个提交",
            "🔴高 1",
            "⚠️降级 1",
            "FP8 溢出修复值得关注",
            "修复 FP8 溢出导致的错误结果",
        ):
            assert words in shown, words
        assert OUR_REPORT in request.body.decode() and "[Doc] Typo" not in shown  # high commits only


def test_the_language_follows_the_report(platform, receiver):
    _publish(_publisher(platform, receiver), _report(language="en"))
    body = receiver.delivered[0].json()
    shown = _texts(platform, body)
    if platform == "feishu":
        assert set(body["content"]["post"]) == {"en_us"}
    if platform != "webhook":
        assert "2 commits on this day" in shown and "Full report" in shown and "本日" not in shown


# --------------------------------------------------------------------------- signatures


def test_feishu_and_dingtalk_signatures_pass_the_documented_check_and_a_wrong_secret_is_refused():
    for name in ("feishu", "dingtalk"):
        with PLATFORMS[name][2]("another-secret-9z8y7x") as receiver:
            with pytest.raises(PublishError) as refused:
                _publish(_publisher(name, receiver), _report())
            assert len(receiver.received) == 1 and receiver.delivered == []  # refused for good: not retried
        code = "code 19021" if name == "feishu" else "errcode 310000"
        assert code in str(refused.value)
        with PLATFORMS[name][2](SECRET) as receiver:
            _publish(_publisher(name, receiver), _report())
            assert len(receiver.delivered) == 1


def test_dingtalk_keeps_the_access_token_next_to_the_signature():
    with DingTalkReceiver(SECRET) as receiver:
        _publish(_publisher("dingtalk", receiver), _report())
        (request,) = receiver.delivered
    query = receiver.query(request)
    assert set(query) == {"access_token", "timestamp", "sign"} and query["access_token"] == DingTalkReceiver.TOKEN
    assert request.path.startswith(f"/robot/send?access_token={DingTalkReceiver.TOKEN}&timestamp=")


def test_the_webhook_is_signed_as_github_signs_and_can_carry_the_report_json():
    artefact = Artefact(format="json", suffix="json", media_type="application/json", text='{"repo": "acme/app"}\n')
    with WebhookReceiver(SECRET) as receiver:
        _publish(_publisher("webhook", receiver, payload="report"), _report(), [artefact])
        (request,) = receiver.delivered
    assert request.body == artefact.text.encode()  # the artefact's exact bytes, which the signature covers
    assert request.headers["x-repodaily-signature"].startswith("sha256=")
    with WebhookReceiver("not-the-secret-123") as receiver, pytest.raises(PublishError, match="HTTP 401"):
        _publish(_publisher("webhook", receiver), _report())


# --------------------------------------------------------------------------- limits


def _many_high(count: int, subject_chars: int = 150) -> list[tuple[str, str]]:
    return [
        (f"[Core] change {i:03d} " + "很长的标题" * (subject_chars // 5), "影响很大的改动" * 30) for i in range(count)
    ]


def test_an_oversize_summary_drops_commits_from_the_end_and_says_how_many(platform, receiver):
    report = _report(_many_high(80))
    _publish(_publisher(platform, receiver), report)
    (request,) = receiver.delivered  # the receiver enforces the limit: accepted means it fits
    body = request.json()
    if platform == "webhook":  # no limit: everything goes
        assert len(body["commits"]) == 80
        return
    shown = _texts(platform, body)
    listed = len(re.findall(r"change \d{3}", shown))
    assert 0 < listed < 80 and "change 000" in shown
    assert f"……另有 {80 - listed} 个高重要度提交未列出" in shown
    assert "🔴 高重要度变更 (80)" in shown  # the heading counts the day's high commits, listed or not


def test_a_long_title_is_cut_between_whole_characters():
    """An accent written as a combining mark stays with its letter: no letter is shown without it."""
    subject = "Fix " + "e\u0301" * 300
    summary = summarize(_report([(subject, "x")]), report_url="", redact=NO_SECRETS)
    title = summary.items[0].title
    assert title.endswith("\u0301…") and subject.startswith(title[:-1])


def test_a_summary_that_cannot_fit_fails_clearly_and_sends_nothing():
    long_highlights = ["这是一条很长的今日要点" * 30] * 8  # 8 × 240 characters of 3 bytes: over WeCom's 4,096 bytes
    with WeComReceiver() as receiver:
        with pytest.raises(PublishError) as failed:
            _publish(_publisher("wecom", receiver), _report(highlights=long_highlights))
        assert receiver.received == []
    message = str(failed.value)
    assert "\n" not in message and "does not fit even without commits" in message and "4,096-byte limit" in message
    assert WeComReceiver.KEY not in message


# --------------------------------------------------------------------------- answers


def test_a_rate_limit_is_retried_then_delivered(platform, receiver):
    time = FakeTime()
    receiver.throttle = 2
    _publish(_publisher(platform, receiver, time=time), _report())
    assert len(receiver.received) == 3 and len(receiver.delivered) == 1
    retry_waits = [wait for wait in time.sleeps if wait >= 1]
    expected = {"slack": [7, 7], "webhook": [3, 3]}.get(platform, [1, 2])  # Retry-After when given, else backoff
    assert retry_waits == expected


def test_retries_stop_at_max_attempts_with_the_last_answer(platform, receiver):
    receiver.throttle = 10
    with pytest.raises(PublishError) as failed:
        _publish(_publisher(platform, receiver, max_attempts=3), _report())
    assert len(receiver.received) == 3 and receiver.delivered == []
    assert "gave up after 3 attempt(s)" in str(failed.value)


def test_a_retry_after_beyond_max_wait_is_not_waited_for():
    time = FakeTime()
    with SlackReceiver() as receiver:
        receiver.throttle, receiver.retry_after = 1, 600
        with pytest.raises(PublishError, match="rate_limited"):
            _publish(_publisher("slack", receiver, time=time, max_wait_s=120), _report())
    assert len(receiver.received) == 1 and all(wait < 600 for wait in time.sleeps)


@pytest.mark.parametrize("retry_after", ["nan", "inf", "1e400"])
def test_a_retry_after_no_clock_can_end_is_waited_out_as_a_backoff(retry_after):
    """NaN passes every bound (``waited + nan > max_wait`` is false) and sleeps not at all: a retry at once."""
    time = FakeTime()
    with SlackReceiver() as receiver:
        receiver.throttle, receiver.retry_after = 2, retry_after
        _publish(_publisher("slack", receiver, time=time), _report())
    assert len(receiver.delivered) == 1
    assert [wait for wait in time.sleeps if wait >= 1] == [1, 2]


def _wrong_token_url(platform: str, receiver: Receiver) -> str:
    token = {"feishu": FeishuReceiver.TOKEN, "dingtalk": DingTalkReceiver.TOKEN, "wecom": WeComReceiver.KEY}
    return receiver.url.replace(token.get(platform, "abcdefghijklmnopqrstuvwx"), "b4d70k3n-f00d-4bad-9bad-0000deadbeef")


@pytest.mark.parametrize("name", ["feishu", "dingtalk", "wecom", "slack"])
def test_a_refused_token_fails_in_one_line_with_the_code_and_no_secret(name):
    kind = PLATFORMS[name][2]
    with kind(SECRET) as receiver:
        url = _wrong_token_url(name, receiver)
        environ = {"HOOK_URL": url, "HOOK_SECRET": SECRET}
        settings = PLATFORMS[name][1].model_validate({"webhook_url_env": "HOOK_URL"})
        context = PublishContext(environ=environ)
        with pytest.raises(PublishError) as failed:
            _publish(ChatPublisher(PLATFORMS[name][0], settings=settings, context=context), _report())
        assert len(receiver.received) == 1
    message = str(failed.value)
    expected = {"feishu": "code 19001", "dingtalk": "errcode 300001", "wecom": "errcode 93000", "slack": "HTTP 404"}
    assert expected[name] in message and message.startswith(f"{name} (http://127.0.0.1:")
    assert "\n" not in message and "b4d70k3n" not in message and SECRET not in message


def test_no_answer_is_not_sent_again_to_a_chat_but_is_to_a_webhook_that_tells_repeats():
    with FeishuReceiver() as receiver:
        receiver.stall = True
        with pytest.raises(PublishError, match="may have been posted, so it is not sent again"):
            _publish(_publisher("feishu", receiver, signed=False, timeout_s=0.5), _report())
        assert len(receiver.received) == 1
    with WebhookReceiver() as receiver:
        receiver.stall = True
        with pytest.raises(PublishError, match="gave up after 2 attempt"):
            _publish(_publisher("webhook", receiver, signed=False, timeout_s=0.5, max_attempts=2), _report())
        first, second = receiver.received
    assert first.body == second.body and first.headers["x-repodaily-delivery"] == second.headers["x-repodaily-delivery"]


def test_a_connection_refused_is_retried():
    with SlackReceiver() as receiver:
        url = receiver.url
    time = FakeTime()
    environ = {"HOOK_URL": url}
    publisher = ChatPublisher(
        Slack,
        settings=SlackSettings(webhook_url_env="HOOK_URL", max_attempts=2),
        context=PublishContext(environ=environ),
        sleep=time.sleep,
        clock=time.clock,
    )
    with pytest.raises(PublishError, match=r"cannot connect \(ConnectError\) \(gave up after 2"):
        _publish(publisher, _report())


def test_pace_keeps_within_the_platforms_window():
    time = FakeTime()

    async def three() -> None:
        pace = Pace(2, 60.0, clock=time.clock, sleep=time.sleep)
        for _ in range(3):
            await pace.turn()

    asyncio.run(three())
    assert time.sleeps == [60.0]


# --------------------------------------------------------------------------- hostile text


def _hostile_report() -> DailyReport:
    texts = list(ALL.values())
    pairs = [(texts[i], texts[-1 - i]) for i in range(len(texts))]
    return _report(pairs, highlights=texts[:8])


def _our_links(report: DailyReport) -> set[str]:
    return {commit.url or "" for commit in report.commits} | {OUR_REPORT}


_AUTOLINK = re.compile(r"://|(?<![A-Za-z0-9])www\.|[\w.+-]@\w", re.IGNORECASE)


def _links_and_markup(platform: str, body: dict[str, Any]) -> tuple[set[str], list[str]]:
    """The link targets a platform would make of ``body``, and whatever else would be markup (mentions, HTML)."""
    links: set[str] = set()
    markup: list[str] = []
    if platform == "feishu":
        (post,) = body["content"]["post"].values()
        for element in (e for line in post["content"] for e in line):
            if element["tag"] == "a":
                links.add(element["href"])
            elif element["tag"] != "text":
                markup.append(element["tag"])
            elif _AUTOLINK.search(element["text"]):
                markup.append(element["text"])
    elif platform in ("dingtalk", "wecom"):
        content = _texts(platform, body)
        parser = MarkdownIt("gfm-like", {"html": True})
        parser.linkify.set({"fuzzy_link": False})
        for token in (t for block in parser.parse(content) for t in [block, *(block.children or [])]):
            if token.type == "link_open":
                links.add(str(token.attrs["href"]))
            elif token.type in ("html_inline", "html_block", "image", "code_inline", "fence", "code_block"):
                markup.append(token.type)
            elif token.type == "heading_open" and token.map and token.map[0] != 0:
                markup.append("a heading of its own")
        markup += re.findall(r"<@|<font", content)
    elif platform == "slack":
        for text in [body["text"], _texts(platform, body)]:
            for target in re.findall(r"<([^>]*)>", text):
                url, bar, _ = target.partition("|")
                links.add(url) if bar and not url.startswith(("!", "@", "#")) else markup.append(target)
            outside = re.sub(r"<[^>]*>", "", text)
            markup += re.findall(r"`", outside) + [m.group() for m in _AUTOLINK.finditer(outside)]
    return links, markup


def test_hostile_text_makes_no_link_mention_or_markup_in_any_platform(platform):
    report = _hostile_report()
    model = PLATFORMS[platform][1].model_validate({"webhook_url_env": "HOOK_URL", "report_url": REPORT_URL})
    made = PLATFORMS[platform][0](model, Secrets(url="https://chat.test/hook"), NO_SECRETS)
    summary = summarize(report, report_url=REPORT_URL, redact=NO_SECRETS)
    body = json.loads(made.prepare(report, [], summary)(0).body) if platform == "webhook" else made.render(summary)  # type: ignore[attr-defined]
    if platform == "webhook":  # data, not markup: every text arrives exactly as the summary holds it
        assert [c["title"] for c in body["commits"]] == [item.title for item in summary.items]
        return
    assert not re.search("[\u202a-\u202e\u2066-\u2069]", _texts(platform, body)), "a bidi scope reorders our text"
    links, markup = _links_and_markup(platform, body)
    assert links <= _our_links(report) and OUR_REPORT in links and len(links) > len(ALL) // 2
    assert markup == []
    plain = _report([("x", "y")] * len(ALL), highlights=["h"] * len(report.highlights))
    plain_body = made.render(summarize(plain, report_url=REPORT_URL, redact=NO_SECRETS))  # type: ignore[attr-defined]
    assert _texts(platform, body).count("\n") == _texts(platform, plain_body).count("\n")  # no line of its own


def test_hostile_text_is_delivered_where_the_platform_accepts_it(platform, receiver):
    _publish(_publisher(platform, receiver), _hostile_report())
    assert len(receiver.delivered) == 1


# --------------------------------------------------------------------------- dry run, secrets, determinism


def test_a_dry_run_sends_nothing_and_shows_no_secret(platform, receiver):
    delivery = _publish(_publisher(platform, receiver, dry_run=True), _report())
    assert receiver.received == []
    preview = delivery.preview or ""
    assert preview.startswith(f"# would POST to {receiver.origin}/…")
    assert delivery.locations == [f"{receiver.origin}/…"]
    token = urlsplit_token(receiver.url)
    assert token not in preview and SECRET not in preview
    if platform == "feishu":
        assert '"sign":"[redacted]"' in preview
    assert (
        "修复 FP8 溢出导致的错误结果" in preview
        or "修复 FP8 溢出导致的错误结果" in json.loads(preview.split("\n", 1)[1])["commits"][0]["one_line"]
    )


def urlsplit_token(url: str) -> str:
    return re.split(r"[/=]", url)[-1]


def test_a_secret_in_commit_text_is_masked_in_the_message(platform, receiver):
    key = "sk-live-Zq8Xw2Ev7Rt4Yu1Io6Pa"
    report = _report([(f"Rotate {key}", f"the key {key} leaked")])
    _publish(_publisher(platform, receiver, redact=Redactor([key])), report)
    body = receiver.delivered[0].body.decode()
    assert "Zq8Xw2Ev" not in body and ("[redacted]" in body or "［redacted］" in body)  # robots' look-alikes


def test_the_same_report_makes_the_same_bytes_whatever_the_run_took(platform):
    bodies = []
    for seconds in (1.5, 3600.0):
        report = _report(_many_high(3), seconds=seconds)
        model = PLATFORMS[platform][1].model_validate({"webhook_url_env": "HOOK_URL", "report_url": REPORT_URL})
        made = PLATFORMS[platform][0](model, Secrets(url="https://chat.test/hook"), NO_SECRETS)
        build = made.prepare(report, [], summarize(report, report_url=REPORT_URL, redact=NO_SECRETS))
        bodies.append(build(1_772_400_000).body)
    assert bodies[0] == bodies[1]


def test_a_signed_message_differs_only_in_its_signature():
    with FeishuReceiver(SECRET) as receiver:
        for _ in range(2):
            _publish(_publisher("feishu", receiver), _report())
        first, second = (request.json() for request in receiver.delivered)
    for body in (first, second):
        del body["timestamp"], body["sign"]
    assert first == second


# --------------------------------------------------------------------------- settings and the registry


def test_a_missing_or_unusable_variable_is_a_config_error_naming_it_not_its_value():
    with pytest.raises(ConfigError, match="FEISHU_WEBHOOK_URL.*is not set"):
        ChatPublisher(Feishu, settings=FeishuSettings(), context=PublishContext(environ={}))
    with pytest.raises(ConfigError, match="FEISHU_SECRET.*is not set"):
        environ = {"FEISHU_WEBHOOK_URL": "https://open.feishu.cn/open-apis/bot/v2/hook/x"}
        ChatPublisher(
            Feishu, settings=FeishuSettings(secret_env="FEISHU_SECRET"), context=PublishContext(environ=environ)
        )
    with pytest.raises(ConfigError) as unusable:
        environ = {"FEISHU_WEBHOOK_URL": "file:///etc/passwd-token-1234"}
        ChatPublisher(Feishu, settings=FeishuSettings(), context=PublishContext(environ=environ))
    assert "http(s) URL" in str(unusable.value) and "passwd" not in str(unusable.value)


def test_the_settings_are_strict_and_the_link_template_is_checked():
    with pytest.raises(ValueError, match="secret_env"):
        WeComSettings.model_validate({"secret_env": "X"})  # WeCom robots do not sign
    with pytest.raises(ValueError, match="unknown or malformed field"):
        SlackSettings(report_url="https://x.test/{branch}")
    with pytest.raises(ValueError, match="http"):
        SlackSettings(report_url="javascript:alert('{repo}')")


def test_the_plugin_registers_every_chat_publisher_with_its_health_check():
    plugins = registry()
    plugins.add_plugin(plugin, "chat")
    assert set(PLATFORMS) <= set(plugins.names("publisher"))
    made = plugins.create(
        "publisher",
        "slack",
        {"webhook_url_env": "S"},
        "test",
        context=PublishContext(environ={"S": "https://h.test/x"}),
    )
    assert isinstance(made, ChatPublisher) and made.location == "https://h.test/…"
    health = plugins.get("publisher", "dingtalk").health
    assert health is not None
    (missing,) = asyncio.run(health(DingTalkSettings(), {}))
    (ready,) = asyncio.run(
        health(DingTalkSettings(), {"DINGTALK_WEBHOOK_URL": "https://oapi.dingtalk.com/robot/send?access_token=t"})
    )
    assert missing.ok is False and "DINGTALK_WEBHOOK_URL" in missing.problem
    assert ready.ok is True and ready.checks == {"webhook": "https://oapi.dingtalk.com/…", "signed": "no"}


# --------------------------------------------------------------------------- a week


def test_each_platform_takes_a_weeks_summary(platform: str, receiver: Receiver):
    day = _report([("[Kernel] Fix FP8 overflow (#101)", "修复 FP8 溢出"), ("[Core] Drop v0 (#102)", "移除 v0")])
    day = day.model_copy(
        update={
            "highlights": [Highlight(kind=HighlightKind.high, text=c.subject, shas=[c.sha]) for c in day.commits[:2]]
        }
    )
    digest = build_weekly([day], "2026-W10")
    publisher = _publisher(platform, receiver)

    async def go() -> Delivery:
        try:
            return await publisher.publish_week(digest, [])
        finally:
            await publisher.aclose()

    delivery = asyncio.run(go())
    (request,) = receiver.delivered
    body = request.body.decode()
    assert delivery.locations and "2026-W10" in body and "Fix FP8 overflow" in body and "Drop v0" in body
    if platform == "webhook":
        sent = json.loads(body)
        assert sent["week"] == "2026-W10" and sent["stats"] == {"total": 3, "high": 2, "medium": 0, "low": 1}
