import sqlite3
from datetime import date

import pytest

from repodaily.errors import StoreError
from repodaily.migrations import MIGRATIONS, migrate
from repodaily.models import Analysis, ChangeType, CoverageReceipt, Importance
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


def test_unusable_cache_directory_is_a_store_error(tmp_path):
    blocker = tmp_path / "cache"
    blocker.write_text("a file where the cache directory should be")
    with pytest.raises(StoreError, match="not usable"):
        Store(blocker / "sub")
