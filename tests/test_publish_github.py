"""The GitHub publishers against a local fake of GitHub's REST API (tests/github_fake.py).

Reports are made by the real renderers; each test reads back what the fake
holds (files and commits, issues and comments) and what it was sent.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pluggy
import pytest
from github_fake import GitHubFake, blob_sha
from hostile import AUTHORS, SUBJECTS
from pydantic import ValidationError
from report_checks import anchor_ids, fragment_links, headings, markup_problems, parse, rendered

from repodaily import hookspecs
from repodaily.errors import ConfigError, PublishError
from repodaily.models import (
    Analysis,
    ChangeType,
    CoverageReceipt,
    DailyReport,
    Importance,
    Provenance,
    ReportCommit,
    RunInfo,
    Stats,
    Verdict,
)
from repodaily.plugins import Registry
from repodaily.publish.base import Delivery, PublishContext, Publisher
from repodaily.publish.github import plugin
from repodaily.publish.github.client import GitHubClient
from repodaily.publish.github.file import GitHubFilePublisher
from repodaily.publish.github.issue import GitHubIssuePublisher
from repodaily.publish.github.settings import GitHubFileSettings, GitHubIssueSettings
from repodaily.publish.github.split import split_markdown
from repodaily.redact import MASK
from repodaily.render import github_slug
from repodaily.render.base import Artefact
from repodaily.render.plugin import JsonRenderer, MarkdownRenderer

TOKEN = "ghp_R3p0rtB0tT0k3nZq8Xw2Ev7Rt4Yu1Io6Pa"
REPOSITORY = "acme/reports"
MAX = 65_536

# --------------------------------------------------------------------------- reports


def _commit(repo: str, index: int, subject: str, summary: str, author: str = "Ada Lovelace") -> ReportCommit:
    sha = hashlib.sha1(f"{repo}:{index}".encode()).hexdigest()
    importance = list(Importance)[index % 3]
    verdict = Verdict(
        type=ChangeType.feat,
        importance=importance,
        importance_reason="it changes how requests are scheduled",
        summary=[summary],
        one_line=f"change {index}",
        impact_scope=["`vllm/core/scheduler.py`"],
        risks=["latency under load"],
    )
    provenance = Provenance(coverage=CoverageReceipt(budget_tokens=6000, tokens_sent=0), analyzer="heuristic/1")
    return ReportCommit(
        sha=sha,
        short_sha=sha[:7],
        url=f"https://github.com/{repo}/commit/{sha}",
        committed_at=datetime(2026, 2, 9, 23, 0, tzinfo=UTC) - timedelta(minutes=index),
        author=author,
        subject=subject,
        message_lines=[subject],
        analysis=Analysis.of(verdict, provenance),
    )


def _report(
    count: int = 3,
    *,
    summary_chars: int = 60,
    subjects: Sequence[str] = (),
    authors: Sequence[str] = (),
    day: date = date(2026, 2, 9),
    repo: str = "acme/widget",
) -> DailyReport:
    """A day of ``count`` commits, high, medium and low in turn, with summaries of about ``summary_chars``."""
    commits = [
        _commit(
            repo,
            index,
            subjects[index % len(subjects)] if subjects else f"[Core] scheduler change {index} (#{1000 + index})",
            (f"change {index}: " + "the scheduler now batches waiting requests by priority. " * 40)[:summary_chars],
            authors[index % len(authors)] if authors else "Ada Lovelace",
        )
        for index in range(count)
    ]
    levels = Counter(commit.analysis.importance for commit in commits)
    stats = Stats(
        total=count, high=levels[Importance.high], medium=levels[Importance.medium], low=levels[Importance.low]
    )
    return DailyReport(
        repo=repo, date=day, timezone="Asia/Shanghai", commits=commits, stats=stats, run=RunInfo(analyzer="heuristic/1")
    )


def _artefacts(report: DailyReport) -> list[Artefact]:
    return [*MarkdownRenderer().render(report), *JsonRenderer().render(report)]


# --------------------------------------------------------------------------- publishing


@pytest.fixture
def fake() -> Iterator[GitHubFake]:
    with GitHubFake(TOKEN, REPOSITORY) as server:
        yield server


def _context(environ: dict[str, str] | None = None, **options: Any) -> PublishContext:
    return PublishContext(environ={"GITHUB_TOKEN": TOKEN} if environ is None else environ, **options)


def _file_publisher(fake: GitHubFake, context: PublishContext | None = None, **settings: Any) -> Publisher:
    values = {"repository": REPOSITORY, "api_url": fake.api_url, **settings}
    return GitHubFilePublisher(settings=GitHubFileSettings(**values), context=context or _context())


def _issue_publisher(fake: GitHubFake, context: PublishContext | None = None, **settings: Any) -> Publisher:
    values = {"repository": REPOSITORY, "api_url": fake.api_url, **settings}
    return GitHubIssuePublisher(settings=GitHubIssueSettings(**values), context=context or _context())


def _publish(publisher: Publisher, report: DailyReport, artefacts: list[Artefact] | None = None) -> Delivery:
    """One run's delivery: the report, then the end of the run."""

    async def run() -> Delivery:
        try:
            return await publisher.publish(report, _artefacts(report) if artefacts is None else artefacts)
        finally:
            await publisher.aclose()

    return asyncio.run(run())


