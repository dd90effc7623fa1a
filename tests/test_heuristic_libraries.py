"""The heuristic on the conventions of long-lived libraries: deprecation cycles, stable branches, advisories.

Every commit is made by git in a temporary repository and read by the git
source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import Analysis, ChangeType, Commit, Importance
from repodaily.sources.git import collect_commits, open_repository

_BRANCHED = datetime(2026, 2, 8, 18, tzinfo=UTC)
_MERGED = datetime(2026, 2, 9, 12, tzinfo=UTC)

_SECURITY = """import posixpath


def safe_join(directory, *pathnames):
    parts = [directory]
    for filename in pathnames:
        filename = posixpath.normpath(filename)
        if filename == ".." or filename.startswith("../"):
            return None
        parts.append(filename)
    return posixpath.join(*parts)
"""

_CHANGES = "Version 3.0.3\n-------------\n\nUnreleased\n\n"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"README.md": "# lib\n", "src/lib/security.py": _SECURITY, "CHANGES.rst": _CHANGES})


def merged_from(repo: Repo, branch: str, message: str, files: dict[str, str]) -> Commit:
    """The merge (titled ``message``) into main of a commit of ``files`` made the day before on ``branch``."""
    builder = repo.builder
    builder.git("checkout", "-q", "-b", branch)
    builder.commit("Fix the issue", when=_BRANCHED, files=files)
    builder.git("checkout", "-q", "main")
    sha = builder.merge(branch, message, when=_MERGED)
    repository = open_repository(str(builder.path), cache_dir=repo.path / "cache")
    day = collect_commits(repository, _MERGED.replace(hour=0), _MERGED.replace(hour=23, minute=59))
    return next(commit for commit in day if commit.sha == sha)


def rewritten(repo: Repo, path: str, before: str, after: str, message: str) -> Analysis:
    """``path`` committed as ``before``, then rewritten to ``after`` by the commit ``message``, analysed."""
    repo.change(f"Add {path}", {path: before})
    return analyse(repo.change(message, {path: after}))


def _hardened() -> str:
    return _SECURITY.replace(
        'filename.startswith("../")', 'filename.startswith("../")\n            or filename.startswith("/")'
    )


def _released(*entries: str) -> str:
    return _CHANGES.replace("Unreleased\n\n", "Released 2026-02-09\n\n" + "".join(f"-   {e}\n" for e in entries))


# --------------------------------------------------------------------------- stable branches


def test_a_stable_branch_merged_back_with_a_security_release_is_a_high_security_fix(repo: Repo) -> None:
    entries = (
        "Type annotation for ``endpoint`` is ``Any``.",
        "``safe_join`` rejects absolute paths. :ghsa:`f9vj-2wh5-fj8j`",
    )
    files = {"src/lib/security.py": _hardened(), "CHANGES.rst": _released(*entries)}
    result = analyse(merged_from(repo, "stable", "Merge branch 'stable'", files))
    # The advisory's id outvotes the refactor word of the other entry, and is quoted whole.
    assert (result.type, result.importance) == (ChangeType.fix, Importance.high)
    assert result.flags.security
    assert ":ghsa:`f9vj-2wh5-fj8j`" in result.importance_reason


def test_a_stable_branch_merged_back_with_ordinary_fixes_stays_medium(repo: Repo) -> None:
    files = {"src/lib/security.py": _hardened(), "CHANGES.rst": _released("Fix a crash in ``safe_join``.")}
    result = analyse(merged_from(repo, "stable", "Merge branch 'stable'", files))
    assert (result.type, result.importance) == (ChangeType.fix, Importance.medium)
    assert not result.flags.security


# --------------------------------------------------------------------------- security advisories


def test_a_security_advisory_merged_from_its_private_fork_is_a_security_fix(repo: Repo) -> None:
    result = analyse(merged_from(repo, "advisory", "Merge commit from fork", {"src/lib/security.py": _hardened()}))
    assert (result.type, result.importance) == (ChangeType.fix, Importance.high)
    assert result.flags.security


def test_a_squashed_advisory_fork_title_is_a_security_fix(repo: Repo) -> None:
    result = analyse(repo.change("Merge commit from fork", {"src/lib/security.py": _hardened()}))
    assert (result.type, result.importance) == (ChangeType.fix, Importance.high)
    assert result.flags.security


def test_merging_another_commit_is_still_a_sync_merge(repo: Repo) -> None:
    result = analyse(merged_from(repo, "topic", "Merge commit 'abc1234'", {"src/lib/security.py": _hardened()}))
    assert result.importance_reason.startswith("a merge whose title says nothing")
    assert not result.flags.security


# --------------------------------------------------------------------------- deprecation cycles


_DEPRECATED = """import warnings


