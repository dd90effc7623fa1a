"""The heuristic on a Python library's conventions: towncrier fragments by kind, deprecation cycles, packaging.

Every commit is made by git in a temporary repository and read by the git
source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse, heuristic_input

from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.models import ChangeType, Commit, Importance


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"README.rst": "plugs\n=====\n"})


_REGISTRY = """import warnings


class Registry:
    def __init__(self):
        self._plugins = {}

    def register(self, plugin, name=None):
        if name is None:
            name = type(plugin).__name__
        self._plugins[name] = plugin
        return name
"""


def test_a_removal_fragment_that_only_announces_a_deprecation_is_not_breaking(repo: Repo) -> None:
    # Towncrier's `removal` kind is titled "Deprecations and Removals": this entry only starts a warning,
    # and the diff still declares everything, so existing code keeps working through the transition.
    repo.change("Add registry", {"src/plugs/_registry.py": _REGISTRY})
    warned = _REGISTRY.replace(
        "        if name is None:\n",
        "        if name is None:\n"
        '            warnings.warn("`register` without `name` is deprecated", DeprecationWarning, stacklevel=2)\n',
    )
    result = analyse(
        repo.change(
            "Warn when a plugin is registered without a name",
            {
                "src/plugs/_registry.py": warned,
                "changelog/632.removal.rst": "Registering a plugin without ``name`` now emits a "
                ":class:`DeprecationWarning`. Pass ``name`` explicitly.\n",
            },
        )
    )
    assert result.type == ChangeType.feat
    assert result.importance == Importance.medium
    assert not result.flags.breaking


def test_a_change_filed_under_a_silent_fragment_kind_is_low(repo: Repo) -> None:
    # "Trivial/Internal Changes": the project says its users need not read about it, whatever the title's words.
    repo.change("Add package", {"src/plugs/__init__.py": "from ._version import version as __version__\n"})
    lazy = (
        "def __getattr__(name):\n"
        '    if name == "__version__":\n'
        "        from importlib.metadata import version\n\n"
        '        return version("plugs")\n'
        '    raise AttributeError(f"module {__name__} has no attribute {name!r}")\n'
    )
    result = analyse(
        repo.change(
            "Load the version lazily",
            {
                "src/plugs/__init__.py": lazy,
                "changelog/590.trivial.rst": "``plugs.__version__`` is now read from the installed metadata.\n",
            },
        )
    )
    assert result.importance == Importance.low


def test_downstream_test_scripts_are_tests(repo: Repo) -> None:
    # A library's dependents' suites run against its checkout: testing, not a feature users get.
    script = (
        "#!/bin/bash\nset -euo pipefail\ngit clone https://github.com/acme/app\ncd app\npip install -e ../..\npytest\n"
    )
    result = analyse(
        repo.change(
            "Add scripts for downstream testing",
            {"downstream/app.sh": script, "downstream/README.md": "Run a dependent's tests against this checkout.\n"},
        )
    )
    assert (result.type, result.importance) == (ChangeType.test, Importance.low)
    assert not result.flags.user_facing


_PYPROJECT = """[build-system]
requires = [
  "setuptools>=61.2",
  "setuptools-scm[toml]>=6.2.3",
]
build-backend = "setuptools.build_meta"

[project]
name = "plugs"
requires-python = ">=3.9"
license = {file="LICENSE"}
dependencies = [
  "execnet>=2.1",
]
"""


def test_a_build_backend_floor_binds_no_user(repo: Repo) -> None:
    # The installer fetches the backend into an isolated build environment; wheels' users never run it.
    repo.change("Add packaging", {"pyproject.toml": _PYPROJECT})
    spdx = _PYPROJECT.replace("setuptools>=61.2", "setuptools>=77.0").replace('{file="LICENSE"}', '"MIT"')
    result = analyse(repo.change("Use SPDX license identifier", {"pyproject.toml": spdx}))
    assert (result.type, result.importance) == (ChangeType.build, Importance.low)
    # A floor of what users install still binds them.
    raised = spdx.replace("execnet>=2.1", "execnet>=3.0")
    assert analyse(repo.change("Require execnet 3", {"pyproject.toml": raised})).importance == Importance.medium


_GROUPS = """[project]
name = "plugs"
requires-python = ">=3.9"
dependencies = []

