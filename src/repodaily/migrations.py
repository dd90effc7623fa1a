"""Numbered schema migrations for the SQLite store.

Each migration is a small function applied once, in order, and recorded in
``_migrations``; a blank database and one from any older release end in the
same schema.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable


class NewerSchema(Exception):
    """The store has migrations this release lacks: a newer repodaily wrote it."""

    def __init__(self, unknown: list[str]) -> None:
        super().__init__(
            f"written by a newer repodaily (schema {', '.join(unknown)}); upgrade repodaily or use another cache_dir"
        )


Migration = Callable[[sqlite3.Connection], None]
MIGRATIONS: list[Migration] = []


def _migration(function: Migration) -> Migration:
    MIGRATIONS.append(function)
    return function


@_migration
def m001_analyses(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE analyses (
            repo TEXT NOT NULL,
            sha TEXT NOT NULL,
            fingerprint TEXT NOT NULL,
            analysis TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (repo, sha, fingerprint)
        )
        """
    )


@_migration
def m002_runs(db: sqlite3.Connection) -> None:
    db.execute(
        """
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            command TEXT NOT NULL,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            summary TEXT
        )
        """
    )
    db.execute(
        """
        CREATE TABLE reports (
            run_id INTEGER NOT NULL REFERENCES runs(id),
            repo TEXT NOT NULL,
            day TEXT NOT NULL,
            commits INTEGER NOT NULL,
            degraded INTEGER NOT NULL,
            paths TEXT NOT NULL
        )
        """
    )


@_migration
def m003_highlights(db: sqlite3.Connection) -> None:
    """A day's highlights, keyed by what they were written from, so a rerun asks no model."""
    db.execute(
        """
        CREATE TABLE highlights (
            repo TEXT NOT NULL,
            day TEXT NOT NULL,
            key TEXT NOT NULL,
            highlights TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (repo, day, key)
        )
        """
    )


@_migration
def m004_deliveries(db: sqlite3.Connection) -> None:
    """The delivery ledger: what each target has been given, so a rerun sends nothing twice."""
    db.execute(
        """
        CREATE TABLE deliveries (
            target TEXT NOT NULL,
            repo TEXT NOT NULL,
            day TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            locations TEXT NOT NULL,
            delivered_at TEXT NOT NULL,
            PRIMARY KEY (target, repo, day, content_hash)
        )
        """
    )


@_migration
def m005_context(db: sqlite3.Connection) -> None:
    """What context sources learnt (pull requests, release pages), with validators for conditional requests."""
    db.execute(
        """
        CREATE TABLE context (
            source TEXT NOT NULL,
            key TEXT NOT NULL,
            payload TEXT NOT NULL,
            etag TEXT,
            last_modified TEXT,
            fetched_at TEXT NOT NULL,
            PRIMARY KEY (source, key)
        )
        """
    )


@_migration
def m006_batches(db: sqlite3.Connection) -> None:
    """Each batch chunk sent to a provider, by the hash of its bytes: a rerun of ``submit`` sends none twice."""
    db.execute(
        """
        CREATE TABLE batches (
            endpoint TEXT NOT NULL,
            input_hash TEXT NOT NULL,
            file_id TEXT NOT NULL,
            batch_id TEXT,
            created_at TEXT NOT NULL,
            PRIMARY KEY (endpoint, input_hash)
        )
        """
    )


@_migration
def m007_reports(db: sqlite3.Connection) -> None:
    """Each report made, as its JSON, so a site or a weekly digest is built without git or an analyzer."""
    db.execute(
        """
        CREATE TABLE report_json (
            repo TEXT NOT NULL,
            day TEXT NOT NULL,
            language TEXT NOT NULL,
            analyzer TEXT NOT NULL,
            report TEXT NOT NULL,
            created_at TEXT NOT NULL,
            PRIMARY KEY (repo, day, language)
        )
        """
    )


def migrate(db: sqlite3.Connection) -> list[str]:
    """Apply every migration not yet recorded; return the names applied.

    Each migration and its record are one transaction: Python's ``sqlite3``
    commits a ``CREATE TABLE`` the moment it runs unless a transaction is open,
    so a migration cut short (a full disk, a kill) would leave its tables behind
    an unrecorded name, and every later open would fail on "already exists".
    The transaction takes the write lock as it begins, and the record is read
    again under it: two runs opening a new store at once (an overlapping cron
    job) take turns, and the second finds the first one's migrations applied.
    A store holding migrations this release does not know was written by a newer
    one, whose tables this one would misread: it is refused, not used.
    """
    db.execute("CREATE TABLE IF NOT EXISTS _migrations (name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    applied: list[str] = []
    done = _recorded(db)  # read without a lock first: the usual open has nothing to apply and takes none
    for function in MIGRATIONS:
        name = function.__name__
        if name in done:
            continue
        db.execute("BEGIN IMMEDIATE")
        try:
            if name not in _recorded(db):
                function(db)
                db.execute("INSERT INTO _migrations (name, applied_at) VALUES (?, datetime('now'))", (name,))
                applied.append(name)
        except BaseException:
            db.rollback()
            raise
        db.commit()
    return applied


def _recorded(db: sqlite3.Connection) -> set[str]:
    """The migrations the store records; one this release does not know is refused (:class:`NewerSchema`)."""
    done = {row[0] for row in db.execute("SELECT name FROM _migrations")}
    unknown = sorted(done - {function.__name__ for function in MIGRATIONS})
    if unknown:
        raise NewerSchema(unknown)
    return done
