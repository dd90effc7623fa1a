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

from repodaily.models import Analysis, ChangeType, Importance

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


# --------------------------------------------------------------------------- what failed before


_REMEMBERS_PK = _DB.replace(
    "        return name\n",
    '        if pk is not None:\n            self._defaults["pk"] = pk\n        return name\n'
    "\n    def upsert(self, name, row, pk=None):\n"
    '        pk = pk or self._defaults.get("pk")\n'
    "        if pk is None:\n"
    '            raise ValueError("upsert requires a pk")\n'
    "        return pk\n",
)
_TEST_PK = (
    "def test_upsert_remembers_pk(db):\n"
    '    db.create("dogs", ["id", "name"], pk="id")\n'
    '    assert db.upsert("dogs", {"id": 1}) == "id"\n'
)


def test_a_body_saying_what_failed_before_makes_the_change_a_fix(repo: Repo) -> None:
    body = (
        "When a pk is passed to create() it is now remembered, so later calls\n"
        "on the same database use it automatically.\n\n"
        'Previously, calling db.create("dogs", ..., pk="id") followed by\n'
        'db.upsert("dogs", ...) would fail with a "requires a pk" error.\n\n'
        "Closes #655"
    )
    files = {"tabletool/db.py": _REMEMBERS_PK, "tests/test_db.py": _TEST_PK}
    result = analyse(repo.change(f"Database.create() now stores the pk in _defaults\n\n{body}", files))
    assert result.type == ChangeType.fix
    assert result.importance == Importance.medium
    assert result.flags.user_facing
    # The body's sentence is quoted on one line, as a report shows it.
    assert "Previously, calling" in result.importance_reason
    assert "\n" not in result.importance_reason


def test_a_body_saying_what_was_possible_before_is_no_fix(repo: Repo) -> None:
    body = "Previously only a single column could be passed.\n\nCloses #700"
    files = {"tabletool/db.py": _REMEMBERS_PK, "tests/test_db.py": _TEST_PK}
    result = analyse(repo.change(f"Add upsert() that takes a pk\n\n{body}", files))
    assert result.type == ChangeType.feat


# --------------------------------------------------------------------------- help text


def test_updating_a_commands_help_text_is_documentation(repo: Repo) -> None:
    # click prints the command's docstring as its --help; the reference page repeats it.
    cli = _CLI.replace(
        '        tabletool query data.db "select * from dogs"\n',
        '        tabletool query data.db "select * from dogs"\n\n'
        "    Pass --nl to get one JSON object per line:\n\n"
        '        tabletool query data.db "select * from dogs" --nl\n',
    )
    reference = "Query\n=====\n\n::\n\n    Pass --nl to get one JSON object per line\n"
    files = {"tabletool/cli.py": cli, "docs/cli-reference.rst": reference}
    result = analyse(repo.change("Update tabletool query --help, refs #686", files))
    assert result.type == ChangeType.docs
    assert result.importance == Importance.low
    # What --help prints ships with the program: users see it.
    assert result.flags.user_facing


# --------------------------------------------------------------------------- issue references closing a title


def test_a_closing_issue_reference_after_the_title_hides_no_word_of_it(repo: Repo) -> None:
    # "..., closes #621" links the issue; the title's own last word ("support") still says what it does.
    db = _DB.replace(
        '            "create table {} ({})".format(name, ", ".join(columns))\n',
        '            "create table {} ({}{})".format(\n'
        '                name, ", ".join(columns), self._primary_key(pk)\n'
        "            )\n",
    ).replace(
        "    def create(self, name, columns, pk=None):\n",
        "    def _primary_key(self, pk):\n"
        "        if not pk:\n"
        '            return ""\n'
        "        pks = [pk] if isinstance(pk, str) else list(pk)\n"
        '        return ", primary key ({})".format(", ".join(pks))\n\n'
        "    def create(self, name, columns, pk=None):\n",
    )
    result = analyse(repo.change("create() compound primary key support, closes #621", {"tabletool/db.py": db}))
    assert result.type == ChangeType.feat


# --------------------------------------------------------------------------- silent data loss


