"""Make untrusted text inert inside our Markdown.

Commit messages, author names, file names and analyzer (model) output are data.
Whatever they contain, a CommonMark/GFM renderer — GitHub, markdown-it, mail
clients, even one that lets raw HTML through — must show them as text and code
spans: no heading, list, quote, table or code block, no HTML element, no link,
no image, and nothing that ends the construct our template put them in. The
only links in a report are the ones the templates write.

- :func:`plain` — commit text (subjects, author names, paths in prose): shown
  literally, code spans kept (but one holding ``]:``, see :func:`_prose_units`).
- :func:`inline` — analyzer text: like ``plain`` but emphasis (``*``, ``_``,
  ``~``) is left to the writer.
- :func:`code` — any text as one code span.
- :func:`cell` — the commit table contract: the reference tool's bytes, with
  only what could open HTML, a link, an image or an autolink, end the row or
  the cell, or pair a backtick across our ``<br>`` respelt.
- :func:`plain_text` — what a renderer displays for :func:`plain` output, so
  heading anchors can be computed without rendering.
- :func:`shorten` and :func:`shown_lines` — how much of a foreign text one
  place shows: a commit title of 100,000 characters is kept whole in the JSON,
  but every Markdown, HTML and e-mail place that shows it shows its start.

How it works. Text is first read the way a CommonMark parser reads it
(:func:`_units`): code spans, paired as CommonMark pairs backtick runs;
backslash escapes, where the text keeps its own (table cells); and single
characters, each with the character a renderer shows for it. Then each shown
character that could start markup is replaced by an inert spelling of itself
(``\\[``, ``&lt;``, …): always, or only where the characters around it would
make markup (``](`` in a cell, ``//``). A backtick run that pairs with
nothing is escaped like any other character, so afterwards every raw backtick
delimits a code span we found or made: nothing else is left that could
swallow one (a link destination or title, an HTML tag, an autolink), and the
renderer cannot pair backticks differently from us.

Autolinks need more than escapes. cmark-gfm (GitHub) spots ``scheme://``
and ``www.`` in the source, so an escaped ``/`` or ``.`` stops them; but it
finds e-mail addresses in the shown text after parsing, when escapes and
entities are gone, so an ``@`` inside a word becomes a one-character code span,
a node boundary nothing can link across. linkify (markdown-it) reads the text
between escapes, so the same respelling stops it.
"""

from __future__ import annotations

import functools
import re
import string
import unicodedata
from bisect import bisect_left
from collections.abc import Iterable
from typing import NamedTuple
from urllib.parse import quote

from repodaily.controls import controls_except

# Every line boundary str.splitlines() knows, not only CommonMark's: a report
# line must stay one line for any tool that reads it.
_LINE_BREAK = re.compile(r"\r\n|[\n\r\v\f\x1c-\x1e\x85\u2028\u2029]")
# What is left of the controls once the line boundaries above are spaces: all but the tab.
_CONTROL = controls_except("\t")
_BACKTICK_RUN = re.compile(r"`+")
_ASCII_PUNCTUATION = frozenset(string.punctuation)
#: The most of one foreign line a report shows (a table line, an author, a highlight): far above any
#: real one (vLLM's longest message line is 441 characters), far below what a hostile commit can hold.
LINE_CHARS = 1000
#: The most of a commit's title a heading, a table of contents, a feed or the search index shows.
TITLE_CHARS = 300
#: The most lines, and characters, of one commit's message the commit table shows (vLLM's most: 86 and 3,624).
TABLE_LINES = 100
TABLE_CHARS = 8000
_ELLIPSIS = "…"
# What belongs to the character before it: a cut there would leave half a character (an accent, an emoji sequence).
_JOINS_BEFORE = frozenset("\u200d\ufe0e\ufe0f")
_NOT_TEXT = "\0"  # stands for a code span in the shown text; real NULs are replaced first