def status_name(code):
    return str(code)


def __getattr__(name):
    if name == "OLD_CODES":
        warnings.warn("'OLD_CODES' is deprecated and will be removed.", DeprecationWarning, stacklevel=2)
        return {}
    raise AttributeError(name)
"""


def test_removing_what_was_deprecated_is_breaking_but_medium(repo: Repo) -> None:
    removed = _DEPRECATED.split("\n\n\ndef __getattr__")[0] + "\n"
    result = rewritten(repo, "src/lib/status.py", _DEPRECATED, removed, "Remove deprecated `OLD_CODES`")
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)
    assert result.flags.breaking


# --------------------------------------------------------------------------- runtimes


def test_dropping_a_python_version_is_a_breaking_build_change(repo: Repo) -> None:
    pyproject = '[project]\nname = "lib"\nrequires-python = ">={}"\ndependencies = ["markupsafe>=2.1.1"]\n'
    repo.change("Add packaging", {"pyproject.toml": pyproject.format("3.8")})
    files = {
        "pyproject.toml": pyproject.format("3.9"),
        "CHANGES.rst": _CHANGES + "-   Drop support for Python 3.8.\n",
        # Code written for the new floor comes along.
        "src/lib/security.py": _SECURITY.replace(
            "def safe_join(directory, *pathnames):", "def safe_join(directory: str, *pathnames: str) -> str | None:"
        ),
    }
    result = analyse(repo.change("drop support for Python 3.8", files))
    assert (result.type, result.importance) == (ChangeType.build, Importance.high)
    assert result.flags.breaking


# --------------------------------------------------------------------------- what a program shows


def test_rewording_an_exception_message_is_a_low_fix(repo: Repo) -> None:
    worded = _SECURITY.replace("return None\n", 'raise RuntimeError(f"{filename!r} escapes the directory")\n', 1)
    reworded = worded.replace("escapes the directory", "is outside the base directory")
    title = "Correct the RuntimeError message content in safe_join"
    result = rewritten(repo, "src/lib/security.py", worded, reworded, title)
    assert (result.type, result.importance) == (ChangeType.fix, Importance.low)


_PROFILER = """import logging

logger = logging.getLogger(__name__)


def report(free, requested, used):
    available = requested - used
    logger.debug(
        "Initial free memory: %.2f GiB, requested: %.2f GiB",
        free,
        requested,
    )
    return available
"""


def test_rewording_a_debug_message_is_low(repo: Repo) -> None:
    # The call spans lines and a value is computed for it: only the title says the diff is wording.
    computed = _PROFILER.replace("    logger.debug(\n", "    unrequested = free - requested\n    logger.debug(\n")
    reworded = computed.replace(
        'requested: %.2f GiB",\n        free,',
        'requested: %.2f GiB; %.2f unrequested",\n        free,\n        unrequested,',
    )
    title = "[Misc] Improve memory profiling debug message"
    result = rewritten(repo, "src/lib/profiler.py", _PROFILER, reworded, title)
    assert (result.type, result.importance) == (ChangeType.chore, Importance.low)


_PARALLEL = """def shard(model, pipeline, tensor):
    if pipeline > 1 and not model.pipeline_plan:
        raise ValueError(f"{model.name} does not support pipeline parallel yet!")
    if tensor > 1 and not model.tensor_plan:
        raise ValueError(f"{model.name} does not support tensor parallel yet!")
    return model
