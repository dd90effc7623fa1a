"""The weekly digest: built from the stored reports of one ISO week, in Markdown, HTML and JSON."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

import pytest
from click.testing import CliRunner
from hostile_report import hostile_report
from html_checks import page_problems
from report_checks import element_problems, rendered
from stored_reports import DEMO_DAY, DEMO_REPO_NAME, fill_store

from repodaily.cli import main
from repodaily.errors import ConfigError
from repodaily.models import DailyReport, HighlightKind, Importance
from repodaily.plugins import NoSettings, PluginSpec, registry
from repodaily.publish.base import Delivery, PublishContext
from repodaily.render.base import Artefact
from repodaily.render.weekly import render_weekly
from repodaily.store import Store
from repodaily.weekly import WeeklyDigest, build_weekly, parse_week, week_of


@pytest.fixture(scope="module")
def stored(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("weekly")
    config = fill_store(root)
    with Store(root / "cache") as store:
        return config, store.reports(DEMO_REPO_NAME, "zh")


def test_the_week_holds_its_days_only_and_every_high_commit_once(stored):
    _, reports = stored
    week = week_of(DEMO_DAY)
    digest = build_weekly(reports, week)
    assert (digest.start, digest.end) == (date(2026, 3, 2), date(2026, 3, 8))
    in_week = [r for r in reports if digest.start <= r.date <= digest.end]
    assert [d.day for d in digest.days] == [r.date for r in in_week]
    assert digest.total.total == sum(r.stats.total for r in in_week) == sum(d.total for d in digest.days)
    named = [item.sha for items in digest.sections.values() for item in items]
    high = [c.sha for r in in_week for c in r.commits if c.analysis.importance == Importance.high]
    assert sorted(named) == sorted(set(named)) and set(high) <= set(named)
    assert [item.day for item in digest.sections[HighlightKind.breaking]]  # the demo day breaks two things


def test_a_commit_in_a_section_is_the_one_its_day_highlights(stored):
    _, reports = stored
    digest = build_weekly(reports, week_of(DEMO_DAY))
    day = next(r for r in reports if r.date == DEMO_DAY)
    breaking = {h.shas[0] for h in day.highlights if h.kind == HighlightKind.breaking}
    assert {item.sha for item in digest.sections[HighlightKind.breaking]} == breaking
    item = digest.sections[HighlightKind.breaking][0]
    assert item.anchor == f"c-{item.short_sha}" and item.url and item.url.endswith(item.sha)


@pytest.mark.parametrize(
    ("week", "message"),
    [
        ("2026-W6", "is not an ISO week"),
        ("2026-W54", "has no week 54"),
        ("2099-W01", "has not begun"),
        ("W06-2026", "is not an ISO week"),
        ("２０２６-W０６", "is not an ISO week"),  # digits of another script: int() reads them, a file name keeps them
        ("2026-W١٠", "is not an ISO week"),
    ],
)
def test_a_bad_or_future_week_is_one_line_and_exit_2(stored, week, message):
    config, _ = stored
    result = CliRunner().invoke(main, ["digest", "--config", str(config), "--week", week])
    assert result.exit_code == 2 and message in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1 and result.stdout == ""
    with pytest.raises(ConfigError):
        parse_week(week, date(2026, 11, 24))


def test_a_week_without_stored_reports_says_where_they_come_from(stored):
    config, _ = stored
    result = CliRunner().invoke(main, ["digest", "--config", str(config), "--week", "2026-W01"])
    assert result.exit_code == 2 and "`repodaily run` and `repodaily report` store them" in result.stderr


def test_digest_prints_markdown_and_writes_each_format(stored, tmp_path):
    config, _ = stored
    week = week_of(DEMO_DAY)
    markdown = CliRunner().invoke(main, ["digest", "--config", str(config), "--week", week])
    assert markdown.exit_code == 0 and markdown.stdout.startswith(f"# 周报 {week}")
    assert "### 💥 破坏性变更" in markdown.stdout and "| 合计 |" in markdown.stdout
    for fmt in ("md", "json", "html"):
        args = ["digest", "--config", str(config), "--week", week, "--format", fmt, "--output", str(tmp_path)]
        result = CliRunner().invoke(main, args)
        path = tmp_path / "demo-org" / "inferno" / f"{week}.{fmt}"
        assert result.exit_code == 0 and result.stdout.strip() == str(path)
    both = ["digest", "--config", str(config), "--week", week, "--format", "md", "--format", "json", "--format", "md"]
    written = CliRunner().invoke(main, [*both, "--output", str(tmp_path / "both")])
    where = tmp_path / "both" / "demo-org" / "inferno"
    assert written.stdout.split() == [str(where / f"{week}.md"), str(where / f"{week}.json")]
    refused = CliRunner().invoke(main, both)
    assert (refused.exit_code, refused.stdout) == (2, "") and "stdout takes one --format" in refused.stderr
    digest = WeeklyDigest.model_validate_json((tmp_path / "demo-org" / "inferno" / f"{week}.json").read_text())
    assert digest.week == week and digest.repo == DEMO_REPO_NAME
    assert page_problems((tmp_path / "demo-org" / "inferno" / f"{week}.html").read_text()) == []


def test_a_digest_that_cannot_be_written_keeps_the_old_file_and_is_a_failed_write(stored, tmp_path):
    config, _ = stored
    week = week_of(DEMO_DAY)
    where = tmp_path / "demo-org" / "inferno"
    where.mkdir(parents=True)
    (where / f"{week}.md").mkdir()  # a directory where the file goes: the write fails after it began
    (where / f"{week}.md" / "keep").write_text("mine\n")
    args = ["digest", "--config", str(config), "--week", week, "--output", str(tmp_path)]
    result = CliRunner().invoke(main, args)
    assert (result.exit_code, result.stdout, result.stderr.count("\n")) == (3, "", 1)
    assert result.stderr.startswith(f"repodaily: error: cannot write {where / f'{week}.md'}: ")
    assert sorted(p.name for p in where.iterdir()) == [f"{week}.md"]  # no half-written file beside it


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_hostile_corpus_in_a_week_renders_inert(language):
    digest = build_weekly([hostile_report(language=language)], week_of(date(2026, 3, 2)))
    assert sum(len(items) for items in digest.sections.values()) >= 8
    assert page_problems(render_weekly(digest, "html")) == []
    commit_links = {item.url for items in digest.sections.values() for item in items}
    for name, html in rendered(render_weekly(digest, "md")).items():
        problems = [p for e in html.elements for p in element_problems(e, commit_links.__contains__)]
        assert problems == [], name


class _Inbox:
    """A target that takes weeks and keeps what it was given; the ledger must keep it from getting one twice."""

    weeks: list[str] = []

    def __init__(self, *, settings: NoSettings, context: PublishContext) -> None:
        self.context = context

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        return Delivery("inbox")

    async def publish_week(self, digest: WeeklyDigest, artefacts: Sequence[Artefact]) -> Delivery:
        _Inbox.weeks.append(f"{digest.repo} {digest.week} {[a.format for a in artefacts]}")
        return Delivery("inbox", locations=["inbox://weekly"])

    async def aclose(self) -> None:
        pass


class _DailyOnly(_Inbox):
    publish_week = None  # type: ignore[assignment]  # a publisher of days only


def test_digest_deliver_hands_the_week_to_targets_that_take_one_once(stored, tmp_path):
    config, _ = stored
    registry().add("publisher", PluginSpec("test-inbox", _Inbox))
    registry().add("publisher", PluginSpec("test-daily", _DailyOnly))
    targets = f'\n[[publish]]\ntype = "files"\ndir = "{tmp_path / "out"}"\n[[publish]]\ntype = "test-inbox"\n'
    targets += '[[publish]]\ntype = "test-daily"\n'
    with_targets = tmp_path / "repodaily.toml"
    with_targets.write_text(config.read_text() + targets)
    week = week_of(DEMO_DAY)
    args = ["digest", "--config", str(with_targets), "--week", week, "--deliver"]
    first = CliRunner().invoke(main, args)
    assert first.exit_code == 0, first.output
    assert _Inbox.weeks == [f"{DEMO_REPO_NAME} {week} ['md']"]
    assert f"{week} → test-daily: skipped (takes no weekly digest)" in first.stderr
    assert (tmp_path / "out" / "2026" / "demo-org" / "inferno" / f"{week}.md").read_text().startswith(f"# 周报 {week}")
    again = CliRunner().invoke(main, args)
    assert again.exit_code == 0 and len(_Inbox.weeks) == 1
    assert f"{week} → test-inbox: already delivered" in again.stderr
    forced = CliRunner().invoke(main, [*args, "--force"])
    assert forced.exit_code == 0 and len(_Inbox.weeks) == 2


def test_a_week_written_with_blanks_around_it_is_the_same_week_and_is_not_delivered_again(stored, tmp_path):
    """The week's text is in what a reader sees, so a variant of it once made a new digest: sent a second time."""
    config, _ = stored
    registry().add("publisher", PluginSpec("test-inbox", _Inbox))
    with_targets = tmp_path / "repodaily.toml"
    with_targets.write_text(config.read_text() + '\n[[publish]]\ntype = "test-inbox"\n')
    week = week_of(DEMO_DAY)
    args = ["digest", "--config", str(with_targets), "--deliver", "--week"]
    assert CliRunner().invoke(main, [*args, week]).exit_code == 0  # delivered, now or by a test before
    delivered = list(_Inbox.weeks)
    again = CliRunner().invoke(main, [*args, f" {week}\n"])
    assert again.exit_code == 0 and f"{week} → test-inbox: already delivered" in again.stderr, again.output
    assert _Inbox.weeks == delivered
    shown = CliRunner().invoke(main, ["digest", "--config", str(config), "--week", f" {week} ", "--format", "json"])
    assert WeeklyDigest.model_validate_json(shown.stdout).week == week