# The inert spelling of each character that can start markup somewhere.
_INERT = {
    "\\": "\\\\",
    "`": "\\`",
    "[": "\\[",
    "]": "\\]",
    "(": "\\(",
    "|": "\\|",
    "*": "\\*",
    "_": "\\_",
    "~": "\\~",
    "^": "\\^",
    "/": "\\/",
    ".": "\\.",
    "&": "&amp;",
    "<": "&lt;",
    ">": "&gt;",
    "@": "`@`",
}
# Shown-text positions where GFM (cmark-gfm) or linkify would start a link.
_AUTOLINK = (
    r"/(?=/)"  # http://, ftp://, protocol-relative //host
    r"|(?<=(?<![A-Za-z0-9])[Ww]{3})\."  # www.host
    r'|(?<=[A-Za-z0-9.+\-_;:&=$,"])@(?=[^\s' + _NOT_TEXT + r"])"  # user@host, mailto:, xmpp:
)
# In a cell, where most markup is kept, also: the "(" that makes "[x]" a link
# or image; the "^" of "[^x]", which GitHub shows as its source when no
# footnote is defined (a <br> inside it included); an entity reference; and a
# final backslash, which would escape our "<br>".
_CELL_CONTEXT = re.compile(
    _AUTOLINK + r"|(?<=\])\(" + r"|(?<=\[)\^" + r"|&(?=#[0-9]+;|#[xX][0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)" + r"|\\\Z"
)
_PROSE_CONTEXT = re.compile(_AUTOLINK)
# What every match of _AUTOLINK holds: "//", "@", or a "w" before the dot of "www.".
_AUTOLINK_MARKS = ("//", "@", "w.", "W.")
_INLINE_ALWAYS = frozenset("\\`[]^|&<>")  # "^": after a template's "[", a footnote
_PLAIN_ALWAYS = _INLINE_ALWAYS | frozenset("*_~")
_CELL_ALWAYS = frozenset("`<>")

# What would begin a block if it opened a line (after the escapes, so "<", ">",
# "|" and "`" are already harmless): ATX heading, setext underline, bullet,
# thematic break, tilde fence, ordered-list marker (the digits are matched).
_BLOCK_START = re.compile(r"^(?:#|=|[-+*](?=[ \t]|$)|[-*_](?:[ \t]*[-*_]){2,}[ \t]*$|~~~|\d{1,9}(?=[.)](?:[ \t]|$)))")
_CELL_SEPARATOR = "<br>"
_URL_SAFE = "!#$%&'*+,/:;=?@[]~"


class _Unit(NamedTuple):
    """One piece of text as a parser reads it: its source, and the character shown (None for a code span)."""

    source: str
    shown: str | None


class _BacktickRuns:
    """The maximal backtick runs of a text, by width, to find where a code span closes."""

    def __init__(self, text: str) -> None:
        self._text = text
        self._starts: dict[int, list[int]] = {}
        for run in _BACKTICK_RUN.finditer(text):
            self._starts.setdefault(len(run.group()), []).append(run.start())

    def open_at(self, position: int) -> tuple[int, int | None]:
        """Width of the run opening at ``position``, and the end of its code span (None if none closes it).

        CommonMark closes a span at the next run of exactly the same width;
        backslashes inside a span are literal, so every later raw run counts.
        """
        opener = _BACKTICK_RUN.match(self._text, position)
        assert opener is not None
        width = len(opener.group())
        starts = self._starts.get(width, [])
        index = bisect_left(starts, opener.end())
        return width, (starts[index] + width if index < len(starts) else None)


def _units(text: str, *, backslash_escapes: bool) -> list[_Unit]:
    """The text as CommonMark reads it: code spans, backslash escapes, single characters.

    ``backslash_escapes`` says whether a backslash before ASCII punctuation
    escapes it, which is true for text whose own escapes we keep (the table)
    and false for text whose backslashes we escape ourselves.
    """
    runs = _BacktickRuns(text)
    units: list[_Unit] = []
    position = 0
    while position < len(text):
        char = text[position]
        if backslash_escapes and char == "\\" and text[position + 1 : position + 2] in _ASCII_PUNCTUATION:
            units.append(_Unit(text[position : position + 2], text[position + 1]))
            position += 2
        elif char == "`":
            width, end = runs.open_at(position)
            if end is None:
                units += [_Unit("`", "`")] * width
                position += width
            else:
                units.append(_Unit(text[position:end], None))
                position = end
        else:
            units.append(_Unit(char, char))
            position += 1
    return units