# --------------------------------------------------------------------------- github-file


def test_files_are_created_updated_and_an_unchanged_rerun_makes_no_commit(fake: GitHubFake):
    report = _report()
    delivered = _publish(_file_publisher(fake), report)
    md, js = "reports/2026/acme/widget/2026-02-09.md", "reports/2026/acme/widget/2026-02-09.json"
    assert delivered.locations == [f"https://github.com/{REPOSITORY}/blob/main/{path}" for path in (md, js)]
    assert fake.branches["main"][md].decode() == _artefacts(report)[0].text
    assert [(c["path"], c["message"]) for c in fake.commits] == [(md, "Report: acme/widget - 2026-02-09")] + [
        (js, "Report: acme/widget - 2026-02-09")
    ]
    put = next(r for r in fake.requests if r.method == "PUT")
    assert "sha" not in put.json() and put.path == f"/repos/{REPOSITORY}/contents/{md}"

    _publish(_file_publisher(fake), report)
    assert len(fake.commits) == 2, "an unchanged report commits nothing"
    assert [r.method for r in fake.requests[-2:]] == ["GET", "GET"]

    changed = _report(4)
    _publish(_file_publisher(fake), changed)
    assert len(fake.commits) == 4
    update = [r for r in fake.requests if r.method == "PUT"][-2].json()
    assert update["sha"] == blob_sha(_artefacts(report)[0].text.encode())
    assert fake.branches["main"][md].decode() == _artefacts(changed)[0].text


def test_a_branch_folder_template_and_message_are_the_users(fake: GitHubFake):
    fake.branches["reports"] = {}
    publisher = _file_publisher(
        fake, branch="reports", dir="daily", path="{owner}/{name}/{month}-{day}.{lang}.md", message="{name}: {date}"
    )
    _publish(publisher, _report())
    assert sorted(fake.branches["reports"]) == ["daily/acme/widget/02-09.zh.json", "daily/acme/widget/02-09.zh.md"]
    assert fake.branches["main"] == {}
    assert {c["message"] for c in fake.commits} == {"widget: 2026-02-09"}
    assert all(r.json()["branch"] == "reports" for r in fake.requests if r.method == "PUT")
    assert all("ref=reports" in r.path for r in fake.requests if r.method == "GET")


def test_a_push_meanwhile_is_read_again_and_written_once_more(fake: GitHubFake):
    path = "reports/2026/acme/widget/2026-02-09.md"
    fake.branches["main"][path] = b"yesterday's draft\n"
    fake.push_after_next_read(path, b"someone else's edit\n")
    report = _report()
    _publish(_file_publisher(fake), report, _artefacts(report)[:1])
    puts = [r for r in fake.requests if r.method == "PUT"]
    assert [r.method for r in fake.requests] == ["GET", "PUT", "GET", "PUT"]
    assert puts[0].json()["sha"] == blob_sha(b"yesterday's draft\n")  # answered 409: stale
    assert puts[1].json()["sha"] == blob_sha(b"someone else's edit\n")
    assert fake.branches["main"][path].decode() == _artefacts(report)[0].text


