"""Whether a TypeScript file's patch only adds or drops type assertions (``x as T``, ``x satisfies T``).

An assertion tells the compiler what a value is and is erased from the JavaScript
it emits: code that only gains or loses assertions (to satisfy a stricter library
definition, another runtime's type declarations, a newer compiler) runs as it
did, RUBRIC.md's type annotations, low. Each hunk must hold the same code before
and after once the assertions are set aside, with what a formatter changes
(:func:`~.layout.bare_code`) and the parentheses an assertion needs around its
operand (at most one pair for each assertion added or dropped); at least one
hunk must add or drop an assertion, or the patch is only laid out anew
(:mod:`.layout`).
"""

from __future__ import annotations

import re

from repodaily.analyzers.heuristic.layout import bare_code, changed_lines, only_set_aside
from repodaily.models import ContextFile

__all__ = ["assertions_only"]

_TYPESCRIPT = (".ts", ".tsx", ".mts", ".cts")
#: A declaration file is nothing but types: its changes are the types users compile against, not assertions.
_DECLARATIONS = (".d.ts", ".d.mts", ".d.cts")
#: One type as an assertion names it: a (qualified) name with type arguments and array brackets.
_TYPE = r"[A-Za-z_$][\w$.]*(?:<[^;(){}=]*?>)?(?:\[\])*"
#: ``as const``, ``as T``, ``as A | B``, ``satisfies T`` after the value they assert.
_ASSERTION = re.compile(rf"\s(?:as|satisfies)\s+(?:const\b|{_TYPE}(?:\s*\|\s*{_TYPE})*)")


def assertions_only(file: ContextFile) -> bool:
    """Every hunk of a TypeScript file's whole patch holds the same code once type assertions are set aside."""
    path = file.path.lower()
    if not path.endswith(_TYPESCRIPT) or path.endswith(_DECLARATIONS):
        return False
    return only_set_aside(file, _same_but_assertions)


def _same_but_assertions(hunk: str) -> bool | None:
    """Whether the hunk adds or drops assertions and nothing else; False: it changes nothing; None: it changes code."""
    removed, added = changed_lines(hunk)
    (before, had), (after, has) = _erased(removed), _erased(added)
    if had == has:
        return False if before == after else None
    if before == after:
        return True
    # An assertion inside an expression needs parentheses around its operand: `(encode(s) as Bytes).length`.
    # Counted on the side with more assertions: the pairs added with them, or dropped with them.
    more, fewer = (after, before) if has > had else (before, after)
    pairs = more.count("(") - fewer.count("(")
    balanced = pairs == more.count(")") - fewer.count(")") and 0 <= pairs <= abs(has - had)
    return True if balanced and _unwrapped(more) == _unwrapped(fewer) else None


def _unwrapped(code: str) -> str:
    return code.replace("(", "").replace(")", "")


def _erased(lines: list[str]) -> tuple[str, int]:
    """The lines' code with every type assertion erased, and how many were."""
    text, count = "\n".join(lines), 0
    while True:  # `x as unknown as T` erases one assertion a pass
        text, found = _ASSERTION.subn("", text)
        if not found:
            return bare_code([text]), count
        count += found