def _respell(units: list[_Unit], always: frozenset[str], context: re.Pattern[str]) -> str:
    """The units with every character in ``always``, or where ``context`` matches, in its inert spelling."""
    shown = "".join(_NOT_TEXT if unit.shown is None else unit.shown for unit in units)
    marked = _marked(shown, context)
    return "".join(
        _INERT[char] if char in always or index in marked else unit.source
        for index, (unit, char) in enumerate(zip(units, shown))
    )


def _respell_characters(text: str, always: frozenset[str], context: re.Pattern[str]) -> str:
    """:func:`_respell` for text that reads as one unit per character: the same result, without the units.

    Most text has no backtick and no backslash escape; a report renders thousands
    of such lines, and building a unit per character cost more than the rest of
    rendering.
    """
    marked = _marked(text, context)
    if not marked:
        return text.translate(_inert_table(always))
    return "".join(_INERT[char] if char in always or index in marked else char for index, char in enumerate(text))


def _marked(shown: str, context: re.Pattern[str]) -> set[int]:
    """Where ``context`` matches ``shown``; prose is not scanned when it holds nothing an autolink needs."""
    if context is _PROSE_CONTEXT and not any(mark in shown for mark in _AUTOLINK_MARKS):
        return set()
    return {match.start() for match in context.finditer(shown)}


@functools.cache
def _inert_table(always: frozenset[str]) -> dict[int, str]:
    return {ord(char): _INERT[char] for char in always}


def _escaped(text: str, always: frozenset[str], context: re.Pattern[str], *, backslash_escapes: bool) -> str:
    """``text`` with what could start markup respelt: units read only where a backtick or an escape needs them."""
    if "`" in text or (backslash_escapes and "\\" in text):
        return _respell(_units(text, backslash_escapes=backslash_escapes), always, context)
    return _respell_characters(text, always, context)


def _clean(text: str) -> str:
    """Text with line boundaries as spaces and control characters as U+FFFD.

    CommonMark shows NUL as U+FFFD; the other controls it passes through, and a
    report printed to a terminal would run them (an escape sequence that
    recolours, retitles or hides text, or links it elsewhere), so they go too.
    """
    return _CONTROL.sub("\ufffd", _LINE_BREAK.sub(" ", text))


def shorten(text: str, limit: int = LINE_CHARS) -> str:
    """``text`` cut to at most ``limit`` characters, an ellipsis ending a cut one.

    Cut before escaping, so no escape or entity is split, and never between a
    character and the marks or joiners that complete it. A code span cut in
    two leaves an unpaired backtick, which the escaping then shows as text.
    """
    if len(text) <= limit:
        return text
    end = limit - 1
    while end > 0 and (unicodedata.combining(text[end]) or text[end] in _JOINS_BEFORE or text[end - 1] == "\u200d"):
        end -= 1
    return text[:end].rstrip() + _ELLIPSIS


def shown_lines(lines: Iterable[str]) -> list[str]:
    """The lines of a message a commit table shows: at most :data:`TABLE_LINES` and :data:`TABLE_CHARS`, cut."""
    shown: list[str] = []
    room = TABLE_CHARS
    for number, line in enumerate(lines):
        if number == TABLE_LINES or room <= 0:
            shown.append(_ELLIPSIS)
            break
        shown.append(shorten(line, min(LINE_CHARS, room)))
        room -= len(shown[-1])
    return shown


def _span_content(source: str) -> str:
    """What a code span shows: its content, less one space at each end if both have one and it is not all spaces."""
    width = len(source) - len(source.lstrip("`"))
    content = source[width:-width]
    if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
        content = content[1:-1]
    return content


