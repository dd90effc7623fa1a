"""Make untrusted text safe to place inside our Markdown.

Commit messages and analyzer output are data. Whatever they contain, they must
not open a heading, a list, a quote, a table, a code block, a link or raw HTML
in the report, nor end the construct our template put them in. Each function
here turns text into one line of inline Markdown that a CommonMark/GFM renderer
(GitHub, markdown-it) shows as the text itself. Code spans (`` `x` ``) are
kept, because commit subjects and analyses use them to name identifiers.

- :func:`plain` — commit text (subjects, author names, paths in prose): shown
  literally, code spans kept.
- :func:`inline` — analyzer text: like ``plain`` but emphasis (``*``, ``_``,
  ``~``) is left to the writer.
- :func:`code` — any text as one code span.
- :func:`cell` — the commit table contract: the reference tool's bytes, with
  only ``|``, HTML-opening ``<``/``>`` and row-ending line breaks neutralised.
- :func:`plain_text` — what a renderer displays for :func:`plain` output, so
  heading anchors can be computed without rendering.

Code spans are found with CommonMark's rule (a backtick run closes at the next
run of the same length); a backtick with no partner is escaped, so text never
pairs with a backtick of the surrounding template.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from urllib.parse import quote

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_BACKTICK_RUN = re.compile(r"`+")
# What would begin a block if it opened a line (after the escapes, so "<", ">",
# "|" and "`" are already harmless): ATX heading, setext underline, bullet,
# thematic break, tilde fence, ordered-list marker (the digits are matched).
_BLOCK_START = re.compile(r"^(?:#|=|[-+*](?=[ \t]|$)|[-*_](?:[ \t]*[-*_]){2,}[ \t]*$|~~~|\d{1,9}(?=[.)](?:[ \t]|$)))")
_INLINE_ESCAPES = {
    "\\": "\\\\",
    "`": "\\`",
    "[": "\\[",
    "]": "\\]",
    "|": "\\|",
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
}
_PLAIN_ESCAPES = {**_INLINE_ESCAPES, "*": "\\*", "_": "\\_", "~": "\\~"}
_HTML_ESCAPES = {"<": "&lt;", ">": "&gt;"}
_CELL_SEPARATOR = "<br>"
_URL_SAFE = "!#$%&'*+,/:;=?@[]~"


def _code_spans(text: str, *, backslash_escapes: bool) -> list[tuple[int, int]]:
    """(start, end) of each code span, backticks included, as CommonMark pairs them.

    ``backslash_escapes`` says whether a backslash outside a span escapes the
    next character, which is true for text passed through unchanged (the table)
    and false for text whose backslashes we escape ourselves.
    """
    spans: list[tuple[int, int]] = []
    position = 0
    while position < len(text):
        char = text[position]
        if backslash_escapes and char == "\\":
            position += 2
            continue
        if char != "`":
            position += 1
            continue
        opener = _BACKTICK_RUN.match(text, position)
        assert opener is not None
        width = opener.end() - opener.start()
        closer = next((run for run in _BACKTICK_RUN.finditer(text, opener.end()) if len(run.group()) == width), None)
        if closer is None:
            position = opener.end()
        else:
            spans.append((opener.start(), closer.end()))
            position = closer.end()
    return spans


def _segments(text: str) -> list[tuple[str, bool]]:
    """Split text into (piece, is_code_span) pairs, backslashes taken literally."""
    pieces: list[tuple[str, bool]] = []
    position = 0
    for start, end in _code_spans(text, backslash_escapes=False):
        if start > position:
            pieces.append((text[position:start], False))
        pieces.append((text[start:end], True))
        position = end
    if position < len(text):
        pieces.append((text[position:], False))
    return pieces


def _one_line(text: str) -> str:
    return _LINE_BREAK.sub(" ", text).strip()


def _escape(text: str, escapes: dict[str, str]) -> str:
    escaped = "".join(
        piece if is_code else "".join(escapes.get(char, char) for char in piece)
        for piece, is_code in _segments(_one_line(text))
    )
    if escaped.endswith("#"):  # a heading would take a final "#" run as its closing sequence
        escaped = escaped[:-1] + "\\#"
    marker = _BLOCK_START.match(escaped)
    if marker:
        cut = marker.end() if marker.group().isdigit() else 0
        escaped = escaped[:cut] + "\\" + escaped[cut:]
    return escaped


def plain(text: str) -> str:
    """Commit text as one line of Markdown that displays exactly that text (code spans kept)."""
    return _escape(text, _PLAIN_ESCAPES)


def inline(text: str) -> str:
    """Analyzer text as one line of inline Markdown: no blocks, links or HTML; emphasis allowed."""
    return _escape(text, _INLINE_ESCAPES)


def plain_text(text: str) -> str:
    """The text a Markdown renderer shows for ``plain(text)``: code span delimiters removed."""
    shown: list[str] = []
    for piece, is_code in _segments(_one_line(text)):
        if is_code:
            width = len(piece) - len(piece.lstrip("`"))
            piece = piece[width:-width]
            if piece.startswith(" ") and piece.endswith(" ") and piece.strip(" "):
                piece = piece[1:-1]
        shown.append(piece)
    return "".join(shown)


def code(text: str) -> str:
    """Any text as a single code span, fenced with more backticks than it contains."""
    content = _LINE_BREAK.sub(" ", text)
    longest = max((len(run) for run in _BACKTICK_RUN.findall(content)), default=0)
    fence = "`" * (longest + 1)
    padded = content.startswith("`") or content.endswith("`") or (content.startswith(" ") and content.endswith(" "))
    return f"{fence} {content} {fence}" if padded else f"{fence}{content}{fence}"


def cell(value: str | Iterable[str]) -> str:
    """A commit-table cell: lines joined with ``<br>``, ``|`` escaped, nothing else changed.

    Two additions to the reference tool's bytes, both for text that would break
    the table: ``<`` and ``>`` outside code spans become ``&lt;``/``&gt;`` (raw,
    they could open HTML), and a line break inside one value becomes a space
    (it would end the row). Code spans are found on the joined cell, the way
    the renderer will see it.
    """
    lines = [_LINE_BREAK.sub(" ", line) for line in ([value] if isinstance(value, str) else value)]
    joined = _CELL_SEPARATOR.join(line.replace("|", "\\|") for line in lines)
    protected = [False] * len(joined)
    for start, end in _code_spans(joined, backslash_escapes=True):
        protected[start:end] = [True] * (end - start)
    position = 0
    for line in lines[:-1]:  # our own separators stay HTML
        position += len(line) + line.count("|")
        protected[position : position + len(_CELL_SEPARATOR)] = [True] * len(_CELL_SEPARATOR)
        position += len(_CELL_SEPARATOR)
    return "".join(char if protected[index] else _HTML_ESCAPES.get(char, char) for index, char in enumerate(joined))


def url(address: str) -> str:
    """A link destination that cannot end the ``(...)`` around it: spaces, parentheses, ``<>`` encoded."""
    return quote(address, safe=_URL_SAFE)
