"""The SQLite store: the analysis cache, what context sources learnt, and a record of runs and reports.

Analyses are keyed by (repo, sha, analyzer fingerprint) and written the moment
each completes, so a killed run resumes where it stopped and a rerun of the same
day does no analyzer work. Only the pipeline talks to the store; analyzers never do.

A cached row that no longer reads as what it holds (edited by hand, written by a
release whose models differed, cut short by a full disk) is a cache miss: the
work is done again and the row overwritten. A cache must never stop a report.

Every text written passes through the store's redactor first: an analysis can
quote a credential a model was made to repeat, and the file outlives the run.
"""

from __future__ import annotations

import contextlib
import json
import logging
import sqlite3
import stat
import time
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from repodaily.context.base import CachedAnswer
from repodaily.errors import StoreError
from repodaily.migrations import NewerSchema, migrate
from repodaily.models import Analysis, DailyReport, Highlight
from repodaily.redact import NO_SECRETS, Redactor
from repodaily.user_files import NotRegularFile

DB_FILE_NAME = "repodaily.db"
# How long a write waits for another run's (and a new store's WAL switch for another's).
_BUSY_TIMEOUT_S = 30.0
_SQLITE_MAX_VARIABLES = 900
# What reading a bad row raises: pydantic's ValidationError and json's JSONDecodeError are
# ValueErrors; a value of the wrong SQLite type (a number, NULL) gives a TypeError.
_BAD_ROW = (ValueError, TypeError)

log = logging.getLogger(__name__)


# What a user can do about the store, by what SQLite (or the system) said: its words alone
# ("database disk image is malformed", "unable to open database file") do not say.
_UNWRITABLE = "make it writable, or set cache_dir (or XDG_CACHE_HOME) to a directory that is"
_MOVE_ASIDE = "move it aside and run again (its cached analyses are redone)"
_REMEDIES = (
    (("not a regular file", "malformed", "not a database", "encrypted"), f"not a repodaily store: {_MOVE_ASIDE}"),
    (("file exists", "not a directory"), "a file stands where the cache directory goes: move it, or set cache_dir"),
    (("readonly", "read-only", "unable to open", "permission denied"), f"the cache is written there: {_UNWRITABLE}"),
    (("full",), "the disk is full: free some space and run again"),
)


def _with_remedy(message: str, error: object) -> str:
    """``message``, and what to do about ``error`` when it is one a user can act on."""
    said = str(error).casefold()
    remedy = next((remedy for words, remedy in _REMEDIES if any(word in said for word in words)), None)
    return f"{message}; {remedy}" if remedy else message


@contextmanager
def _store_errors(path: Path) -> Iterator[None]:
    try:
        yield
    except sqlite3.Error as exc:
        raise StoreError(_with_remedy(f"{path}: store error: {exc}", exc)) from exc


def _write_ahead_log(db: sqlite3.Connection) -> None:
    """Put the store in WAL mode, waiting for another run that opens a new store at the same moment.

    Switching a new file's journal needs it alone, and SQLite answers "locked" at
    once rather than waiting its busy timeout, so the wait is here.
    """
    deadline = time.monotonic() + _BUSY_TIMEOUT_S
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as exc:
            if "locked" not in str(exc) or time.monotonic() > deadline:
                raise
            time.sleep(0.05)


def _first_line(error: Exception) -> str:
    return str(error).splitlines()[0] if str(error) else type(error).__name__


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


@dataclass(frozen=True)
class BatchSubmission:
    """A chunk as the store knows it was sent: the provider's file, and its batch once created."""

    input_hash: str
    file_id: str
    batch_id: str | None


def _escape_surrogates(value: object) -> object:
    """A text value with each lone surrogate written as its escape; any other value as it is."""
    if not isinstance(value, str):
        return value
    return value.encode("utf-8", "backslashreplace").decode("utf-8")


