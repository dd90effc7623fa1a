import sqlite3
import subprocess
import sys
import time
from datetime import UTC, date, datetime

import pytest

from repodaily.context.base import CachedAnswer
from repodaily.errors import StoreError
from repodaily.migrations import MIGRATIONS, migrate
from repodaily.models import Analysis, ChangeType, CoverageReceipt, Highlight, Importance
from repodaily.store import DB_FILE_NAME, Store


def _analysis(fingerprint: str = "heuristic/1/zh") -> Analysis:
    return Analysis(
        type=ChangeType.fix,
        importance=Importance.medium,
        one_line="修复调度器",
        coverage=CoverageReceipt(budget_tokens=10, tokens_sent=3),
        analyzer=fingerprint,
    )


def test_analysis_round_trips_and_is_keyed_by_fingerprint(tmp_path):
    with Store(tmp_path) as store:
        store.put_analysis("o/r", "a" * 40, _analysis())
        assert store.get_analyses("o/r", ["a" * 40, "b" * 40], "heuristic/1/zh") == {"a" * 40: _analysis()}
        assert store.get_analyses("o/r", ["a" * 40], "heuristic/2/zh") == {}
        assert store.get_analyses("other/repo", ["a" * 40], "heuristic/1/zh") == {}


def test_analyses_survive_a_new_process_on_the_same_file(tmp_path):
    with Store(tmp_path) as store:
        store.put_analysis("o/r", "a" * 40, _analysis())
    with Store(tmp_path) as store:
        assert store.count_analyses() == 1


def test_many_shas_are_looked_up_in_chunks(tmp_path):
    shas = [f"{i:040x}" for i in range(2500)]
    with Store(tmp_path) as store:
        for sha in shas[::2]:
            store.put_analysis("o/r", sha, _analysis())
        assert len(store.get_analyses("o/r", shas, "heuristic/1/zh")) == 1250


def test_blank_database_gets_every_migration_once(tmp_path):
    db = sqlite3.connect(tmp_path / "x.db")
    assert migrate(db) == [m.__name__ for m in MIGRATIONS]
    assert migrate(db) == []


