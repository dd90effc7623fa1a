"""Whether a code file's patch only adds or drops forced-inlining hints (``FMT_INLINE``, ``#[inline(always)]``).

A hint that forces (or stops forcing) a function to be inlined changes what the
compiler emits, never what the code does: the rubric's performance change, low
unless the commit measures it (debug codegen, call overhead, binary size). The
hints are the compilers' own spellings (``__forceinline``,
``__attribute__((always_inline))``, ``[[gnu::always_inline]]``,
``__always_inline``), a project's macro for them (an upper-case name ending in
``_INLINE``: ``FMT_INLINE``, ``FORCE_INLINE``; not ``_NOINLINE``) and Rust's
``#[inline]`` attributes. C++'s plain ``inline`` keyword is none of them: it
decides linkage (a header's function without it breaks the link), so a patch
that adds it fixes a build. Each hunk must hold the same code once the hints
are set aside (and what a formatter changes, :func:`~.layout.bare_code`); at
least one hunk must add, drop or swap one.
"""

from __future__ import annotations

import re

from repodaily.analyzers.heuristic.layout import bare_code, changed_lines, only_set_aside
from repodaily.models import ContextFile

__all__ = ["inlining_only"]

_CODE = (".h", ".hh", ".hpp", ".hxx", ".inl", ".ipp", ".c", ".cc", ".cpp", ".cxx", ".cu", ".cuh", ".rs")
_HINT = re.compile(
    r"\b__forceinline\b|\b__always_inline\b|__attribute__\s*\(\(\s*(__)?always_inline(__)?\s*\)\)"
    r"|\[\[\s*(gnu|clang|msvc)::(always_inline|forceinline)\s*\]\]|\b[A-Z][A-Z0-9_]*(?<!_NO)_INLINE\b"
    r"|#\[inline(\((always|never)\))?\]"
)


def inlining_only(file: ContextFile) -> bool:
    """Every hunk of a C, C++, CUDA or Rust file's whole patch holds the same code once inlining hints are set aside."""
    if not file.path.lower().endswith(_CODE):
        return False
    return only_set_aside(file, _same_but_hints)


def _same_but_hints(hunk: str) -> bool | None:
    """Whether the hunk adds, drops or swaps hints and nothing else (None: it changes code; False: nothing)."""
    removed, added = changed_lines(hunk)
    if _erased(removed) != _erased(added):
        return None
    return bare_code(removed) != bare_code(added)


def _erased(lines: list[str]) -> str:
    """The lines' code with every inlining hint erased and what a formatter changes set aside."""
    return bare_code([_HINT.sub("", "\n".join(lines))])
