"""The heuristic on a maintained Python library's conventions: a team keeping a release line beside its main
branch, a changelog of version sections, public features users may mark deprecated themselves.

Every commit is made by git in a temporary repository and read by the git
source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_heuristic_libraries import merged_from
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"README.md": "# clack\n", "CHANGES.rst": "Version 2.1.0\n-------------\n\nUnreleased\n\n"})


_ARGUMENT = """class Argument:
    def __init__(self, decls, required=None, **attrs):
        if "multiple" in attrs:
            raise TypeError("__init__() got an unexpected keyword argument 'multiple'.")

        self.decls = decls
        self.required = required
"""


def test_a_parameter_named_deprecated_beside_an_unrelated_error_ends_no_deprecation(repo: Repo) -> None:
    # Libraries that let their users mark a command or parameter deprecated read a `deprecated` argument;
    # the name is no notice, and the error two lines above it has always been raised.
    repo.change("Add arguments", {"src/clack/core.py": _ARGUMENT})
    labelled = _ARGUMENT.replace(
        "\n        self.decls = decls\n",
        '\n        deprecated = attrs.get("deprecated", False)\n\n'
        "        if deprecated:\n"
        "            decls = [*decls, '(DEPRECATED)']\n"
        "        self.decls = decls\n",
    )
    result = analyse(repo.change("Show a label on deprecated arguments", {"src/clack/core.py": labelled}))
    assert not result.flags.breaking
    assert not [change for change in result.surface if change.kind.value == "deprecation"]


_EDIT = """import typing as t


def edit(text: t.AnyStr | None = None, editor: str | None = None) -> t.AnyStr | None:
    return _run(editor, text)
"""


def test_corrected_annotations_of_a_named_function_are_a_type_annotation_refactor(repo: Repo) -> None:
    # "Correct click.edit typing": the title names the function whose annotations it corrects, and the
    # changelog records it for users' type checkers; the program runs as before.
    repo.change("Add edit", {"src/clack/termui.py": _EDIT})
    overloads = _EDIT.replace(
        "def edit(text: t.AnyStr | None = None, editor: str | None = None) -> t.AnyStr | None:\n",
        "@t.overload\ndef edit(text: bytes, editor: str | None = None) -> bytes | None: ...\n\n\n"
        "@t.overload\ndef edit(text: str | None = None, editor: str | None = None) -> str | None: ...\n\n\n"
        "def edit(text: str | bytes | None = None, editor: str | None = None) -> str | bytes | None:\n",
    )
    changes = "Version 2.1.0\n-------------\n\nUnreleased\n\n-   ``edit`` overloads tell ``str`` from ``bytes``.\n"
    result = analyse(
        repo.change("Correct clack.edit typing (#2804)", {"src/clack/termui.py": overloads, "CHANGES.rst": changes})
    )
    assert result.type == ChangeType.refactor
    assert result.importance == Importance.low


_COMPLETION = """def source(comp):
    echo(comp.source())
"""


@pytest.mark.parametrize("title", ["Merge stable into main (#3479)", "Merge branch '2.1.x'"])
def test_a_merged_maintenance_branch_brings_fixes(repo: Repo, title: str) -> None:
    # The team fixes released versions on its maintenance branch and merges it forward; the entries its
    # changelog gains say what now works ("... parse correctly on Windows"), not that it was broken.
    repo.change("Add completion", {"src/clack/completion.py": _COMPLETION})
    written = _COMPLETION.replace("    echo(comp.source())\n", "    echo(comp.source().encode(), nl=False)\n")
    changes = "Version 2.1.1\n-------------\n\nUnreleased\n\n-   Completion scripts parse correctly on Windows.\n"
    result = analyse(merged_from(repo, "stable", title, {"src/clack/completion.py": written, "CHANGES.rst": changes}))
    assert result.type == ChangeType.fix


_PROGRESS = """class ProgressBar:
    def __init__(self, length, update_min_steps=1):
        self.length = length
        self.update_min_steps = update_min_steps
        self.pos = 0
        self._pending = 0

    def update(self, steps):
        self._pending += steps
        if self._pending >= self.update_min_steps:
            self.pos += self._pending
            self._pending = 0

    def finish(self):
        self.render()