[dependency-groups]
tests = [
  "hypothesis",
  'mypy>=1.11.1; python_version >= "3.10"',
  "pytest>=4.3.0",
]
cov = [
  { include-group = "tests" },
  "coverage[toml]>=5.3",
]
"""


def test_dependency_groups_bind_no_user(repo: Repo) -> None:
    # PEP 735 groups are what the developers install to test and lint; no published metadata carries them.
    repo.change("Add packaging", {"pyproject.toml": _GROUPS})
    loosened = (
        _GROUPS.replace("  'mypy>=1.11.1; python_version >= \"3.10\"',\n", "")
        .replace("pytest>=4.3.0", "pytest>=8")
        .replace("coverage[toml]>=5.3", "coverage[toml]")
    )
    result = analyse(repo.change("Update the test dependencies", {"pyproject.toml": loosened}))
    assert not result.flags.breaking
    assert (result.type, result.importance) == (ChangeType.build, Importance.low)
    assert not result.flags.user_facing


_MINIMUM_GROUP = """[project]
name = "plugs"
requires-python = ">=3.9"
dependencies = [
  "attrs>=23.1",
  "pluggy>=1.5",
]

[dependency-groups]
build = [
  "build",
  "check-manifest",
  "check-wheel-contents",
  "twine",
]
pytest-min = [
  "attrs==23.1",
  "coverage==7.15.1",
  "pluggy==1.5",
  "pytest==8.4",
]
typing = [
  "pyright",
]
"""


def test_a_group_of_exact_pins_dropped_below_the_context_takes_nothing_from_users(repo: Repo) -> None:
    # The group's header lies above git's context; its exact pins still say it locks one test environment.
    repo.change("Add packaging", {"pyproject.toml": _MINIMUM_GROUP, "plugs/__init__.py": "import attrs\n"})
    group = _MINIMUM_GROUP[_MINIMUM_GROUP.index("pytest-min") : _MINIMUM_GROUP.index("typing")]
    simpler = _MINIMUM_GROUP.replace(group, "")
    result = analyse(repo.change("Simplify testing minimum dependencies", {"pyproject.toml": simpler}))
    assert not result.flags.breaking
    assert result.importance == Importance.low
    # A floor dropped from what users install, while the package still imports it, still breaks them.
    dropped = simpler.replace('  "attrs>=23.1",\n', "")
    assert analyse(repo.change("Drop attrs", {"pyproject.toml": dropped})).flags.breaking


_TYPING_EXAMPLE = """import plugs


@plugs.define
class Point:
    x: int
    y: int


p = Point(1, 2)
"""


_PATCHER = """class Patcher:
    def object(
        self,
        target: object,
        attribute: str,
        new: object = None,
        **kwargs: object
    ) -> object:
        return self._start_patch(
            target,
            attribute,
            new=new,
            **kwargs
        )
"""


def test_trailing_commas_a_formatter_adds_above_an_unchanged_bracket_are_layout(repo: Repo) -> None:
    # The closing brackets stay on context lines: only the hunk read in order shows the commas trail.
    repo.change("Add patcher", {"plugs/patcher.py": _PATCHER})
    commas = _PATCHER.replace("**kwargs: object\n", "**kwargs: object,\n").replace("**kwargs\n", "**kwargs,\n")
    assert _classes(repo.change("Use ruff in place of black", {"plugs/patcher.py": commas})) == {"layout"}
    # A comma that joins two lines' code is no layout.
    joined = commas.replace("new=new,\n            **kwargs,", "new=new\n            **kwargs,")
    assert _classes(repo.change("Use ruff in place of black", {"plugs/patcher.py": joined})) == {"source"}


def _classes(commit: Commit) -> set[str]:
    analyzer = HeuristicAnalyzer(language="en")
    return set(analyzer.read(heuristic_input(commit, analyzer)).facts.classes)


_RUNNER = """def _scoped_runner(scope, loop_factory, debug):
    runner = Runner(loop_factory=loop_factory, debug=debug)
    return runner