def test_a_refused_write_is_one_clear_line(fake: GitHubFake):
    # Created by someone else between our read (404) and our write (which so names no sha): GitHub answers 422.
    path = "reports/2026/acme/widget/2026-02-09.md"
    fake.push_after_next_read(path, b"created meanwhile\n")
    report = _report()
    with pytest.raises(PublishError) as refused:
        _publish(_file_publisher(fake), report, _artefacts(report)[:1])
    message = str(refused.value)
    assert message.startswith(f"github-file {REPOSITORY}: PUT /repos/{REPOSITORY}/contents/{path}: HTTP 422: ")
    assert 'Invalid request. "sha" wasn\'t supplied.' in message and "\n" not in message


def test_a_folder_at_the_path_is_one_clear_line(fake: GitHubFake):
    fake.branches["main"]["reports/2026/acme/widget/2026-02-09.md/README"] = b"a folder\n"
    with pytest.raises(PublishError, match=r"^github-file acme/reports: reports/\S+\.md is a directory in the"):
        _publish(_file_publisher(fake), _report())
    assert fake.commits == []


# --------------------------------------------------------------------------- github-issue


def _issue_parts(fake: GitHubFake, issue: dict[str, Any]) -> list[tuple[str, str]]:
    """The issue's body and its marked comments in part order, each with the anchor GitHub gives it."""
    parts = [(f"#issue-{issue['id']}", issue["body"])]
    for comment in fake.comments_of(issue["number"]):
        if comment["body"].startswith("<!-- repodaily:"):
            parts.append((f"#issuecomment-{comment['id']}", comment["body"]))
    return parts


def _targets(markdown: str) -> set[str]:
    tokens = parse(markdown)
    seen: dict[str, int] = {}
    return {github_slug(h.text, seen) for h in headings(tokens)} | set(anchor_ids(tokens))


def _check_links_lead_where_they_did(original: str, parts: list[tuple[str, str]]) -> int:
    """Every link of every part resolves in its part or names the part holding its target; how many moved."""
    before = fragment_links(parse(original))
    after = [(home, link) for home, text in parts for link in fragment_links(parse(text))]
    assert len(after) == len(before)
    targets = {home: _targets(text) for home, text in parts}
    moved = 0
    for target, (home, link) in zip(before, after):
        if link == target:
            assert target in targets[home], f"#{target} leads nowhere in {home}"
        else:
            assert f"#{link}" in targets and f"#{link}" != home, f"#{target} became #{link}"
            assert target in targets[f"#{link}"], f"#{target} is not in {link}"
            moved += 1
    return moved


def test_an_issue_is_opened_once_and_a_rerun_updates_it(fake: GitHubFake):
    # Someone's own issue with our label, a pull request, and 120 earlier days: the list spans two pages.
    fake.add_issue("Discuss the reports", "What about a weekly digest?", ["repodaily"])
    fake.add_issue(
        "Bump deps", "<!-- repodaily:acme/widget:2026-02-09 -->\nnot an issue", ["repodaily"], pull_request=True
    )
    for offset in range(120):
        day = date(2026, 2, 8) - timedelta(days=offset)
        fake.add_issue(f"acme/widget daily report {day}", f"<!-- repodaily:acme/widget:{day} -->\n# old", ["repodaily"])
    report = _report()
    delivered = _publish(_issue_publisher(fake, assignees=["ada"]), report)
    ours = fake.issues[-1]
    assert len(fake.issues) == 123 and delivered.locations == [ours["html_url"]]
    assert ours["title"] == "acme/widget daily report 2026-02-09"
    assert [label["name"] for label in ours["labels"]] == ["repodaily"]
    assert [user["login"] for user in ours["assignees"]] == ["ada"]
    assert ours["body"] == "<!-- repodaily:acme/widget:2026-02-09 -->\n" + _artefacts(report)[0].text
    listing = [r.path for r in fake.requests if r.method == "GET" and r.path != "/user"]
    assert (
        listing[0] == f"/repos/{REPOSITORY}/issues?state=all&sort=created&direction=asc&labels=repodaily&per_page=100"
    )
    assert listing[1].startswith(f"/repositories/{fake._repo()['id']}/issues?") and "page=2" in listing[1]

    sent = len(fake.requests)
    _publish(_issue_publisher(fake), report)
    assert len(fake.issues) == 123, "a rerun never opens a second issue"
    assert [r.method for r in fake.requests[sent:]] == ["GET"] * 4, "unchanged: nothing written"

    changed = _report(5)
    _publish(_issue_publisher(fake, title="{name} {date}"), changed)
    assert len(fake.issues) == 123
    assert ours["title"] == "widget 2026-02-09" and "change 4" in ours["body"]
    (patch,) = fake.writes()[-1:]
    assert patch.method == "PATCH" and patch.path == f"/repos/{REPOSITORY}/issues/{ours['number']}"


