"""Whether a code file's patch only re-lays out its code, as a formatter does (black, rustfmt, gofmt, prettier).

Such a patch changes nothing the code does: its removed and added lines hold the
same text once whitespace and line breaks, a trailing comma before a closing
bracket, the quote a string is written with and the bar a TypeScript union may
open with are set aside, in the same order:
a statement moved past others (an assignment put after the check that reads it)
changes what runs first, which no formatter does. Indentation is
kept where it carries meaning: each hunk's removed and added lines must start at
the same depth, so a statement moved out of a block (a fix, in Python) is no
layout change. In a language whose blocks are written with braces (JavaScript,
TypeScript, Java, C, Go, Rust) indentation means nothing: a linter re-indenting
the arguments of a call (prettier, eslint's indent rule) is layout, and a
statement only leaves a block by moving past its brace, which the order check sees.
Read hunk by hunk, so a patch that changes code stops at its first such hunk.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from repodaily.models import ContextFile, Coverage, FileStatus

__all__ = [
    "bare_code",
    "changed_lines",
    "hunk_blocks",
    "indent_matters",
    "laid_out_alike",
    "layout_only",
    "marked_sides",
    "only_set_aside",
    "whole_hunks",
]

_HUNK_HEADER = re.compile(r"^@@[^\n]*$", re.M)
_SPACE = re.compile(r"\s+")
#: A comma right before a closing bracket: the "magic trailing comma" formatters add or drop.
_TRAILING_COMMA = re.compile(r",(?=[)\]}])")
#: The bar a TypeScript union type may open with (`type A =\n  | B\n  | C`), at the start of the text or after
#: what a type follows (`:`, `=`, `(`, `<`, `,`): prettier writes it when a union breaks over lines, and drops
#: it when the union fits on one.
_LEADING_BAR = re.compile(r"(?:^|(?<=[:=(<,]))\|(?!\|)")
_TAB = 4
#: Files of languages whose blocks are written with braces, where indentation is layout only.
_BRACED: tuple[str, ...] = (".js", ".mjs", ".cjs", ".jsx", ".ts", ".mts", ".cts", ".tsx", ".java", ".kt", ".groovy")
_BRACED += (".c", ".h", ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".cs", ".go", ".rs", ".swift", ".php", ".dart")


def layout_only(file: ContextFile) -> bool:
    """Every hunk of the file's whole patch holds the same code before and after, laid out anew."""
    read = False
    indented = indent_matters(file)
    for hunk in whole_hunks(file):
        if not _same_code(hunk, indented):
            return False
        read = True
    return read


def indent_matters(file: ContextFile) -> bool:
    """Whether the file's language writes its blocks with indentation, not braces."""
    return not file.path.endswith(_BRACED)


def whole_hunks(file: ContextFile) -> list[str]:
    """The hunks of a modified text file whose whole patch was read; none for any other file."""
    if file.status != FileStatus.modified or file.binary or file.coverage != Coverage.full:
        return []
    return [block for _, block in hunk_blocks(file.text, _HUNK_HEADER)]


def hunk_blocks(patch: str, header: re.Pattern[str]) -> list[tuple[re.Match[str], str]]:
    """Each hunk header of ``patch`` as ``header`` (anchored at ``^@@``) matches it, and the text up to the next.

    The header lines are found by looking for the line break before each: the
    pattern alone, anchored at line starts, is tried at every character of the
    patch, which costs more than all that is done with the hunks of most files.
    """
    starts = [0] if patch.startswith("@@") else []
    index = patch.find("\n@@")
    while index >= 0:
        starts.append(index + 1)
        index = patch.find("\n@@", index + 1)
    headers = [found for start in starts if (found := header.match(patch, start))]
    ends = [found.start() for found in headers[1:]] + [len(patch)] if headers else []
    return [(found, patch[found.end() : end]) for found, end in zip(headers, ends, strict=True)]


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


def _same_code(hunk: str, indented: bool) -> bool:
    """The hunk holds the same code before and after; at the same depth too where ``indented`` (it carries meaning)."""
    removed, added = changed_lines(hunk)
    if not laid_out_alike(removed, added, indented, bare=_bare_lines):
        return False
    # The same lines may still have moved past the code between them: the hunk must read alike in order.
    before, after = _sides(hunk)
    return bare_code(before) == bare_code(after)


def laid_out_alike(
    removed: list[str], added: list[str], indented: bool, bare: Callable[[list[str]], str] | None = None
) -> bool:
    """The lines hold the same code, at the same depth too where ``indented`` (it carries meaning), as
    ``bare`` reads them (default :func:`bare_code`)."""
    read = bare or bare_code
    return not (indented and _depth(removed) != _depth(added)) and read(removed) == read(added)


def _bare_lines(lines: list[str]) -> str:
    """Changed lines as :func:`bare_code` reads them, less a comma ending a line.

    The comma a formatter adds after a call's last argument stands before a bracket
    the hunk often leaves unchanged (``**kwargs`` becomes ``**kwargs,`` above a
    context line's ``)``); the changed lines alone cannot show it is a trailing one,
    so the hunk read in order, its context included, decides.
    """
    return bare_code([line.rstrip().removesuffix(",") for line in lines])


def _sides(hunk: str) -> tuple[list[str], list[str]]:
    """A hunk's lines before and after the change, in order: its context with the removed, or with the added."""
    before, after = marked_sides(hunk)
    return [text for _, text in before], [text for _, text in after]


def marked_sides(hunk: str) -> tuple[list[tuple[bool, str]], list[tuple[bool, str]]]:
    """A hunk's sides as :func:`_sides` gives them, each line with whether the change touched it."""
    before: list[tuple[bool, str]] = []
    after: list[tuple[bool, str]] = []
    for line in hunk.split("\n"):
        sign, text = line[:1], line[1:]
        if sign in ("-", " "):
            before.append((sign == "-", text))
        if sign in ("+", " "):
            after.append((sign == "+", text))
    return before, after


def _depth(lines: list[str]) -> int | None:
    """How far the shallowest non-blank line is indented; None when every line is blank."""
    depths = [len(line.expandtabs(_TAB)) - len(line.expandtabs(_TAB).lstrip()) for line in lines if line.strip()]
    return min(depths) if depths else None


def bare_code(lines: list[str]) -> str:
    """Lines as one text without what a formatter changes: whitespace, trailing commas, quote style, a union
    type's leading bar."""
    text = _SPACE.sub("", "".join(lines))
    text = _LEADING_BAR.sub("", text) if "|" in text else text
    return _TRAILING_COMMA.sub("", text).replace("'", '"')