"""


def test_a_title_removing_an_obsolete_argument_declares_no_breaking_removal(repo: Repo) -> None:
    # The project says nothing relies on the argument any more: internal cleanup.
    repo.change("Add runner", {"plugs/runner.py": _RUNNER})
    fewer = _RUNNER.replace("(scope, loop_factory, debug)", "(loop_factory, debug)")
    result = analyse(repo.change("Removed obsolete argument to scoped runner", {"plugs/runner.py": fewer}))
    assert not result.flags.breaking
    assert (result.type, result.importance) == (ChangeType.refactor, Importance.low)
    # Without that word the title still declares a removal users may rely on.
    fewer = fewer.replace("(loop_factory, debug)", "(loop_factory)").replace(", debug=debug", "")
    assert analyse(repo.change("Remove the debug argument", {"plugs/runner.py": fewer})).flags.breaking


_SCOPES = """from pytest import Class, Module, Package, Session


def _scope_root(item, scope):
    node_type_by_scope = {
        "class": Class,
        "module": Module,
        "package": Package,
        "session": Session,
    }
    return item.getparent(node_type_by_scope[scope])


def loop_scope(item):
    return item.get_closest_marker("asyncio")
"""


def test_a_lookup_table_removed_with_its_private_helper_is_no_registry_entry(repo: Repo) -> None:
    repo.change("Add scopes", {"plugs/scopes.py": _SCOPES})
    helper = _SCOPES[_SCOPES.index("def _scope_root") : _SCOPES.index("def loop_scope")]
    result = analyse(repo.change("Drop the scope root lookup", {"plugs/scopes.py": _SCOPES.replace(helper, "")}))
    assert not result.flags.breaking
    assert result.importance == Importance.low


def test_type_checking_examples_are_tests(repo: Repo) -> None:
    # Code CI only runs the type checkers over, to test the stubs: neither the library nor its documentation.
    repo.change("Add typing examples", {"typing-examples/baseline.py": _TYPING_EXAMPLE})
    stricter = _TYPING_EXAMPLE + "q: Point = Point(x=3, y=4)\nassert q.x == 3\n"
    result = analyse(repo.change("Check keyword construction", {"typing-examples/baseline.py": stricter}))
    assert (result.type, result.importance) == (ChangeType.test, Importance.low)
    assert not result.flags.user_facing


_TOX = """[tox]
env_list = py3{9,10,11,12}, coverage-report

[testenv]
extras = tests
commands = pytest {posargs}

[testenv:py311]
commands = coverage run -m pytest {posargs}
"""


def test_a_test_environment_definition_is_ci(repo: Repo) -> None:
    # tox's environments are where CI runs the suite and which run reports coverage: test infrastructure.
    repo.change("Add tox", {"tox.ini": _TOX})
    moved = _TOX.replace("[testenv:py311]", "[testenv:py312]")
    result = analyse(repo.change("Run 3.12 under coverage instead of 3.11", {"tox.ini": moved}))
    assert (result.type, result.importance) == (ChangeType.ci, Importance.low)
    assert not result.flags.user_facing


_PIPE = '''def pipe(*converters):
    """
    A converter that composes multiple converters into one.

        converters (~collections.abc.Iterable[typing.Callable]):
            Arbitrary number of converters.
    """
    return converters
'''


def test_docstring_markup_is_documentation(repo: Repo) -> None:
    # A section heading or a Sphinx directive added inside a docstring: no statement begins so.
    repo.change("Add pipe", {"src/plugs/converters.py": _PIPE})
    marked = _PIPE.replace("\n        converters (", "\n    Args:\n        converters (").replace(
        "converters.\n", "converters.\n\n    .. versionadded:: 2.0\n"
    )
    result = analyse(repo.change("Fix docstring", {"src/plugs/converters.py": marked}))
    assert (result.type, result.importance) == (ChangeType.docs, Importance.low)


_OLD_STYLE = """class Tracer(object):
    def __init__(self, root):
        super(Tracer, self).__init__()
        self.root = root

    def format(self, tags, args):
        return "[{}] {}".format(":".join(tags), " ".join(map(str, args)))
