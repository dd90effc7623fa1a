"""Whether a file's patch only refreshes its copyright notice.

Once a year many projects move the last year of every notice on: the license
file's, the README's, the man pages' and the one heading code files
(``" Copyright (c) 2013-2025 Ann Author``). Each changed line is such a notice,
whatever the file is; what the program does, and what its documentation says,
stay as they were.
"""

from __future__ import annotations

from repodaily.analyzers.heuristic.layout import changed_lines, whole_hunks
from repodaily.models import ContextFile

__all__ = ["notices_only"]


def notices_only(file: ContextFile) -> bool:
    """Every line the file's whole patch changes names a copyright, and it changes some."""
    if "opyright" not in file.text:  # the cheap test: most patches name none
        return False
    changed = False
    for hunk in whole_hunks(file):
        removed, added = changed_lines(hunk)
        for line in (*removed, *added):
            if line.strip() and "copyright" not in line.lower():
                return False
            changed = True
    return changed