"""


def test_better_errors_named_in_the_title_are_wording_even_with_a_helper_that_builds_them(repo: Repo) -> None:
    # The diff adds a public function, which alone reads as new capability: it only composes the messages.
    helper = (
        "def feature_request_tip(model):\n"
        '    url = f"https://example.org/{model.name}/discussions"\n'
        '    return f"Please open a discussion at {url} to request it."\n\n\n'
    )
    worded = helper + _PARALLEL.replace(' yet!")', '. {feature_request_tip(model)}")')
    title = "Better errors for the wrapped backend's missing features"
    result = rewritten(repo, "src/lib/parallel.py", _PARALLEL, worded, title)
    assert (result.type, result.importance) == (ChangeType.chore, Importance.low)
    # Whoever hits the error reads the new wording.
    assert result.flags.user_facing


def test_improved_error_messages_are_user_facing_wording(repo: Repo) -> None:
    worded = _PARALLEL.replace("yet!", "yet; set pipeline=1 or pick a model with a plan")
    title = "[Misc] Improve error messages for unsupported parallel settings"
    result = rewritten(repo, "src/lib/parallel.py", _PARALLEL, worded, title)
    assert (result.type, result.importance, result.flags.user_facing) == (ChangeType.chore, Importance.low, True)


def test_rewording_a_log_call_a_formatter_wrapped_is_low_whatever_the_title(repo: Repo) -> None:
    reworded = _PROFILER.replace("Initial free memory: %.2f GiB,", "Free memory at start: %.2f GiB;")
    result = rewritten(repo, "src/lib/profiler.py", _PROFILER, reworded, "[Bugfix] Fix display error in the profiler")
    assert (result.type, result.importance) == (ChangeType.fix, Importance.low)


def test_a_wrapped_log_call_beside_changed_code_is_not_only_wording(repo: Repo) -> None:
    reworded = _PROFILER.replace("Initial free memory: %.2f GiB,", "Free memory at start: %.2f GiB;")
    recomputed = reworded.replace("available = requested - used", "available = max(requested - used, 0)")
    result = rewritten(repo, "src/lib/profiler.py", _PROFILER, recomputed, "[Bugfix] Fix display error in the profiler")
    assert result.importance == Importance.medium


def test_giving_a_class_a_repr_is_a_low_feature(repo: Repo) -> None:
    before = "class UploadFile:\n    def __init__(self, filename):\n        self.filename = filename\n"
    after = before + "\n    def __repr__(self):\n        return f'UploadFile(filename={self.filename!r})'\n"
    result = rewritten(repo, "src/lib/uploads.py", before, after, "Add `UploadFile.__repr__`")
    assert (result.type, result.importance) == (ChangeType.feat, Importance.low)


# --------------------------------------------------------------------------- defaults


_REDIRECT = "def redirect(location, code={}):\n    return (code, location)\n"


def test_a_default_replaced_by_a_named_other_is_breaking(repo: Repo) -> None:
    repo.change("Add redirect", {"src/lib/utils.py": _REDIRECT.format(302)})
    entry = "-   ``redirect`` returns a ``303`` status code by default instead of ``302``.\n"
    files = {"src/lib/utils.py": _REDIRECT.format(303), "CHANGES.rst": _CHANGES + entry}
    result = analyse(repo.change("`redirect` defaults to 303", files))
    assert (result.type, result.importance) == (ChangeType.feat, Importance.high)
    assert result.flags.breaking


def test_a_feature_switched_on_by_default_names_no_old_default(repo: Repo) -> None:
    repo.change("Add redirect", {"src/lib/utils.py": _REDIRECT.format(302)})
    entry = "-   Redirect caching is enabled by default.\n"
    files = {"src/lib/utils.py": _REDIRECT.format(302) + "CACHE = True\n", "CHANGES.rst": _CHANGES + entry}
    result = analyse(repo.change("Enable redirect caching by default", files))
    assert not result.flags.breaking


# --------------------------------------------------------------------------- packaging


def test_changing_the_build_backend_is_a_build_change(repo: Repo) -> None:
    setuptools = '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n'
    repo.change("Add packaging", {"pyproject.toml": setuptools})
    flit = '[build-system]\nrequires = ["flit_core<4"]\nbuild-backend = "flit_core.buildapi"\n'
    entry = "-   Use ``flit_core`` instead of ``setuptools`` as build backend.\n"
    files = {"pyproject.toml": flit, "CHANGES.rst": _CHANGES + entry, "src/lib/__init__.py": '"""The lib."""\n'}
    result = analyse(merged_from(repo, "2.3.x", "Merge branch '2.3.x'", files))
    assert result.type == ChangeType.build


def test_retiring_a_legacy_setup_py_drops_no_dependency(repo: Repo) -> None:
    pyproject = '[project]\nname = "lib"\ndependencies = ["anyio>=3.4.0,<5"]\n'
    setup = 'from setuptools import setup\n\nsetup(name="lib", install_requires=[\n    "anyio>=3.4.0,<5",\n])\n'
    files = {"pyproject.toml": pyproject, "setup.py": setup, "src/lib/run.py": "import anyio\n"}
    repo.change("Add packaging", files)
    result = analyse(repo.change("Delete setup.py", {}, removed=("setup.py",)))
    assert (result.type, result.importance) == (ChangeType.build, Importance.low)
    assert not result.flags.breaking
