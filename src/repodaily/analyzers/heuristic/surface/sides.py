"""A patch as the text before and after it, hunk by hunk, so extractors read whole statements.

An extractor reads one side of one hunk: the context lines with the removed lines
(before) or with the added lines (after). A call spanning several lines is whole
on each side as far as the hunk shows it, and what the context holds appears on
both sides, so only what a commit changes differs between them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["Side", "balanced", "sides"]

_OPEN, _CLOSE = "([{", ")]}"
#: How far a call's arguments are read; a longer span is not one call a reader would recognise.
_MAX_SPAN = 2000


@dataclass(frozen=True)
class Side:
    """One side of one hunk: ``before`` or after, its text, and the file it belongs to."""

    path: str
    hunk: int
    before: bool
    text: str


def sides(path: str, patch: str) -> list[Side]:
    """Both sides of every hunk of ``patch``."""
    found: list[Side] = []
    old: list[str] = []
    new: list[str] = []

    def close() -> None:
        if old or new:
            hunk = len(found) // 2
            found.extend((Side(path, hunk, True, "\n".join(old)), Side(path, hunk, False, "\n".join(new))))
            old.clear()
            new.clear()

    for line in patch.splitlines():
        if line.startswith("@@"):
            close()
        elif line.startswith("-"):
            old.append(line[1:])
        elif line.startswith("+"):
            new.append(line[1:])
        elif line.startswith(" ") or not line:
            old.append(line[1:])
            new.append(line[1:])
    close()
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
