"""A patch as the text before and after it, hunk by hunk, so extractors read whole statements.

An extractor reads one side of one hunk: the context lines with the removed lines
(before) or with the added lines (after). A call spanning several lines is whole
on each side as far as the hunk shows it, and what the context holds appears on
both sides, so only what a commit changes differs between them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repodaily.analyzers.heuristic.layout import hunk_blocks

__all__ = ["Side", "balanced", "hunks", "sides"]

_OPEN, _CLOSE = "([{", ")]}"
# A hunk header, and the line git names after it (the enclosing definition), captured when there is one.
_HUNK_HEADER = re.compile(r"^@@[^\n]*?(?:@@ ?(.*))?$\n?", re.M)
# What each side holds by a line's first character: the context (a space, or nothing) and its own lines.
_BEFORE, _AFTER = ("-", " ", ""), ("+", " ", "")
#: How far a call's arguments are read; a longer span is not one call a reader would recognise.
_MAX_SPAN = 2000


@dataclass(frozen=True)
class Side:
    """One side of one hunk: ``before`` or after, its text, the file it belongs to, and its hunk's header.

    The header is the line git names after ``@@`` (the definition the hunk sits
    in: a Java member's class), or ''.
    """

    path: str
    hunk: int
    before: bool
    text: str
    header: str = ""


def hunks(patch: str) -> list[tuple[str, list[str]]]:
    """Each hunk of ``patch``: the line its header names (the definition it sits in, or ''), and its lines."""
    return [(header.group(1) or "", block.splitlines()) for header, block in hunk_blocks(patch, _HUNK_HEADER)]


def sides(path: str, patch: str) -> list[Side]:
    """Both sides of every hunk of ``patch``."""
    found: list[Side] = []
    for header, lines in hunks(patch):
        old = [line[1:] for line in lines if line[:1] in _BEFORE]
        new = [line[1:] for line in lines if line[:1] in _AFTER]
        if old or new:
            hunk = len(found) // 2
            found.extend(
                (Side(path, hunk, True, "\n".join(old), header), Side(path, hunk, False, "\n".join(new), header))
            )
    return found


def balanced(text: str, start: int, *, stop_at_comma: bool = False) -> str:
    """The text from ``start`` to the bracket that closes the one before it (or a comma at depth 0).

    Quoted strings are skipped, so a parenthesis in a help text does not end a call.
    """
    depth, quote, index = 0, "", start
    end = min(len(text), start + _MAX_SPAN)
    while index < end:
        char = text[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "\"'":
            quote = char
        elif char in _OPEN:
            depth += 1
        elif char in _CLOSE:
            depth -= 1
            if depth < 0:
                break
        elif char == "," and depth == 0 and stop_at_comma:
            break
        index += 1
    return text[start:index]
