"""Cut a Markdown report into parts that each fit one GitHub issue body or comment, its links still working.

GitHub takes at most 65,536 characters in an issue body and in each comment.
A longer report is cut at its sections: before a heading, together with the
explicit anchors (``<a id="…"></a>``) on the lines right above it. Sections are
packed in order, as many as fit in each part. A heading never stands inside a
code fence or a table, so no cut falls in one, and each part is Markdown on its
own. Only a section longer than a whole part (the commit table of a day with a
thousand commits) is cut between its lines instead: a table between its rows,
its header repeated at the top of the next part; a code fence never. A line
that fits in no part even alone (a commit whose message is a megabyte, in a
table row or a heading) is cut short with an ellipsis, where it tears no
escape, entity or tag: one commit's text must not keep a day from its issue.

The report links to its own anchors: the table of contents to commit sections
and group headings, the day's links to commits. A link whose target lands in
another part is pointed at that part: :meth:`Part.resolve` takes each part's
address (an issue comment's ``#issuecomment-<id>`` is known only once the
comment exists, so the caller fills addresses in as it learns them). A link to
a heading in the same comment gets the slug GitHub gives the heading there,
since a comment's headings are numbered apart from the rest. When parts are
packed, every such link is measured at the longest address it can get
(``href_room``), so pointing it elsewhere never pushes a part over the limit.

Only our own syntax counts. Code spans are skipped and backslash escapes
respected, so text the renderer made inert (a commit subject that spells
``](#c-abcdef0)`` or ``<a id=…>`` inside a code span) is never taken for a link
or an anchor.
"""

from __future__ import annotations

import functools
import html
import re
import string
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from itertools import pairwise
from urllib.parse import unquote

from repodaily.render.anchors import github_slug

__all__ = ["Part", "split_markdown"]

_LINE = re.compile(r"[^\n]*\n|[^\n]+\Z")
_FENCE_OPEN = re.compile(r" {0,3}(`{3,}|~{3,})(.*)")
_FENCE_CLOSE = re.compile(r" {0,3}(`{3,}|~{3,})[ \t]*")
_HEADING = re.compile(r" {0,3}#{1,6}(?=[ \t]|$)")
# Blanks are taken whole (`(?<![ \t])`, `*+`): tried inside a long run of blanks, or given back one at a
# time, a line of them would cost time quadratic in its length.
_CLOSING_HASHES = re.compile(r"(?:^|(?<![ \t])[ \t]+)#+[ \t]*$")
_TABLE_DELIMITER = re.compile(r" {0,3}\|?[ \t]*+:?-+:?[ \t]*+(?:\|[ \t]*+:?-+:?[ \t]*+)*\|?[ \t]*")
_ANCHOR_LINE = re.compile(r' {0,3}<a\s+(?:id|name)="[^"]+"[^>]*>[ \t]*</a>[ \t]*')
_ANCHOR = re.compile(r'<a\s+(?:id|name)="([^"]+)"[^>]*>')
_DESTINATION = re.compile(r"\]\((#[^()\s]*)\)")
_SPECIAL = re.compile(r"[\\`\]<]")
_BACKTICKS = re.compile(r"`+")
_ESCAPABLE = frozenset(string.punctuation)
# What a line cut short must not end in: backslashes (the last would escape the ellipsis), the start
# of an entity (HTML reads "&lt" without its ";") or of a tag. Backslashes are counted from where their run
# starts: tried inside a long run, the search would cost time quadratic in its length.
_TORN = re.compile(r"(?:(?<!\\)\\+|&[#\w]{0,12}|<[^<>]{0,80})\Z")


@functools.cache
def _closing_run(width: int) -> re.Pattern[str]:
    """A backtick run of exactly ``width``: what closes a code span opened by one."""
    return re.compile(rf"(?<!`)`{{{width}}}(?!`)")


@dataclass
class _Line:
    """One line of the report as the splitter reads it."""

    text: str
    #: Inside a code fence, or one of its fence lines: no heading, link or anchor is read here.
    fenced: bool = False
    #: For a fence's opening line, the index of its closing line (the last line if none closes it).
    fence_end: int | None = None
    heading: bool = False
    #: What a viewer sees of the heading's text, from which GitHub derives its slug.
    shown: str = ""
    #: Each link to an anchor of this document: where its ``#target`` is in the line, and the target.
    links: list[tuple[int, int, str]] = field(default_factory=list)
    anchors: list[str] = field(default_factory=list)
    anchor_only: bool = False


