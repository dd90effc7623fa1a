"""Conventions of a Python web framework's repository, read from commits git makes in a real repository."""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_APPLICATION = '''class Application:
    """Creates an application instance.

    * **debug** - Boolean indicating if debug tracebacks should be returned on errors.
    * **exception_handlers** - A mapping of either integer status codes,
    or exception class types onto callables which handle the exceptions.
    Exception handler callables should be of the form
    `handler(request, exc) -> response` and may be be either standard functions, or
    async functions.
    * **on_startup** - A list of callables to run on application startup.
    """

    def __init__(self, debug=False, handlers=None):
        self.debug = debug
        self.handlers = {} if handlers is None else dict(handlers)
'''


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"README.md": "# framework\n", "framework/applications.py": _APPLICATION})


def test_a_typo_fixed_inside_a_docstring_is_documentation(repo: Repo) -> None:
    """A docstring is the documentation of the code it sits in: its sentences changed, the code reads as it did."""
    fixed = _APPLICATION.replace("may be be either", "may be either")
    analysis = analyse(
        repo.change("Fix minor typo in Application docstring (#2179)", {"framework/applications.py": fixed})
    )
    assert (analysis.type, analysis.importance, analysis.flags.user_facing) == (ChangeType.docs, Importance.low, False)


def test_a_code_line_beside_a_docstring_is_still_code(repo: Repo) -> None:
    changed = _APPLICATION.replace("{} if handlers is None else dict(handlers)", "dict(handlers or {})")
    analysis = analyse(repo.change("Copy the handlers given to Application", {"framework/applications.py": changed}))
    assert analysis.type != ChangeType.docs


_HEADERS = """import typing


class MutableHeaders:
    def __init__(self):
        self._list = []

    def __setitem__(self, key: str, value: str) -> None:
        found_indexes = []
        for idx, (item_key, _) in enumerate(self._list):
            if item_key == key:
                found_indexes.append(idx)
        for idx in reversed(found_indexes[1:]):
            del self._list[idx]

    def update(self, other: typing.Mapping) -> None:
        for key, val in other.items():
            self[key] = val
"""


def test_type_annotations_made_precise_in_a_python_module_are_a_refactor(repo: Repo) -> None:
    """The interpreter runs the code as it did: RUBRIC.md's type annotations, refactor and low."""
    repo.change("Headers", {"framework/datastructures.py": _HEADERS})
    touched = _HEADERS.replace("found_indexes = []", 'found_indexes: "typing.List[int]" = []').replace(
        "other: typing.Mapping)", "other: typing.Mapping[str, str])"
    )
    analysis = analyse(
        repo.change("Touch up types in MutableHeaders (#1920)", {"framework/datastructures.py": touched})
    )
    assert (analysis.type, analysis.importance, analysis.flags.user_facing) == (
        ChangeType.refactor,
        Importance.low,
        False,
    )


def test_a_default_changed_beside_an_annotation_is_code(repo: Repo) -> None:
    repo.change("Headers", {"framework/datastructures.py": _HEADERS})
    changed = _HEADERS.replace("found_indexes = []", "found_indexes: list[int] = [0]")
    analysis = analyse(repo.change("Touch up MutableHeaders", {"framework/datastructures.py": changed}))
    assert analysis.type != ChangeType.refactor or analysis.importance != Importance.low