"""


def test_a_modernizer_run_over_the_code_is_a_low_refactor(repo: Repo) -> None:
    # pyupgrade rewrites syntax, not behaviour: no fix, however many modules it touches.
    repo.change("Add tracer", {"src/plugs/_tracing.py": _OLD_STYLE})
    modern = (
        _OLD_STYLE.replace("class Tracer(object):", "class Tracer:")
        .replace("super(Tracer, self)", "super()")
        .replace('"[{}] {}".format(":".join(tags), " ".join(map(str, args)))', "f\"[{':'.join(tags)}] {args}\"")
    )
    result = analyse(repo.change("Run pyupgrade --py36", {"src/plugs/_tracing.py": modern}))
    assert (result.type, result.importance) == (ChangeType.refactor, Importance.low)


_LINTED_PYPROJECT = """[project]
name = "plugs"

[tool.ruff.lint.per-file-ignores]
"src/plugs/_tracing.py" = ["UP"]
"""


@pytest.mark.parametrize(
    "title",
    ["Fix per file ruff ignores related to typing", "Fix `_tracing.py` pre-commit errors"],
)
def test_a_linters_ignores_or_findings_worked_off_are_a_low_refactor(repo: Repo, title: str) -> None:
    # The suppressions go and the code the linter flagged is rewritten: the "fix" is the linter's, not a user's.
    repo.change("Add tracer", {"src/plugs/_tracing.py": _OLD_STYLE, "pyproject.toml": _LINTED_PYPROJECT})
    modern = _OLD_STYLE.replace("class Tracer(object):", "class Tracer:").replace("super(Tracer, self)", "super()")
    unignored = _LINTED_PYPROJECT.split("\n\n[tool.ruff")[0] + "\n"
    result = analyse(repo.change(title, {"src/plugs/_tracing.py": modern, "pyproject.toml": unignored}))
    assert (result.type, result.importance) == (ChangeType.refactor, Importance.low)


_HOOKS = '''def pytest_xdist_setupnodes(config, specs):
    """Called before any remote node is set up.

    See http://pytest.org/en/latest/writing_plugins.html#optionally-using-hooks
    """


DOWNLOAD_URL = "https://example.org/releases/1.0/plugs.tar.gz"
'''


def test_updated_links_are_documentation_an_updated_url_need_not_be(repo: Repo) -> None:
    repo.change("Add hooks", {"src/plugs/newhooks.py": _HOOKS})
    moved = _HOOKS.replace(
        "http://pytest.org/en/latest/writing_plugins.html", "https://pytest.org/en/latest/how-to/hooks.html"
    )
    result = analyse(repo.change("Update a few links", {"src/plugs/newhooks.py": moved}))
    assert (result.type, result.importance) == (ChangeType.docs, Importance.low)
    fetched = moved.replace("releases/1.0/", "downloads/1.0/")
    assert analyse(repo.change("Update the download URL", {"src/plugs/newhooks.py": fetched})).type != ChangeType.docs


_SETTINGS = """from dataclasses import dataclass


@dataclass
class SchedulerConfig:
    max_num_seqs: int = 128
    max_num_batched_tokens: int = \\
        DEFAULT_MAX_NUM_BATCHED_TOKENS
    capture_sizes: list[int] = get_field(CompilationConfig,
                                         "capture_sizes")
    padding: int = current_platform\\
        .padding()
"""


def test_a_default_a_formatter_wraps_anew_is_no_changed_default(repo: Repo) -> None:
    # A formatter wraps the defaults anew (a parenthesis for a backslash, a hanging call and a continued
    # attribute joined): they read the same.
    repo.change("Add scheduler settings", {"src/plugs/config.py": _SETTINGS})
    name = "DEFAULT_MAX_NUM_BATCHED_TOKENS"
    wrapped = (
        _SETTINGS.replace(f"= \\\n        {name}\n", f"= (\n        {name}\n    )\n")
        .replace(",\n                                         ", ", ")
        .replace("\\\n        .padding()", ".padding()")
    )
    assert wrapped != _SETTINGS
    result = analyse(repo.change("Run ruff format on the settings", {"src/plugs/config.py": wrapped}))
    assert (result.type, result.importance, result.flags.breaking) == (ChangeType.refactor, Importance.low, False)
    assert not result.surface
    # A new default wrapped the same way is still one.
    raised = wrapped.replace(name, f"{name} * 2")
    result = analyse(repo.change("Raise the batched-token default", {"src/plugs/config.py": raised}))
    assert [(s.name, s.new) for s in result.surface] == [("max_num_batched_tokens", f"{name} * 2")]