"""

_PROGRESS_TEST = """from clack.progress import ProgressBar


def test_progressbar_lands_on_final_position():
    bar = ProgressBar(20, update_min_steps=7)
    for _ in range(20):
        bar.update(1)
    bar.finish()
    assert bar.pos == 20
"""


def test_a_guard_added_with_a_test_is_a_fix_when_the_changelog_names_no_type(repo: Repo) -> None:
    # The entry says what now works ("settles on its final position"), not that it was broken; the diff adds
    # a guard to an existing method and the test for the case, and declares nothing new.
    repo.change("Add progress bar", {"src/clack/progress.py": _PROGRESS})
    settled = _PROGRESS.replace(
        "    def finish(self):\n",
        "    def finish(self):\n        if self._pending:\n            self.pos += self._pending\n"
        "            self._pending = 0\n",
    )
    changes = (
        "Version 2.1.0\n-------------\n\nUnreleased\n\n"
        "-   The progress bar settles on its final position when ``update_min_steps``\n"
        "    does not divide the total. :issue:`3571`\n"
    )
    result = analyse(
        repo.change(
            "Settles progress bar on its final position (#3769)",
            {"src/clack/progress.py": settled, "tests/test_progress.py": _PROGRESS_TEST, "CHANGES.rst": changes},
        )
    )
    assert result.type == ChangeType.fix
    assert result.importance == Importance.medium


def test_a_guard_that_serves_a_new_parameter_is_no_fix(repo: Repo) -> None:
    # The same shape with a new keyword: the guard reads the new option, the change a feature's.
    repo.change("Add progress bar", {"src/clack/progress.py": _PROGRESS})
    settled = _PROGRESS.replace(
        "    def finish(self):\n",
        "    def finish(\n        self,\n        settle: bool = False,\n    ):\n        if settle:\n"
        "            self.pos += self._pending\n",
    )
    changes = "Version 2.1.0\n-------------\n\nUnreleased\n\n-   ``finish`` can settle the bar on its total.\n"
    result = analyse(
        repo.change(
            "Settles progress bar on request",
            {"src/clack/progress.py": settled, "tests/test_progress.py": _PROGRESS_TEST, "CHANGES.rst": changes},
        )
    )
    assert result.type == ChangeType.feat


_HOOKS = """repos:
  - repo: https://github.com/astral-sh/ruff-pre-commit
    rev: v0.11.0
    hooks:
      - id: ruff
"""

_PARSER = """def split(args):
    if not args:
        raise ValueError("Nothing to seperate.")
    return [a for a in args if a.startswith("-")], [a for a in args if not a.startswith("-")]
"""

_PARSER_TEST = """def test_split_seperates_options():
    assert split(["-v", "x"]) == (["-v"], ["x"])
"""


def test_a_checker_added_to_the_developers_hooks_is_tooling(repo: Repo) -> None:
    # "add codespell pre-commit hook": the first run's typos are fixed in the same commit; users get nothing.
    repo.change(
        "Add parser",
        {"src/clack/parser.py": _PARSER, "tests/test_parser.py": _PARSER_TEST, ".pre-commit-config.yaml": _HOOKS},
    )
    hooks = _HOOKS + "  - repo: https://github.com/codespell-project/codespell\n    rev: v2.4.1\n"
    hooks += "    hooks:\n      - id: codespell\n"
    result = analyse(
        repo.change(
            "add codespell pre-commit hook (#3373)",
            {
                "src/clack/parser.py": _PARSER.replace("seperate", "separate"),
                "tests/test_parser.py": _PARSER_TEST.replace("seperates", "separates"),
                ".pre-commit-config.yaml": hooks,
            },
        )
    )
    assert result.type == ChangeType.chore
    assert result.importance == Importance.low
    assert not result.flags.user_facing


_COMPILED = """#
# This file is autogenerated by pip-compile with Python 3.13
#
build==1.2.2
    # via -r build.in
packaging==24.2
    # via build