def _inline(text: str) -> tuple[list[tuple[int, int, str]], list[str], str]:
    """The fragment links and explicit anchors of one line outside its code spans, and the text it shows."""
    links: list[tuple[int, int, str]] = []
    anchors: list[str] = []
    shown: list[str] = []
    position = 0
    while match := _SPECIAL.search(text, position):
        index = match.start()
        shown.append(text[position:index])
        char = text[index]
        if char == "\\":
            escaped = text[index + 1 : index + 2]
            shown.append(escaped if escaped in _ESCAPABLE else "\\")
            position = index + (2 if escaped in _ESCAPABLE else 1)
        elif char == "`":
            width = len(_BACKTICKS.match(text, index).group())  # type: ignore[union-attr]  # a backtick is here
            closing = _closing_run(width).search(text, index + width)
            if closing is None:
                shown.append("`" * width)
                position = index + width
            else:
                content = text[index + width : closing.start()]
                if content.startswith(" ") and content.endswith(" ") and content.strip(" "):
                    content = content[1:-1]
                shown.append(content)
                position = closing.end()
        elif char == "]" and (link := _DESTINATION.match(text, index)):
            links.append((link.start(1), link.end(1), unquote(link.group(1)[1:])))
            shown.append("]")
            position = link.end()
        elif char == "<" and (anchor := _ANCHOR.match(text, index)):
            anchors.append(anchor.group(1))
            position = anchor.end()
        else:
            shown.append(char)
            position = index + 1
    shown.append(text[position:])
    return links, anchors, html.unescape("".join(shown))


def _cut(line: str, longest: int) -> str:
    """``line`` cut to at most ``longest`` characters, an ellipsis last, at no escape, entity or tag it would tear."""
    kept = line[: max(longest - 2, 0)]  # room for the ellipsis and the line's end
    if torn := _TORN.search(kept):
        kept = kept[: torn.start()]
    return kept + "…" + ("\n" if line.endswith("\n") else "")


def _read_inline(line: _Line) -> None:
    """Find the links, anchors and heading of a line outside a fence."""
    body = line.text.rstrip("\n")
    line.links, line.anchors, _ = _inline(body)
    line.anchor_only = bool(line.anchors) and bool(_ANCHOR_LINE.fullmatch(body))
    if heading := _HEADING.match(body):
        line.heading = True
        line.shown = _inline(_CLOSING_HASHES.sub("", body[heading.end() :]).strip())[2]


def _read(text: str) -> list[_Line]:
    """Every line of ``text``, its fences, headings, links and anchors found."""
    lines = [_Line(raw) for raw in _LINE.findall(text)]
    opened: tuple[int, str, int] | None = None  # the open fence: its line, character and width
    for index, line in enumerate(lines):
        body = line.text.rstrip("\n")
        if opened is not None:
            line.fenced = True
            start, char, width = opened
            closing = _FENCE_CLOSE.fullmatch(body)
            if closing and closing.group(1)[0] == char and len(closing.group(1)) >= width:
                lines[start].fence_end, opened = index, None
            continue
        fence = _FENCE_OPEN.fullmatch(body)
        if fence and not (fence.group(1)[0] == "`" and "`" in fence.group(2)):
            line.fenced, line.fence_end = True, len(lines) - 1
            opened = (index, fence.group(1)[0], len(fence.group(1)))
            continue
        _read_inline(line)
    return lines


@dataclass(frozen=True)
class Part:
    """One part's Markdown, and where its links into other parts are."""

    text: str
    #: Each link into another part: the span of its ``#target`` in ``text`` and the part it leads to.
    links: tuple[tuple[int, int, int], ...] = ()

    def resolve(self, hrefs: Sequence[str | None]) -> str:
        """The text with each link into part ``k`` pointed at ``hrefs[k]``; one whose href is None is left as is."""
        pieces, cursor = [], 0
        for start, end, home in self.links:
            pieces += [self.text[cursor:start], hrefs[home] or self.text[start:end]]
            cursor = end
        pieces.append(self.text[cursor:])
        return "".join(pieces)


