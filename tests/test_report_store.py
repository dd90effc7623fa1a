"""Reports are kept in the store as their JSON whenever `report` or `run` makes one, for `site` and `digest`."""

from __future__ import annotations

import sqlite3
from datetime import date

from stored_reports import DEMO_DAY, DEMO_REPO_NAME, FIRST_DAY, LAST_DAY, fill_store

from repodaily.models import DailyReport, RunInfo
from repodaily.redact import Redactor
from repodaily.store import DB_FILE_NAME, Store


def test_run_keeps_every_report_it_makes(tmp_path):
    fill_store(tmp_path)
    with Store(tmp_path / "cache") as store:
        reports = store.reports(DEMO_REPO_NAME, "zh")
        assert [r.date for r in reports] == [
            date.fromordinal(d) for d in range(FIRST_DAY.toordinal(), LAST_DAY.toordinal() + 1)
        ]
        assert store.reported_repos("zh") == [DEMO_REPO_NAME] and store.reported_repos("en") == []
        busy = next(r for r in reports if r.date == DEMO_DAY)
        assert busy.stats.total == len(busy.commits) > 5
        assert list(store.report_texts(DEMO_REPO_NAME, "zh", DEMO_DAY, DEMO_DAY)) == [DEMO_DAY]


def test_a_rerun_replaces_the_days_report_rather_than_adding_one(tmp_path):
    fill_store(tmp_path, since=DEMO_DAY, until=DEMO_DAY)
    fill_store(tmp_path, since=DEMO_DAY, until=DEMO_DAY)
    with sqlite3.connect(tmp_path / "cache" / DB_FILE_NAME) as db:
        assert db.execute("SELECT count(*) FROM report_json").fetchone()[0] == 1


def test_the_store_keeps_no_secret_of_a_report(tmp_path):
    secret = "sk-live-0123456789abcdefghij"
    report = DailyReport(
        repo="o/r", date=date(2026, 3, 2), timezone="UTC", run=RunInfo(analyzer="x"), extra={"leak": secret}
    )
    with Store(tmp_path, redact=Redactor([secret])) as store:
        store.put_report(report)
        assert secret not in (tmp_path / DB_FILE_NAME).read_bytes().decode("utf-8", "replace")
        assert secret not in store.report_texts("o/r", "zh")[date(2026, 3, 2)]


def test_a_stored_report_that_no_longer_reads_is_left_out_and_said(tmp_path, caplog):
    with Store(tmp_path) as store:
        store.put_report(DailyReport(repo="o/r", date=date(2026, 3, 2), timezone="UTC", run=RunInfo(analyzer="x")))
        store.put_report(DailyReport(repo="o/r", date=date(2026, 3, 3), timezone="UTC", run=RunInfo(analyzer="x")))
    with sqlite3.connect(tmp_path / DB_FILE_NAME) as db:
        db.execute("UPDATE report_json SET report = '{' WHERE day = '2026-03-02'")
    with Store(tmp_path) as store:
        assert [r.date for r in store.reports("o/r", "zh")] == [date(2026, 3, 3)]
    assert "1 stored reports of o/r are unreadable" in caplog.text
