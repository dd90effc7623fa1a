"""Whether a C or C++ file's patch only adds ``#include`` lines: the fix of a build that missed a header.

A header that uses a name must include what declares it; one that relies on
another header to include it for it compiles with one standard library, one
compiler or one configuration and breaks with the next ("Add missing include",
"fix build for FreeBSD", "include tweakme.h so the setting is honoured"). A
patch that adds include directives and nothing else (the preprocessor
conditions around them aside: ``#ifdef _WIN32``) changes no code and fixes a
build: the rubric's "broken build for users", a fix. A patch that also drops
an include or changes code is none of these (reordering or pruning includes is
a refactor the words decide).
"""

from __future__ import annotations

import re

from repodaily.analyzers.heuristic.layout import changed_lines, only_set_aside
from repodaily.models import ContextFile

__all__ = ["includes_only"]

_CODE = (".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh")
_INCLUDE = re.compile(r"^\s*#\s*include\s*[<\"]")
_CONDITION = re.compile(r"^\s*#\s*(?:if|ifdef|ifndef|elif|else|endif)\b")


def includes_only(file: ContextFile) -> bool:
    """Every hunk of a C, C++ or CUDA file's whole patch adds include directives (in their conditions) and no code."""
    if not file.path.lower().endswith(_CODE) or "include" not in file.text:
        return False
    return only_set_aside(file, _adds_includes)


def _adds_includes(hunk: str) -> bool | None:
    """Whether the hunk adds includes and nothing else (None: it changes code or drops a line; False: nothing)."""
    removed, added = changed_lines(hunk)
    if any(line.strip() for line in removed):
        return None
    directives = [line for line in added if line.strip()]
    if not all(_INCLUDE.match(line) or _CONDITION.match(line) for line in directives):
        return None
    if directives and not any(_INCLUDE.match(line) for line in directives):
        return None
    return bool(directives)