class _Document:
    """A report read for splitting: its lines, the targets its links may name, and their sizes at most."""

    def __init__(self, text: str, href_room: int) -> None:
        self.lines = _read(text)
        self._href_room = href_room
        #: Where each target is defined: an explicit anchor, or a heading by its GitHub slug. The first wins.
        self.targets: dict[str, int] = {}
        #: The slug GitHub gives each heading line in the whole report.
        self.slugs: dict[int, str] = {}
        seen: dict[str, int] = {}
        for index, line in enumerate(self.lines):
            for anchor in line.anchors:
                self.targets.setdefault(anchor, index)
            if line.heading:
                self.slugs[index] = github_slug(line.shown, seen)
                self.targets.setdefault(self.slugs[index], index)
        self.sizes = [self._size(line) for line in self.lines]

    def _size(self, line: _Line) -> int:
        """The line's length once each of its links has the longest href it may get."""
        growth = (
            max(self._href_room - (end - start), 0) for start, end, target in line.links if target in self.targets
        )
        return len(line.text) + sum(growth)

    def _fit(self, lines: list[int], room: int) -> int:
        """Cut the longest line of a piece that fits in no part short, so that it fits in ``room``; its new size.

        A fence is never cut: ValueError.
        """
        index = max(lines, key=lambda i: self.sizes[i])
        need = sum(self.sizes[i] for i in lines)
        line = self.lines[index]
        allowed = len(line.text) - (need - room)
        if line.fenced or allowed < 1:
            raise ValueError(
                f"line {lines[0] + 1} of the report cannot be cut and is longer than a part "
                f"({need:,} characters, {room:,} fit)"
            )
        line.text = _cut(line.text, allowed)
        _read_inline(line)
        self.sizes[index] = self._size(line)
        return sum(self.sizes[i] for i in lines)

    def sections(self) -> list[range]:
        """The report cut before each heading and the anchor lines right above it."""
        starts = [0]
        for index, line in enumerate(self.lines):
            if line.heading:
                start = index
                while start - 1 > starts[-1] and self.lines[start - 1].anchor_only:
                    start -= 1
                if start > starts[-1]:
                    starts.append(start)
        return [range(a, b) for a, b in pairwise([*starts, len(self.lines)]) if b > a]

    def units(self, section: range) -> Iterator[tuple[list[int], list[int]]]:
        """The pieces of a section that are never cut, each with the lines a part starting at it repeats.

        A fence is one piece; anchor lines go with the line after them; a table's
        header and delimiter rows are one piece, and each later row repeats them.
        """
        header: list[int] = []
        index = section.start
        while index < section.stop:
            line = self.lines[index]
            if line.fence_end is not None:
                end = min(line.fence_end, section.stop - 1) + 1
            elif line.anchor_only:
                end = index + 1
                while end < section.stop - 1 and self.lines[end].anchor_only:
                    end += 1
                end = min(end + 1, section.stop)
            elif header and line.text.strip():
                yield [index], header
                index += 1
                continue
            elif index + 1 < section.stop and self._starts_table(index):
                header = [index, index + 1]
                yield header, []
                index += 2
                continue
            else:
                end = index + 1
            header = []
            yield list(range(index, end)), []
            index = end

    def _starts_table(self, index: int) -> bool:
        delimiter = self.lines[index + 1]
        return (
            "|" in self.lines[index].text
            and "|" in delimiter.text
            and not delimiter.fenced
            and bool(_TABLE_DELIMITER.fullmatch(delimiter.text.rstrip("\n")))
        )

    def pack(self, room: int) -> list[list[int]]:
        """The line indexes of each part: whole sections while they fit, a section's units when it alone cannot."""
        parts: list[list[int]] = []
        current: list[int] = []
        used = 0
        for section in self.sections():
            need = sum(self.sizes[i] for i in section)
            if used + need <= room:
                current, used = current + list(section), used + need
                continue
            if current:
                parts.append(current)
                current, used = [], 0
            if need <= room:
                current, used = list(section), need
                continue
            for lines, repeated in self.units(section):
                need = sum(self.sizes[i] for i in lines)
                if used + need > room and current:
                    parts.append(current)
                    current = list(repeated)
                    used = sum(self.sizes[i] for i in repeated)
                if used + need > room:
                    need = self._fit(lines, room - used)
                current, used = current + lines, used + need
        if current:
            parts.append(current)
        return parts

    def parts(self, room: int) -> list[Part]:
        """The parts, each link into another part marked, each link to a renumbered heading rewritten."""
        packed = self.pack(room)
        home: dict[int, int] = {}
        local: dict[int, str] = {}  # the slug of each heading line within its own part
        for number, indexes in enumerate(packed):
            seen: dict[str, int] = {}
            for index in indexes:
                home.setdefault(index, number)
                if index in self.slugs:
                    local[index] = github_slug(self.lines[index].shown, seen)
        return [self._part(number, indexes, home, local) for number, indexes in enumerate(packed)]

    def _part(self, number: int, indexes: list[int], home: dict[int, int], local: dict[int, str]) -> Part:
        pieces: list[str] = []
        moved: list[tuple[int, int, int]] = []
        length = 0
        for index in indexes:
            text, cursor = self.lines[index].text, 0
            for start, end, target in self.lines[index].links:
                where = self.targets.get(target)
                if where is None:
                    continue
                if home[where] != number:
                    replacement, goes = text[start:end], home[where]
                elif self.slugs.get(where) == target and local[where] != target:
                    replacement, goes = f"#{local[where]}", -1
                else:
                    continue
                pieces.append(text[cursor:start])
                length += start - cursor
                if goes >= 0:
                    moved.append((length, length + len(replacement), goes))
                pieces.append(replacement)
                length += len(replacement)
                cursor = end
            pieces.append(text[cursor:])
            length += len(text) - cursor
        return Part("".join(pieces), tuple(moved))


def split_markdown(text: str, *, room: int, href_room: int) -> list[Part]:
    """``text`` in parts of at most ``room`` characters once every link into another part has an href of at
    most ``href_room`` characters; one part when it fits whole. ValueError when a piece that is never cut is
    longer than a part."""
    return _Document(text, href_room).parts(room) or [Part("")]