def test_a_long_report_is_split_into_a_body_and_comments_whose_links_resolve(fake: GitHubFake):
    report = _report(400, summary_chars=300)
    markdown = _artefacts(report)[0].text
    assert len(markdown) > 4 * MAX
    fake.add_comment(fake.add_issue("unrelated", "x", [])["number"], "someone else's comment")
    _publish(_issue_publisher(fake), report)
    issue = fake.issues[-1]
    fake.add_comment(issue["number"], "Thanks! <!-- repodaily:acme/widget:2026-02-09:3 --> quoted")  # a person
    parts = _issue_parts(fake, issue)
    assert len(parts) >= len(markdown) // MAX + 1
    assert all(len(text) <= MAX for _, text in parts)
    assert [text.split("\n", 1)[0] for _, text in parts] == [
        "<!-- repodaily:acme/widget:2026-02-09 -->",
        *(f"<!-- repodaily:acme/widget:2026-02-09:{n} -->" for n in range(2, len(parts) + 1)),
    ]
    # Each part is Markdown on its own: every heading and table row of the report is in exactly one.
    whole = parse(markdown)
    tokens = [parse(text) for _, text in parts]
    for kind in ("heading_open", "tr_open", "table_open", "bullet_list_open", "hr"):
        assert sum(t.type == kind for part in tokens for t in part) == sum(t.type == kind for t in whole), kind
    assert sum(len(headings(part)) for part in tokens) == len(headings(whole))
    moved = _check_links_lead_where_they_did(markdown, parts)
    assert moved > 350  # the TOC's links to commits in later comments

    # The requests: open, comment in order, then edit the parts whose links can now name their comments.
    methods = [(r.method, r.path.split("/")[-1]) for r in fake.writes()]
    assert methods[0] == ("POST", "issues") and methods[1 : len(parts)] == [("POST", "comments")] * (len(parts) - 1)
    assert all(method == "PATCH" for method, _ in methods[len(parts) :])

    sent = len(fake.requests)
    _publish(_issue_publisher(fake), report)
    assert fake.writes() == [r for r in fake.requests[:sent] if r.method != "GET"], "a rerun writes nothing"

    shorter = _report(200, summary_chars=300)
    _publish(_issue_publisher(fake), shorter)
    after = _issue_parts(fake, issue)
    assert 2 <= len(after) < len(parts)
    assert [r.method for r in fake.writes()[-(len(parts) - len(after)) :]] == ["DELETE"] * (len(parts) - len(after))
    assert any("someone else's comment" in c["body"] for c in fake.comments) and len(fake.issues) == 2
    assert any(c["body"].startswith("Thanks!") for c in fake.comments_of(issue["number"]))
    _check_links_lead_where_they_did(_artefacts(shorter)[0].text, after)


def test_a_strangers_marked_issue_or_comment_is_never_taken_for_ours(fake: GitHubFake):
    """Anyone may open an issue or write a comment that begins with our marker; only the token's own count."""
    day = "<!-- repodaily:acme/widget:2026-02-09 -->"
    planted = fake.add_issue("acme/widget daily report 2026-02-09", f"{day}\nplanted", ["repodaily"], author="mallory")
    report = _report(400, summary_chars=300)
    _publish(_issue_publisher(fake), report)
    ours = fake.issues[-1]
    assert ours is not planted and planted["body"] == f"{day}\nplanted" and ours["user"]["login"] == "report-bot"
    forged = fake.add_comment(ours["number"], f"{day[:-4]}:2 -->\nforged", author="mallory")
    fake.user_rate_limited = 1  # a rate limit on "who am I" is waited out, not taken for a token that may not ask
    sent = len(fake.requests)
    _publish(_issue_publisher(fake), _report(3))  # one part now: our own later parts are deleted, not the stranger's
    deleted = [r.path for r in fake.requests[sent:] if r.method == "DELETE"]
    assert deleted and all(not r.path.endswith(f"/{forged['id']}") for r in fake.writes())
    assert forged in fake.comments and forged["body"].endswith("forged") and len(fake.issues) == 2


