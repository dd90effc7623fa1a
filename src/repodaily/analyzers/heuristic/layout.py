"""Whether a code file's patch only re-lays out its code, as a formatter does (black, rustfmt, gofmt, prettier).

Such a patch changes nothing the code does: its removed and added lines hold the
same text once whitespace and line breaks, a trailing comma before a closing
bracket and the quote a string is written with are set aside. Indentation is
kept where it carries meaning: each hunk's removed and added lines must start at
the same depth, so a statement moved out of a block (a fix, in Python) is no
layout change. Read hunk by hunk, so a patch that changes code stops at its
first such hunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator

from repodaily.models import ContextFile, Coverage, FileStatus

__all__ = ["bare_code", "changed_lines", "layout_only", "only_set_aside", "whole_hunks"]

_HUNK_HEADER = re.compile(r"^@@[^\n]*$", re.M)
_SPACE = re.compile(r"\s+")
#: A comma right before a closing bracket: the "magic trailing comma" formatters add or drop.
_TRAILING_COMMA = re.compile(r",(?=[)\]}])")
_TAB = 4


def layout_only(file: ContextFile) -> bool:
    """Every hunk of the file's whole patch holds the same code before and after, laid out anew."""
    read = False
    for hunk in whole_hunks(file):
        if not _same_code(hunk):
            return False
        read = True
    return read


def whole_hunks(file: ContextFile) -> Iterator[str]:
    """The hunks of a modified text file whose whole patch was read; none for any other file.

    Each is cut from the patch when it is asked for: most patches change code in
    their first hunk, and the readers stop there.
    """
    if file.status != FileStatus.modified or file.binary or file.coverage != Coverage.full:
        return
    text = file.text
    headers = _HUNK_HEADER.finditer(text)
    header = next(headers, None)
    while header is not None:
        following = next(headers, None)
        yield text[header.end() : following.start() if following is not None else len(text)]
        header = following


def only_set_aside(file: ContextFile, verdict: Callable[[str], bool | None]) -> bool:
    """Every hunk of the file's whole patch changes only what ``verdict`` sets aside, and one changes that.

    ``verdict`` reads a hunk: True when it changes what it sets aside and nothing
    else, False when it changes nothing at all, None when it changes code.
    """
    changed = False
    for hunk in whole_hunks(file):
        found = verdict(hunk)
        if found is None:
            return False
        changed = changed or found
    return changed


def changed_lines(hunk: str) -> tuple[list[str], list[str]]:
    """A hunk's removed and added lines, without their signs."""
    removed: list[str] = []
    added: list[str] = []
    for line in hunk.split("\n"):
        sign = line[:1]
        if sign == "-":
            removed.append(line[1:])
        elif sign == "+":
            added.append(line[1:])
    return removed, added


def _same_code(hunk: str) -> bool:
    removed, added = changed_lines(hunk)
    return _depth(removed) == _depth(added) and bare_code(removed) == bare_code(added)


def _depth(lines: list[str]) -> int | None:
    """How far the shallowest non-blank line is indented; None when every line is blank."""
    depths = [len(line.expandtabs(_TAB)) - len(line.expandtabs(_TAB).lstrip()) for line in lines if line.strip()]
    return min(depths) if depths else None


def bare_code(lines: list[str]) -> str:
    """Lines as one text without what a formatter changes: whitespace, trailing commas, quote style."""
    text = _SPACE.sub("", "".join(lines))
    return _TRAILING_COMMA.sub("", text).replace("'", '"')