pyproject-hooks==1.2.0
    # via build
"""


def test_pins_of_a_compiled_requirements_file_are_no_floor_users_meet(repo: Repo) -> None:
    # `requirements/build.txt`, compiled by pip-tools: its pins set the release job's environment, not what
    # users' installers must satisfy.
    repo.change("Add requirements", {"requirements/build.txt": _COMPILED})
    raised = _COMPILED.replace("packaging==24.2", "packaging==25.0").replace("build==1.2.2\n", "build==1.2.2.post1\n")
    result = analyse(repo.change("update dev dependencies", {"requirements/build.txt": raised}))
    assert not [change for change in result.surface if change.kind.value == "dependency_floor"]
    assert result.importance == Importance.low


_INVOKE = """UNSET = object()


def invoke(callback, params, defaults):
    for name, value in defaults.items():
        if name not in params:
            params[name] = value
    return callback(**params)
"""


def test_a_changelog_entry_in_a_refactor_verb_still_records_what_users_get(repo: Repo) -> None:
    # "Replace ``UNSET`` default values by ``None`` ...": the project tells its users what they now receive;
    # the verb restructures nothing.
    repo.change("Add invoke", {"src/clack/core.py": _INVOKE})
    hidden = _INVOKE.replace(
        "        if name not in params:\n",
        "        if name not in params and value is not UNSET:\n",
    ).replace(
        "    return callback(**params)\n",
        "    return callback(**{k: v for k, v in params.items() if v is not UNSET})\n",
    )
    tests = (
        "from clack.core import UNSET, invoke\n\n\n"
        "def test_unset_defaults_are_not_passed():\n"
        "    assert invoke(lambda **kw: kw, {}, {'a': UNSET}) == {}\n"
    )
    changes = (
        "Version 2.1.0\n-------------\n\nUnreleased\n\n"
        "-   Replace ``UNSET`` default values by ``None`` as they're passed through\n"
        "    ``invoke()``. :issue:`3066`\n"
    )
    result = analyse(
        repo.change(
            "Hide `UNSET` values for defaults processed by `invoke` (#3068)",
            {"src/clack/core.py": hidden, "tests/test_core.py": tests, "CHANGES.rst": changes},
        )
    )
    assert result.type == ChangeType.fix
    assert result.importance == Importance.medium


def test_entries_a_compiled_requirements_file_drops_are_no_dropped_dependency(repo: Repo) -> None:
    # A lock re-resolved from its `.in` file loses what nothing asks for any more; users install nothing from it.
    repo.change("Add requirements", {"requirements/build.txt": _COMPILED})
    resolved = _COMPILED.replace("pyproject-hooks==1.2.0\n    # via build\n", "")
    result = analyse(repo.change("update dev dependencies", {"requirements/build.txt": resolved}))
    assert not result.flags.breaking
    assert not [change for change in result.surface if change.kind.value == "dependency"]


_EXCEPTIONS = """import typing as t


class BadParameter(Exception):
    def __init__(self, message: str, param_hint: str | None = None) -> None:
        super().__init__(message)
        self.param_hint = param_hint
"""


def test_annotations_a_changelog_entry_names_stay_a_type_annotation_refactor(repo: Repo) -> None:
    # "Fix typing issue in ``BadParameter`` ...": the entry tells type-checker users, and the code runs as before.
    repo.change("Add exceptions", {"src/clack/exceptions.py": _EXCEPTIONS})
    widened = _EXCEPTIONS.replace("param_hint: str | None = None", "param_hint: str | t.Sequence[str] | None = None")
    changes = (
        "Version 2.1.0\n-------------\n\nUnreleased\n\n"
        "-   Fix typing issue in ``BadParameter`` for the parameter ``param_hint`` that did\n"
        "    not allow for a sequence of strings. :issue:`2777`\n"
    )
    result = analyse(
        repo.change(
            "Using correct typing for `param_hint` (#2990)",
            {"src/clack/exceptions.py": widened, "CHANGES.rst": changes},
        )
    )
    assert result.type == ChangeType.refactor
    assert result.importance == Importance.low