def test_a_token_that_may_not_ask_who_it_is_finds_its_bots_issue_again(fake: GitHubFake):
    fake.login = None  # GitHub Actions' GITHUB_TOKEN: GET /user is refused, issues are written by a bot
    fake.add_issue("x", "<!-- repodaily:acme/widget:2026-02-09 -->\nplanted", ["repodaily"], author="mallory")
    _publish(_issue_publisher(fake), _report())
    ours = fake.issues[-1]
    assert ours["user"]["type"] == "Bot" and len(fake.issues) == 2
    _publish(_issue_publisher(fake), _report(5))
    assert len(fake.issues) == 2 and "change 4" in ours["body"]


def test_hostile_commit_text_stays_inert_in_every_part(fake: GitHubFake):
    subjects = [*SUBJECTS.values(), 'see `](#c-{trap})` and `<a id="c-{trap}">` here']
    report = _report(150, summary_chars=400, subjects=subjects, authors=list(AUTHORS.values()))
    trap = report.commits[-1].short_sha  # its section lands in a later comment; the subject names it from the body
    for commit in report.commits:
        commit.subject = commit.subject.replace("{trap}", trap)
        commit.message_lines = [commit.subject]
    markdown = _artefacts(report)[0].text
    _publish(_issue_publisher(fake), report)
    parts = _issue_parts(fake, fake.issues[-1])
    assert len(parts) >= 2
    for home, text in parts:
        problems = markup_problems(rendered(text), report)
        assert not problems, f"{home}: " + "\n".join(problems)
    joined = "".join(text for _, text in parts)
    assert f"`](#c-{trap})`" in joined and f'`<a id="c-{trap}">`' in joined  # code spans left alone
    assert joined.count(f'<a id="c-{trap}"></a>') == 1
    _check_links_lead_where_they_did(markdown, parts)


_MENTION = re.compile(r"(?<![A-Za-z0-9_`\\])@[A-Za-z0-9]")


def test_a_daily_issue_mentions_no_one_its_commits_name(fake: GitHubFake):
    subjects = ["Add @zyongye to CODEOWNERS", "Thanks @acme/reviewers for `@keep` and ops@acme.example"]
    report = _report(2, subjects=subjects, authors=["@ada"])
    _publish(_issue_publisher(fake), report)
    body = fake.issues[-1]["body"]
    outside_code = re.sub(r"(`+).*?\1", "", body)
    assert not _MENTION.search(outside_code), _MENTION.findall(outside_code)
    assert "`@`zyongye" in body and "`@`acme/reviewers" in body and "`@keep`" in body
    assert not markup_problems(rendered(body), report)
    # A file in a repository notifies no one: it keeps the report as rendered.
    assert "@zyongye" in _artefacts(report)[0].text.replace("`@`", "@")


def test_a_part_never_cuts_a_fence_and_an_oversized_table_repeats_its_header():
    rows = "".join(f"| {n} | row {n} with a `|` pipe |\n" for n in range(60))
    fence = "```text\n## not a heading\n| a | b |\n|---|---|\n```\n"
    markdown = f"# t\n\n## Table\n\n| n | text |\n|---|---|\n{rows}\n## Code\n\n{fence}\n## End\n\n[to code](#code)\n"
    parts = split_markdown(markdown, room=600, href_room=34)
    texts = [part.resolve(["#body", "#c1", "#c2", "#c3", "#c4", "#c5", "#c6", "#c7"]) for part in parts]
    assert all(len(text) <= 600 for text in texts) and len(parts) > 3
    assert sum(fence in text for text in texts) == 1
    table_parts = [text for text in texts if "| n | text |\n|---|---|\n" in text]
    assert len(table_parts) > 2
    assert sum(t.type == "tr_open" for text in table_parts for t in parse(text)) == 60 + len(table_parts)
    assert "".join(part.text for part in parts).replace("| n | text |\n|---|---|\n", "") == markdown.replace(
        "| n | text |\n|---|---|\n", ""
    )
    (last,) = [text for text in texts if "[to code]" in text]
    assert "## Code" in last and "[to code](#code)" in last or "[to code](#c" in last
    with pytest.raises(ValueError, match="cannot be cut"):
        split_markdown("## a\n\n```\n" + "x\n" * 350 + "```\n", room=600, href_room=34)