def test_oldest_schema_upgrades_in_place_and_keeps_data(tmp_path):
    db = sqlite3.connect(tmp_path / DB_FILE_NAME)
    db.execute("CREATE TABLE _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    MIGRATIONS[0](db)
    db.execute("INSERT INTO _migrations VALUES (?, 'then')", (MIGRATIONS[0].__name__,))
    db.execute(
        "INSERT INTO analyses VALUES ('o/r', ?, 'heuristic/1/zh', ?, 'then')",
        ("c" * 40, _analysis().model_dump_json()),
    )
    db.commit()
    db.close()
    with Store(tmp_path) as store:
        assert "c" * 40 in store.get_analyses("o/r", ["c" * 40], "heuristic/1/zh")
        run_id = store.start_run("run")
        store.record_report(run_id, "o/r", date(2026, 2, 9), 3, 0, ["x.md"])
        store.finish_run(run_id, {"reports": 1})


def _fill_disk_during_migrations(path, pages: int) -> bool:
    """Migrate ``path`` on a disk that holds ``pages`` pages (SQLite's own cap); whether it ran out."""
    db = sqlite3.connect(path)
    db.execute(f"PRAGMA max_page_count = {pages}")
    try:
        migrate(db)
    except sqlite3.OperationalError as exc:
        assert "full" in str(exc)
        return True
    finally:
        db.close()
    return False


def test_a_migration_cut_short_by_a_full_disk_is_redone_whole(tmp_path):
    # Each cap runs out at another step; whichever it is, the next open migrates the rest.
    ran_out = 0
    for pages in range(2, 16):
        directory = tmp_path / str(pages)
        directory.mkdir()
        ran_out += _fill_disk_during_migrations(directory / DB_FILE_NAME, pages)
        with Store(directory) as store:
            store.put_analysis("o/r", "a" * 40, _analysis())
            assert store.count_analyses() == 1
    assert ran_out >= 5


def test_a_store_from_a_newer_release_is_refused_not_used(tmp_path):
    with Store(tmp_path):
        pass
    with sqlite3.connect(tmp_path / DB_FILE_NAME) as db:
        db.execute("INSERT INTO _migrations VALUES ('m999_tomorrow', 'later')")
    with pytest.raises(StoreError, match=r"written by a newer repodaily \(schema m999_tomorrow\)"):
        Store(tmp_path)


# Each process imports the store, then waits for the same instant to open it, as overlapping cron jobs may.
_OPEN_AT = """
import sys, time
from repodaily.store import Store
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
Store(sys.argv[1]).close()
"""


def test_runs_opening_a_new_store_at_once_take_turns_at_its_migrations(tmp_path):
    for attempt in range(3):
        at = str(time.time() + 2)
        opening = [
            subprocess.Popen([sys.executable, "-c", _OPEN_AT, str(tmp_path / str(attempt)), at], stderr=subprocess.PIPE)
            for _ in range(4)
        ]
        errors = [process.communicate(timeout=60)[1].decode() for process in opening]
        assert [process.returncode for process in opening] == [0] * 4, errors
        with Store(tmp_path / str(attempt)) as store:
            assert store.count_analyses() == 0


def test_unusable_cache_directory_is_a_store_error(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache directory should be")
    with pytest.raises(StoreError, match="not usable"):
        Store(blocker / "sub")


def _corrupt(tmp_path, table: str, column: str, value: object, where: str = "1") -> None:
    with sqlite3.connect(tmp_path / DB_FILE_NAME) as db:
        db.execute(f"UPDATE {table} SET {column} = ? WHERE {where}", (value,))


@pytest.mark.parametrize(
    "payload",
    [
        "{not json",
        _analysis().model_dump_json().replace('"medium"', '"enormous"'),  # valid JSON, a wrong value
        _analysis().model_dump_json().replace('"type":"fix",', ""),  # a required key removed
        '["a list"]',
        42,
        b"\xff\x00",
    ],
)
def test_a_cached_analysis_that_no_longer_validates_is_a_miss_and_is_overwritten(tmp_path, caplog, payload):
    sha = "a" * 40
    with Store(tmp_path) as store:
        store.put_analysis("o/r", sha, _analysis())
        store.put_analysis("o/r", "b" * 40, _analysis())
    _corrupt(tmp_path, "analyses", "analysis", payload, f"sha = '{sha}'")
    with Store(tmp_path) as store:
        assert set(store.get_analyses("o/r", [sha, "b" * 40], "heuristic/1/zh")) == {"b" * 40}
        assert "1 cached analyses of o/r are unreadable" in caplog.text
        store.put_analysis("o/r", sha, _analysis())
        assert store.get_analyses("o/r", [sha], "heuristic/1/zh") == {sha: _analysis()}


@pytest.mark.parametrize("payload", ["[{", '[{"text": "x"}]', '{"text": "x", "shas": []}', "7", 7])
def test_cached_highlights_that_no_longer_validate_are_a_miss(tmp_path, caplog, payload):
    day = date(2026, 2, 9)
    with Store(tmp_path) as store:
        store.put_highlights("o/r", day, "k", [Highlight(text="要点", shas=["a" * 7])])
    _corrupt(tmp_path, "highlights", "highlights", payload)
    with Store(tmp_path) as store:
        assert store.get_highlights("o/r", day, "k") is None
        assert "highlights of o/r 2026-02-09 are unreadable" in caplog.text
        store.put_highlights("o/r", day, "k", [Highlight(text="新", shas=[])])
        assert store.get_highlights("o/r", day, "k") == [Highlight(text="新", shas=[])]


@pytest.mark.parametrize("content", [b"\x00garbage" * 512, b"SQLite format 3\x00" + b"\xff" * 200])
def test_a_store_file_that_is_not_a_database_is_a_store_error_naming_it(tmp_path, content):
    (tmp_path / DB_FILE_NAME).write_bytes(content)
    with pytest.raises(StoreError, match=rf"{DB_FILE_NAME}: .*not a database"):
        Store(tmp_path)


def test_what_a_context_source_learnt_round_trips_with_its_validators(tmp_path):
    answer = CachedAnswer(
        '{"number": 1}', datetime(2026, 2, 9, 3, tzinfo=UTC), 'W/"abc"', "Mon, 09 Feb 2026 03:00:00 GMT"
    )
    with Store(tmp_path) as store:
        store.put_context("github https://api.github.com", "o/r/pull/1", answer)
    with Store(tmp_path) as store:
        assert store.get_context("github https://api.github.com", "o/r/pull/1") == answer
        assert store.get_context("github https://ghe.example/api/v3", "o/r/pull/1") is None
