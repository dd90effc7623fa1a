"""``~`` and ``~user`` at the start of a path the user wrote, expanded as a shell would.

``Path.expanduser`` raises RuntimeError for a user the system does not know
(``~deploy/repos`` on a machine without ``deploy``), which surfaced as an
internal error. A path that cannot be expanded is a mistake in the input: a
ConfigError that says so.
"""

from __future__ import annotations

import os
from pathlib import Path

from repodaily.errors import ConfigError

__all__ = ["expand_home"]


def expand_home(path: str | Path) -> Path:
    """``path`` with a leading ``~`` or ``~user`` replaced by that home directory."""
    text = os.fspath(path)
    expanded = os.path.expanduser(text)
    if expanded.startswith("~"):
        user = expanded[1:].split(os.sep, 1)[0]
        raise ConfigError(f"{text}: no user {user!r} on this system, whose home '~{user}' would be")
    return Path(expanded)