def test_a_line_that_fits_in_no_part_is_cut_short_where_it_tears_no_escape():
    # A commit whose message is a megabyte: its table row and its heading could fit in no part.
    cell = "&lt;img src=x onerror=alert(1)&gt; \\[x\\]\\(javascript:alert(1)) `<b>` "
    row = f"| 10:00 | Mallory | {cell * 40} |\n"
    heading = f"#### {cell * 40}\n"
    markdown = f"# t\n\n| time | author | message |\n|---|---|---|\n{row}\n## Commit\n\n{heading}\nafter\n"
    parts = split_markdown(markdown, room=1200, href_room=34)
    texts = [part.resolve(["#body", "#c1", "#c2", "#c3"]) for part in parts]
    assert all(len(text) <= 1200 for text in texts)
    cut = [line for text in texts for line in text.splitlines() if line.endswith("…")]
    assert len(cut) == 2
    for line in cut:
        assert not re.search(r"(?:\\|&[#\w]*|<[^<>]*)…$", line), line  # no escape, entity or tag torn open
        assert not [t for t in parse(line) for c in [t, *(t.children or [])] if c.type in ("link_open", "html_inline")]
    assert "after" in texts[-1] and "| time | author | message |" in texts[0]


def test_a_heading_in_a_comment_is_linked_by_the_slug_github_gives_it_there():
    markdown = "# t\n\n## Notes\n\n" + "x" * 500 + "\n\n## Notes\n\n[second](#notes-1)\n"
    first, second = split_markdown(markdown, room=560, href_room=34)
    assert "[second](#notes)" in second.resolve(["#issue-1", "#issuecomment-2"])
    assert second.links == ()


# --------------------------------------------------------------------------- limits, dry runs, secrets


def test_a_rate_limit_is_waited_out_when_short(fake: GitHubFake):
    fake.refuse_next("secondary", 1)
    fake.refuse_next("primary", 1)
    started = time.monotonic()
    _publish(_issue_publisher(fake), _report())
    assert time.monotonic() - started >= 2
    assert len(fake.issues) == 1
    assert [r.method for r in fake.requests] == ["GET", "GET", "GET", "POST"]


def test_a_used_up_limit_holds_the_next_request_until_the_reset(fake: GitHubFake):
    fake.remaining, fake.reset_in = 1, 1  # the listing takes the last request of the hour
    started = time.monotonic()
    _publish(_issue_publisher(fake), _report())
    assert time.monotonic() - started >= 1 and len(fake.issues) == 1


@pytest.mark.parametrize("kind", ["primary", "secondary"])
def test_a_long_rate_limit_fails_at_once_with_one_clear_line(fake: GitHubFake, kind: str):
    fake.refuse_next(kind, 3600)
    started = time.monotonic()
    with pytest.raises(PublishError) as refused:
        _publish(_issue_publisher(fake), _report())
    assert time.monotonic() - started < 5
    message = str(refused.value)
    assert message.startswith(f"github-issue {REPOSITORY}: GitHub refuses requests for 36")
    assert f"the {kind} rate limit" in message and "max_wait_s = 60 s" in message and "\n" not in message
    assert fake.issues == []


@pytest.mark.timeout(60)
def test_a_listing_whose_pages_repeat_the_first_under_new_links_is_one_line_not_an_endless_read(fake: GitHubFake):
    """A proxy that drops the ``page`` asked answers page 1 each time, linking one page further: no link repeats."""
    for offset in range(150):
        fake.add_issue(f"old {offset}", "x", ["repodaily"])
    fake.ignore_page = True
    with pytest.raises(PublishError) as repeated:
        _publish(_issue_publisher(fake), _report())
    message = str(repeated.value)
    assert message.startswith(f"github-issue {REPOSITORY}: a page of the listing repeats one already read")
    assert "\n" not in message and TOKEN not in message
    assert len(fake.requests) == 2 and len(fake.issues) == 150


def test_a_listing_whose_next_link_leads_back_is_one_line_not_an_endless_read(fake: GitHubFake):
    for offset in range(150):
        fake.add_issue(f"old {offset}", "x", ["repodaily"])
    fake.loop_pages = True
    with pytest.raises(PublishError) as looped:
        _publish(_issue_publisher(fake), _report())
    message = str(looped.value)
    assert message.startswith(f"github-issue {REPOSITORY}: the next page's link leads back to a page already read")
    assert "\n" not in message and TOKEN not in message
    assert len(fake.requests) == 3, "page 1, page 2, page 1 again; page 2 is not asked twice"
    assert len(fake.issues) == 150, "no issue opened on a listing read in part"