class Store:
    """One SQLite file in WAL mode under the cache directory."""

    def __init__(self, cache_dir: Path, *, redact: Redactor = NO_SECRETS) -> None:
        self.path = Path(cache_dir) / DB_FILE_NAME
        self._redact = redact
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or str(exc)
            raise StoreError(_with_remedy(f"cache directory {cache_dir} is not usable: {reason}", reason)) from exc
        with contextlib.suppress(FileNotFoundError):
            if not stat.S_ISREG(mode := self.path.stat().st_mode):  # SQLite would only say "unable to open"
                error = NotRegularFile(self.path, mode)
                raise StoreError(_with_remedy(f"{self.path}: cannot open the store: {error.strerror}", error.strerror))
        try:
            self._db = sqlite3.connect(self.path, timeout=_BUSY_TIMEOUT_S)
            _write_ahead_log(self._db)
            self._db.execute("PRAGMA synchronous=NORMAL")
            migrate(self._db)
        except (sqlite3.Error, NewerSchema) as exc:
            raise StoreError(_with_remedy(f"{self.path}: cannot open the store: {exc}", exc)) from exc

    def close(self) -> None:
        self._db.close()

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def _write(self, sql: str, values: tuple[Any, ...]) -> sqlite3.Cursor:
        """Run one write in its own transaction, every text value redacted."""
        texts = tuple(self._redact(v) if isinstance(v, str) else v for v in values)
        with _store_errors(self.path), self._db:
            try:
                return self._db.execute(sql, texts)
            except UnicodeEncodeError:
                # A path or argument that is no UTF-8 holds its bytes as lone surrogates, which
                # SQLite's UTF-8 cannot take: they are stored as their escapes (\udcff), as shown.
                return self._db.execute(sql, tuple(_escape_surrogates(v) for v in texts))

    # -- analyses

    def get_analyses(self, repo: str, shas: Iterable[str], fingerprint: str) -> dict[str, Analysis]:
        """The cached analyses among ``shas``; absent ones are simply missing from the result."""
        wanted = list(dict.fromkeys(shas))
        found: dict[str, Analysis] = {}
        unreadable: dict[str, Exception] = {}
        with _store_errors(self.path):
            for offset in range(0, len(wanted), _SQLITE_MAX_VARIABLES):
                chunk = wanted[offset : offset + _SQLITE_MAX_VARIABLES]
                marks = ",".join("?" * len(chunk))
                rows = self._db.execute(
                    f"SELECT sha, analysis FROM analyses WHERE repo = ? AND fingerprint = ? AND sha IN ({marks})",
                    (repo, fingerprint, *chunk),
                )
                for sha, payload in rows:
                    try:
                        found[sha] = Analysis.model_validate_json(payload)
                    except _BAD_ROW as exc:
                        unreadable[sha] = exc
        if unreadable:
            first_sha, first_error = next(iter(unreadable.items()))
            log.warning(
                "%d cached analyses of %s are unreadable and are done again (%s: %s)",
                len(unreadable),
                repo,
                first_sha[:7],
                _first_line(first_error),
            )
        return found

    def put_analysis(self, repo: str, sha: str, analysis: Analysis) -> None:
        """Write one analysis now, keyed by its own fingerprint."""
        self._write(
            "INSERT OR REPLACE INTO analyses (repo, sha, fingerprint, analysis, created_at) VALUES (?, ?, ?, ?, ?)",
            (repo, sha, analysis.analyzer, analysis.model_dump_json(), _now()),
        )

    def count_analyses(self) -> int:
        with _store_errors(self.path):
            count: int = self._db.execute("SELECT count(*) FROM analyses").fetchone()[0]
            return count

    # -- what context sources learnt

    def get_context(self, source: str, key: str) -> CachedAnswer | None:
        """The answer ``source`` kept under ``key``; None when there is none or it no longer reads."""
        with _store_errors(self.path):
            row = self._db.execute(
                "SELECT payload, fetched_at, etag, last_modified FROM context WHERE source = ? AND key = ?",
                (source, key),
            ).fetchone()
        if row is None:
            return None
        try:
            return CachedAnswer(row[0], datetime.fromisoformat(row[1]), row[2], row[3])
        except _BAD_ROW as exc:
            log.warning("cached context %s %s is unreadable, asked again: %s", source, key, _first_line(exc))
            return None

    def put_context(self, source: str, key: str, answer: CachedAnswer) -> None:
        self._write(
            "INSERT OR REPLACE INTO context (source, key, payload, etag, last_modified, fetched_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (source, key, answer.payload, answer.etag, answer.last_modified, answer.fetched_at.isoformat()),
        )

    # -- highlights

    def get_highlights(self, repo: str, day: date, key: str) -> list[Highlight] | None:
        """Highlights written for exactly this input (``key``), or None when there are none yet."""
        with _store_errors(self.path):
            row = self._db.execute(
                "SELECT highlights FROM highlights WHERE repo = ? AND day = ? AND key = ?", (repo, day.isoformat(), key)
            ).fetchone()
        if row is None:
            return None
        try:
            return [Highlight.model_validate(h) for h in json.loads(row[0])]
        except _BAD_ROW as exc:
            log.warning("cached highlights of %s %s are unreadable, written again: %s", repo, day, _first_line(exc))
            return None

    def put_highlights(self, repo: str, day: date, key: str, highlights: list[Highlight]) -> None:
        self._write(
            "INSERT OR REPLACE INTO highlights (repo, day, key, highlights, created_at) VALUES (?, ?, ?, ?, ?)",
            (repo, day.isoformat(), key, json.dumps([h.model_dump() for h in highlights], ensure_ascii=False), _now()),
        )

    # -- batches sent to a provider

    def batch_submission(self, endpoint: str, input_hash: str) -> BatchSubmission | None:
        """What was sent of the chunk whose bytes hash to ``input_hash``: its uploaded file and batch, if any."""
        with _store_errors(self.path):
            row = self._db.execute(
                "SELECT file_id, batch_id FROM batches WHERE endpoint = ? AND input_hash = ?", (endpoint, input_hash)
            ).fetchone()
        return None if row is None else BatchSubmission(input_hash, row[0], row[1])

    def record_batch_file(self, endpoint: str, input_hash: str, file_id: str) -> None:
        """Note a chunk's uploaded file before its batch is created: a crash between the two re-uploads nothing."""
        self._write(
            "INSERT OR REPLACE INTO batches (endpoint, input_hash, file_id, batch_id, created_at)"
            " VALUES (?, ?, ?, NULL, ?)",
            (endpoint, input_hash, file_id, _now()),
        )

    def record_batch(self, endpoint: str, input_hash: str, batch_id: str) -> None:
        """Note the batch created for a chunk, the moment the provider answered."""
        self._write(
            "UPDATE batches SET batch_id = ? WHERE endpoint = ? AND input_hash = ?", (batch_id, endpoint, input_hash)
        )

    # -- reports, for the site and the weekly digest

    def put_report(self, report: DailyReport) -> None:
        """Keep ``report`` as its JSON, replacing the one of the same repository, day and language."""
        self._write(
            "INSERT OR REPLACE INTO report_json (repo, day, language, analyzer, report, created_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (
                report.repo,
                report.date.isoformat(),
                report.language,
                report.run.analyzer,
                report.model_dump_json(),
                _now(),
            ),
        )

    def report_texts(
        self, repo: str, language: str, since: date | None = None, until: date | None = None
    ) -> dict[date, str]:
        """The stored JSON of ``repo``'s reports in ``language`` by day, oldest first, within [since, until].

        Text, not models: a site compares the text with what it built from last
        time and parses only what it renders.
        """
        low = since.isoformat() if since else "0000-00-00"
        high = until.isoformat() if until else "9999-99-99"
        with _store_errors(self.path):
            rows = self._db.execute(
                "SELECT day, report FROM report_json WHERE repo = ? AND language = ? AND day BETWEEN ? AND ?"
                " ORDER BY day",
                (repo, language, low, high),
            ).fetchall()
        return {date.fromisoformat(day): text for day, text in rows}

    def reports(
        self, repo: str, language: str, since: date | None = None, until: date | None = None
    ) -> list[DailyReport]:
        """The stored reports of ``repo`` in ``language``, oldest first; unreadable ones left out, said once."""
        found, unreadable = [], []
        for day, text in self.report_texts(repo, language, since, until).items():
            try:
                found.append(DailyReport.model_validate_json(text))
            except _BAD_ROW:
                unreadable.append(day)
        if unreadable:
            log.warning(
                "%d stored reports of %s are unreadable and left out (%s)", len(unreadable), repo, unreadable[0]
            )
        return found

    def reported_repos(self, language: str) -> list[str]:
        """Every repository with a stored report in ``language``, by name."""
        with _store_errors(self.path):
            rows = self._db.execute(
                "SELECT DISTINCT repo FROM report_json WHERE language = ? ORDER BY repo", (language,)
            ).fetchall()
        return [row[0] for row in rows]

    # -- runs

    def start_run(self, command: str) -> int:
        cursor = self._write("INSERT INTO runs (command, started_at) VALUES (?, ?)", (command, _now()))
        return int(cursor.lastrowid or 0)

    def finish_run(self, run_id: int, summary: dict[str, Any]) -> None:
        self._write(
            "UPDATE runs SET finished_at = ?, summary = ? WHERE id = ?",
            (_now(), json.dumps(summary, ensure_ascii=False), run_id),
        )

    # -- the delivery ledger

    def delivered(self, target: str, repo: str, day: date, content_hash: str) -> bool:
        """Whether ``target`` was already given this content of ``repo``'s report for ``day``."""
        with _store_errors(self.path):
            row = self._db.execute(
                "SELECT 1 FROM deliveries WHERE target = ? AND repo = ? AND day = ? AND content_hash = ?",
                (target, repo, day.isoformat(), content_hash),
            ).fetchone()
        return row is not None

    def record_delivery(self, target: str, repo: str, day: date, content_hash: str, locations: list[str]) -> None:
        """Note that ``target`` took this content; written at once, so a run killed later does not resend it."""
        self._write(
            "INSERT OR REPLACE INTO deliveries (target, repo, day, content_hash, locations, delivered_at)"
            " VALUES (?, ?, ?, ?, ?, ?)",
            (target, repo, day.isoformat(), content_hash, json.dumps(locations), _now()),
        )

    def record_report(self, run_id: int, repo: str, day: date, commits: int, degraded: int, paths: list[str]) -> None:
        self._write(
            "INSERT INTO reports (run_id, repo, day, commits, degraded, paths) VALUES (?, ?, ?, ?, ?, ?)",
            (run_id, repo, day.isoformat(), commits, degraded, json.dumps(paths)),
        )