_DEDUPED = _DB.replace(
    "        keys = [d[0] for d in cursor.description]\n",
    "        keys = dedupe_keys(d[0] for d in cursor.description)\n",
).replace(
    "import sqlite3\n",
    "import sqlite3\n\n\n"
    "def dedupe_keys(keys):\n"
    "    seen = {}\n"
    "    result = []\n"
    "    for key in keys:\n"
    "        count = seen.get(key, 0) + 1\n"
    "        seen[key] = count\n"
    '        result.append(key if count == 1 else "{}_{}".format(key, count))\n'
    "    return result\n",
)


def test_a_body_telling_of_silently_lost_values_makes_the_fix_high(repo: Repo) -> None:
    body = (
        "Queries returning duplicate column names - e.g. joins between tables\n"
        "sharing column names - silently lost values because rows were built\n"
        "with dict(zip(keys, row)), where the last duplicate wins.\n\n"
        "Closes #624"
    )
    result = analyse(
        repo.change(f"Preserve duplicate column names in query results\n\n{body}", {"tabletool/db.py": _DEDUPED})
    )
    assert result.type == ChangeType.fix
    assert result.importance == Importance.high


# --------------------------------------------------------------------------- clauses of a title


_VIEWS = _REMEMBERS_PK + "\n    def views(self):\n        return list(self.view_names())\n"
_VIEW = _REMEMBERS_PK.replace(
    "        if pk is None:\n",
    "        if pk is None or name in self.view_names():\n",
) + (
    "\n    def view(self, name):\n"
    "        if name not in self.view_names():\n"
    '            raise KeyError("View {} does not exist".format(name))\n'
    "        return name\n"
)
_TEST_VIEW = _TEST_PK + '\n\ndef test_view(db):\n    assert db.view("v") == "v"\n'


def _views(repo: Repo, title: str) -> Analysis:
    """A change to code that already lists views: a condition edited, a method replaced, a test added."""
    repo.change("Remember the pk", {"tabletool/db.py": _VIEWS, "tests/test_db.py": _TEST_PK})
    return analyse(repo.change(title, {"tabletool/db.py": _VIEW, "tests/test_db.py": _TEST_VIEW}))


def test_a_later_clause_that_adds_something_names_a_feature(repo: Repo) -> None:
    result = _views(repo, "db.upsert() only writes to tables, added db.view()")
    assert result.type == ChangeType.feat


def test_a_later_clause_that_adds_a_test_names_no_feature(repo: Repo) -> None:
    result = _views(repo, "Handle views in upsert(), add regression test")
    assert result.type == ChangeType.fix


# --------------------------------------------------------------------------- signatures


def _create_signature(params: str, body: str = "") -> str:
    """The library with ``create()`` taking ``params`` after ``columns``, ``body`` run first."""
    return _DB.replace(
        "    def create(self, name, columns, pk=None):\n",
        f"    def create(self, name, columns, {params}):\n{body}",
    )


def test_a_title_naming_a_new_keyword_is_a_feature(repo: Repo) -> None:
    db = _create_signature("pk=None, strict=False", '        if strict:\n            columns = columns + ["strict"]\n')
    result = analyse(repo.change("db.create(..., strict=True), refs #378", {"tabletool/db.py": db}))
    assert result.type == ChangeType.feat


def test_arguments_made_keyword_only_break_positional_calls(repo: Repo) -> None:
    db = _create_signature("*, pk=None")
    result = analyse(repo.change("Keyword only arguments for create()\n\nCloses #165", {"tabletool/db.py": db}))
    assert result.type == ChangeType.feat
    assert result.flags.breaking


def test_a_better_type_signature_is_a_refactor(repo: Repo) -> None:
    db = _create_signature("pk: Optional[str] = None").replace(
        "import sqlite3\n", "import sqlite3\nfrom typing import Optional\n"
    )
    result = analyse(repo.change("Better type signature for pk, closes #341", {"tabletool/db.py": db}))
    assert result.type == ChangeType.refactor
    assert result.importance == Importance.low


def test_fixes_a_type_checker_asks_for_are_a_refactor(repo: Repo) -> None:
    db = (
        _DB.replace("import sqlite3\n", "import sqlite3\nfrom typing import Any\n")
        .replace("        self._defaults = {}\n", "        self._defaults: dict[str, Any] = {}\n")
        .replace(
            "        cursor = self.conn.execute(sql)\n",
            "        cursor = self.conn.execute(sql)\n        assert cursor.description is not None\n",
        )
    )
    result = analyse(repo.change("Type fixes now enforced by mypy", {"tabletool/db.py": db}))
    assert result.type == ChangeType.refactor
    assert result.importance == Importance.low