def test_a_server_that_never_answers_costs_one_deadline(fake: GitHubFake):
    fake.hang = True
    started = time.monotonic()
    with pytest.raises(PublishError, match=rf"^github-file {REPOSITORY}: GET /repos/\S+: no answer within 0.5 s$"):
        _publish(_file_publisher(fake, timeout_s=0.5), _report())
    assert time.monotonic() - started < 3


def test_the_issue_publisher_needs_the_markdown_report(fake: GitHubFake):
    report = _report()
    with pytest.raises(ConfigError, match='add "md" to \\[output\\] formats'):
        _publish(_issue_publisher(fake), report, _artefacts(report)[1:])
    assert fake.requests == []


def test_a_dry_run_sends_nothing(fake: GitHubFake):
    report = _report(400, summary_chars=300)
    issue = _publish(_issue_publisher(fake, context=_context(dry_run=True)), report)
    files = _publish(_file_publisher(fake, context=_context(dry_run=True), branch="main"), report)
    assert fake.requests == []
    assert issue.locations == [f"{REPOSITORY} issue 'acme/widget daily report 2026-02-09'"]
    assert issue.preview and issue.preview.startswith(
        "# would open or update the issue 'acme/widget daily report 2026-02-09' in acme/reports (labels: repodaily)\n"
        "<!-- repodaily:acme/widget:2026-02-09 -->\n# "
    )
    assert "\n# and its comment, part 2 of " in issue.preview
    assert files.locations == [f"{REPOSITORY}@main:reports/2026/acme/widget/2026-02-09.{s}" for s in ("md", "json")]
    assert files.preview and files.preview.startswith(
        f"# would commit {REPOSITORY}@main:reports/2026/acme/widget/2026-02-09.md (Report: acme/widget - 2026-02-09)\n"
    )


def test_the_replaced_tools_token_and_repository_variables_work(fake: GitHubFake):
    legacy = _context({"TOKEN": TOKEN, "REPOSITORY": REPOSITORY})
    settings = GitHubIssueSettings(api_url=fake.api_url)
    _publish(GitHubIssuePublisher(settings=settings, context=legacy), _report())
    assert len(fake.issues) == 1
    both = _context({"GITHUB_TOKEN": TOKEN, "TOKEN": "ghp_stale0000000000000000000000000000", "REPOSITORY": "x/y"})
    _publish(_file_publisher(fake, context=both), _report())
    assert len(fake.commits) == 2, "the configured variable and key come first"
    custom = _context({"REPORT_TOKEN": TOKEN})
    _publish(_file_publisher(fake, context=custom, token_env="REPORT_TOKEN", path="{date}.md"), _report())
    assert len(fake.commits) == 4


@pytest.mark.parametrize(
    ("environ", "message"),
    [
        ({"GITHUB_TOKEN": TOKEN}, 'no repository: set repository = "owner/name" or REPOSITORY'),
        ({"REPOSITORY": "not a repository", "GITHUB_TOKEN": TOKEN}, "REPOSITORY: 'not a repository' is not"),
        ({"REPOSITORY": REPOSITORY}, "no token: set GITHUB_TOKEN (token_env) or TOKEN"),
    ],
)
def test_a_missing_repository_or_token_is_a_config_error(environ: dict[str, str], message: str):
    with pytest.raises(ConfigError, match=re.escape(message)):
        GitHubIssuePublisher(settings=GitHubIssueSettings(), context=_context(environ))


def test_the_token_appears_in_no_error_preview_or_request_body(fake: GitHubFake):
    report = _report()
    leaky = [Artefact("md", "md", "text/markdown", f"# report\n\nthe model said {TOKEN} and {TOKEN[4:20]}\n")]
    preview = _publish(_issue_publisher(fake, context=_context(dry_run=True)), report, leaky).preview or ""
    assert TOKEN[4:12] not in preview and MASK in preview
    _publish(_issue_publisher(fake), report, leaky)
    _publish(_file_publisher(fake), report, leaky)
    sent = b"".join(request.body for request in fake.requests)
    assert TOKEN[4:12].encode() not in sent and len(fake.commits) == 1
    assert TOKEN[4:12] not in fake.issues[0]["body"]

    fake.echo_credentials = True
    wrong = "ghp_WrongT0kenWrongT0kenWrongT0kenWr"
    for make in (_issue_publisher, _file_publisher):
        with pytest.raises(PublishError) as refused:
            _publish(make(fake, context=_context({"GITHUB_TOKEN": wrong})), _report(2))
        message = str(refused.value)
        assert "HTTP 401 (the token was refused): Bad credentials" in message
        assert wrong[4:12] not in message and "\n" not in message


