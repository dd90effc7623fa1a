"""The heuristic on the conventions of a Python command-line tool and library built with click.

Such a project keeps its release notes in ``docs/changelog.rst`` (an ``Unreleased``
section its maintainer adds bullets to), documents its commands' options in the
commands' docstrings, which click prints as ``--help``, and explains in the commit
body what went wrong before. Every commit is made by git in a temporary repository
and read by the git source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_CHANGELOG = """.. _changelog:

===========
 Changelog
===========

.. _unreleased:

Unreleased
----------

- ``rows`` can now read from standard input. (:issue:`684`)

.. _v4_1:

4.1 (2026-07-11)
----------------

- New ``transform --strict`` option. (:issue:`787`)
"""

_CLI = '''import json

import click

from tabletool.db import Database


@click.group()
def cli():
    "Commands for working with tables"


@cli.command()
@click.argument("path")
@click.argument("sql")
@click.option("--nl", is_flag=True, help="Output newline-delimited JSON")
def query(path, sql, nl):
    """Execute SQL query and return the results as JSON

    Example:

        tabletool query data.db "select * from dogs"
    """
    db = Database(path)
    rows = db.query(sql)
    if nl:
        for row in rows:
            click.echo(json.dumps(row, default=repr))
    else:
        click.echo(json.dumps(list(rows), default=repr))
'''

_DB = """import sqlite3


class Database:
    def __init__(self, path):
        self.conn = sqlite3.connect(path)
        self._defaults = {}

    def query(self, sql):
        cursor = self.conn.execute(sql)
        keys = [d[0] for d in cursor.description]
        for row in cursor:
            yield dict(zip(keys, row))

    def create(self, name, columns, pk=None):
        self.conn.execute(
            "create table {} ({})".format(name, ", ".join(columns))
        )
        return name
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# tabletool\n",
            "docs/changelog.rst": _CHANGELOG,
            "tabletool/__init__.py": "",
            "tabletool/cli.py": _CLI,
            "tabletool/db.py": _DB,
            "tests/test_cli.py": "def test_query():\n    assert True\n",
        },
    )


def _with_entry(entry: str) -> str:
    """The changelog with one more bullet in its Unreleased section."""
    return _CHANGELOG.replace("- ``rows`` can now", f"- {entry}\n- ``rows`` can now", 1)


# --------------------------------------------------------------------------- defaults with an opt-out


def test_an_option_that_restores_the_previous_behaviour_announces_a_changed_default(repo: Repo) -> None:
    # The output every user got changes; only those who add the new option keep it.
    cli = _CLI.replace(
        '@click.option("--nl", is_flag=True, help="Output newline-delimited JSON")\ndef query(path, sql, nl):',
        '@click.option("--nl", is_flag=True, help="Output newline-delimited JSON")\n'
        '@click.option("--ascii", "ascii_", is_flag=True, help="Escape non-ASCII characters")\n'
        "def query(path, sql, nl, ascii_):",
    ).replace("default=repr)", "default=repr, ensure_ascii=ascii_)")
    entry = (
        "JSON output no longer escapes non-ASCII characters. A new ``--ascii`` option restores the"
        " previous behavior, for terminals that cannot display them. (:issue:`625`)"
    )
    files = {"tabletool/cli.py": cli, "docs/changelog.rst": _with_entry(entry)}
    result = analyse(repo.change("JSON output no longer escapes non-ASCII characters, new --ascii option", files))
    assert result.type == ChangeType.feat
    assert result.flags.breaking
    assert result.importance == Importance.high


def test_restoring_the_previous_behaviour_without_an_option_is_no_break(repo: Repo) -> None:
    # A fix that brings back what a release broke changes nothing users relied on.
    cli = _CLI.replace("json.dumps(list(rows), default=repr)", "json.dumps(list(rows), default=str)")
    entry = "Restored the previous behavior of ``query`` for values JSON cannot encode. (:issue:`901`)"
    files = {"tabletool/cli.py": cli, "docs/changelog.rst": _with_entry(entry)}
    result = analyse(repo.change("Restore previous behavior for values JSON cannot encode", files))
    assert not result.flags.breaking