def _prose_units(text: str) -> list[_Unit]:
    """Units of one line of prose (cleaned, :func:`_clean`); a code span holding ``]:`` becomes text.

    Block parsing does not know code spans: after a template's ``[`` at the
    start of a line (a TOC entry), a ``]:`` inside a span would close that
    bracket and make the line a link reference definition. Shown as escaped
    text, the span's characters cannot.
    """
    units: list[_Unit] = []
    for unit in _units(text, backslash_escapes=False):
        if unit.shown is None and "]:" in unit.source:
            units += [_Unit(char, char) for char in _span_content(unit.source)]
        else:
            units.append(unit)
    # A renderer drops the whitespace that opens or closes a line; so do we, to show the same.
    kept = [index for index, unit in enumerate(units) if unit.shown is None or not unit.shown.isspace()]
    return units[kept[0] : kept[-1] + 1] if kept else []


def _prose(text: str, always: frozenset[str]) -> str:
    cleaned = _clean(text)
    if "`" in cleaned:
        escaped = _respell(_prose_units(cleaned), always, _PROSE_CONTEXT)
    else:  # one unit per character; a renderer drops the whitespace that opens or closes a line
        escaped = _respell_characters(cleaned.strip(), always, _PROSE_CONTEXT)
    if escaped.endswith("#"):  # a heading would take a final "#" run as its closing sequence
        escaped = escaped[:-1] + "\\#"
    marker = _BLOCK_START.match(escaped)
    if marker:
        cut = marker.end() if marker.group().isdigit() else 0
        escaped = escaped[:cut] + "\\" + escaped[cut:]
    return escaped


def plain(text: str) -> str:
    """Commit text as one line of Markdown that displays that text (code spans kept), its first :data:`LINE_CHARS`."""
    return _prose(shorten(text), _PLAIN_ALWAYS)


def inline(text: str) -> str:
    """Analyzer text as one line of inline Markdown: no blocks, links or HTML; emphasis allowed; its first
    :data:`LINE_CHARS` (a path of thousands of characters the analysis names is cut, as commit text is)."""
    return _prose(shorten(text), _INLINE_ALWAYS)


def plain_text(text: str) -> str:
    """The text a Markdown renderer shows for ``plain(text)``: code span delimiters removed."""
    cleaned = _clean(shorten(text))
    if "`" not in cleaned:
        return cleaned.strip()
    return "".join(
        unit.shown if unit.shown is not None else _span_content(unit.source) for unit in _prose_units(cleaned)
    )


def code(text: str) -> str:
    """Any text as a single code span, fenced with more backticks than it contains (empty text: nothing)."""
    content = _clean(text)
    if not content:
        return ""
    longest = max((len(run) for run in _BACKTICK_RUN.findall(content)), default=0)
    fence = "`" * (longest + 1)
    # CommonMark strips one space from each end of a span's content unless it is all spaces.
    padded = (
        content.startswith("`")
        or content.endswith("`")
        or bool(content.startswith(" ") and content.endswith(" ") and content.strip(" "))
    )
    return f"{fence} {content} {fence}" if padded else f"{fence}{content}{fence}"


def cell(value: str | Iterable[str]) -> str:
    """A commit-table cell: lines joined with ``<br>``, each kept as written except what could break out.

    The reference tool wrote the lines raw with ``|`` escaped; ordinary text
    keeps exactly those bytes, its backslash escapes, emphasis and code spans.
    Respelt, and shown the same: ``|`` (it ends the cell); ``<`` and ``>``
    (HTML, autolinks); the ``(`` after ``]`` (an inline link or image); the
    ``^`` after ``[`` (a footnote reference); ``&`` that starts an entity
    reference; autolink triggers; a backtick run that pairs with nothing in
    its line (it would pair across our ``<br>`` or with a respelt ``@``); a
    final backslash (it would escape the ``<`` of ``<br>``). A line break
    inside one value becomes a space (it would end the row).
    """
    lines = shown_lines([value] if isinstance(value, str) else value)
    joined = _CELL_SEPARATOR.join(
        _escaped(_clean(line), _CELL_ALWAYS, _CELL_CONTEXT, backslash_escapes=True) for line in lines
    )
    # GFM splits a row on every unescaped "|", inside code spans too, and drops
    # the backslash of "\|" before it parses the cell, so this comes last.
    return joined.replace("|", "\\|")


def url(address: str) -> str:
    """A link destination that cannot end the ``(...)`` around it: spaces, parentheses, ``<>`` encoded."""
    return quote(address, safe=_URL_SAFE)