def test_the_fake_refuses_an_over_long_body_as_github_does(fake: GitHubFake):
    """So the splitting tests above would fail on a part over the limit."""
    settings = GitHubIssueSettings(repository=REPOSITORY, api_url=fake.api_url)
    client, _ = GitHubClient.connect("github-issue", settings, {"GITHUB_TOKEN": TOKEN}, lambda text: text)

    async def post(length: int) -> None:
        await client.call(
            "POST", f"/repos/{REPOSITORY}/issues", body={"title": "t", "body": "字" * length}, expect=[201]
        )

    asyncio.run(post(MAX))
    too_long = r"HTTP 422: Validation Failed: body is too long \(maximum is 65536 characters\)$"
    with pytest.raises(PublishError, match=too_long):
        asyncio.run(post(MAX + 1))
    asyncio.run(client.aclose())


# --------------------------------------------------------------------------- plugin, settings, doctor


def test_both_publishers_register_and_doctor_reports_the_repository(fake: GitHubFake):
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    plugins = Registry(manager)
    plugins.add_plugin(plugin, "github")  # as the entry point registers it
    file_spec, issue_spec = plugins.get("publisher", "github-file"), plugins.get("publisher", "github-issue")
    assert file_spec.health and issue_spec.health
    table = {"repository": REPOSITORY, "api_url": fake.api_url}
    made = plugins.create("publisher", "github-issue", table, "config", context=_context())
    asyncio.run(made.aclose())
    environ = {"GITHUB_TOKEN": TOKEN}
    (health,) = asyncio.run(issue_spec.health(GitHubIssueSettings(**table), environ))
    assert health.ok is True and health.target == f"github-issue {REPOSITORY}"
    assert health.checks == {"reachable": "yes", "auth": "yes", "write": "yes", "issues": "yes"} | {
        "rate limit": f"{fake.remaining} of 5000 left"
    }
    fake.permissions = {**fake.permissions, "push": False}
    fake.has_issues = False
    (refused,) = asyncio.run(issue_spec.health(GitHubIssueSettings(**table), environ))
    assert refused.ok is False and "cannot write" in refused.problem and "issues turned off" in refused.problem
    (no_token,) = asyncio.run(file_spec.health(GitHubFileSettings(**table), {}))
    assert no_token.ok is False and "no token" in no_token.problem
    (wrong,) = asyncio.run(file_spec.health(GitHubFileSettings(**table), {"GITHUB_TOKEN": "ghp_wrong_wrong_wrong"}))
    assert wrong.ok is False and "HTTP 401" in wrong.problem and "wrong_wrong" not in wrong.problem


@pytest.mark.parametrize(
    ("model", "values", "message"),
    [
        (GitHubFileSettings, {"path": "{repo}/{commit}.md"}, "unknown or malformed field in path template"),
        (GitHubFileSettings, {"message": "{sha}"}, "unknown or malformed field in message template"),
        (GitHubFileSettings, {"dir": "/srv/reports"}, "not a folder inside the repository"),
        (GitHubFileSettings, {"dir": "../elsewhere"}, "not a folder inside the repository"),
        (GitHubIssueSettings, {"title": "{author}"}, "unknown or malformed field in title template"),
        (GitHubIssueSettings, {"labels": ["a,b"]}, "cannot be empty or contain a comma"),
        (GitHubIssueSettings, {"repository": "acme"}, "is not a repository of the form owner/name"),
        (GitHubIssueSettings, {"api_url": "https://x:ghp_secret@ghe.example/api/v3"}, "cannot hold credentials"),
        (GitHubIssueSettings, {"token": "ghp_inline"}, "Extra inputs are not permitted"),
    ],
)
def test_settings_are_checked(model: type, values: dict[str, Any], message: str):
    with pytest.raises(ValidationError, match=re.escape(message)):
        model(**values)
