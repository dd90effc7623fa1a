"""The heuristic on the conventions of long-lived libraries: deprecation cycles, stable branches, advisories.

Every commit is made by git in a temporary repository and read by the git
source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

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
    repo.change("Deprecate OLD_CODES", {"src/lib/status.py": _DEPRECATED})
    removed = _DEPRECATED.split("\n\n\ndef __getattr__")[0] + "\n"
    result = analyse(repo.change("Remove deprecated `OLD_CODES`", {"src/lib/status.py": removed}))
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)
    assert result.flags.breaking
