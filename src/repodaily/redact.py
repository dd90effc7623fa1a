r"""Keeping credentials out of everything repodaily writes: logs, reports, the store, ``doctor``.

A key leaves the process in an ``Authorization`` header, and it can come back. A
server may echo it in an error body — raw, JSON-escaped (``\/``, ``\"``,
``\u002f``), percent-encoded (inside an echoed URL), HTML-escaped, base64-encoded
(an echoed ``Basic`` header), or cut short — and a model can be talked into
repeating it inside a perfectly valid answer, which then travels on as analysis
text. Blanking one exact string in one error body misses all of that, so a
:class:`Redactor` is applied where text leaves the process (the stderr log
handler, the report writer, the store, ``doctor``'s table), and it matches what a
secret can turn into:

- the secret raw, and with any of its characters escaped — JSON and backslash
  escapes (``\/``, ``\"``, ``\\``, ``\uXXXX``, any number of backslashes deep),
  percent-encoding (either case of hex, ``%25`` double encoding, ``+`` for a
  space) and HTML character references (``&#47;``, ``&#x2F;``, ``&sol;``), in any
  mix, since encoders differ in what they leave alone;
- its base64 at each of the three byte alignments, standard and URL-safe, so it
  is also found inside the base64 of ``user:secret`` (HTTP Basic) or ``Bearer secret``;
- its bytes in hex, either case (a debug dump);
- any piece of these that holds :data:`FRAGMENT_CHARS` characters of the secret
  (twice as many hex digits), which covers truncated echoes and a character
  missing or changed;
- in any letter case;
- cut into pieces of any length with white space, line breaks (raw, JSON's ``\n``,
  HTML's ``<br>``) or zero-width characters between them, as a model asked to
  write it a few characters a line would.

Values shorter than :data:`MIN_SECRET_CHARS` are not registered: at that length
they are words, and masking them would mangle ordinary text. A secret shorter
than a fragment is masked only whole.

The patterns are compiled once per set of secrets, and a call costs a few regex
scans however many secrets and forms there are (a tenth of a second or two for a
megabyte). One finds the escapes that stand for a character some secret
contains (or a backslash) and decodes them into a *view* of the text that
remembers where each of its characters came from; a view with escapes left (an
escape escaped again) is decoded once more, and a last view leaves out the
separators between pieces. The text and each view are searched
for short anchors, chosen so that every fragment of every form holds one. Each
hit is extended character by character along its form and, when long enough,
the characters of the original text it came from are replaced by :data:`MASK`.
"""

from __future__ import annotations

import base64
import functools
import html
import logging
import re
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from html.entities import html5

from repodaily.controls import controls_except

__all__ = [
    "FRAGMENT_CHARS",
    "MASK",
    "MIN_SECRET_CHARS",
    "NO_SECRETS",
    "RedactingFormatter",
    "Redactor",
    "single_line",
    "terminal_text",
]

MASK = "[redacted]"
#: Shorter values are never registered as secrets.
MIN_SECRET_CHARS = 6
#: A piece of a secret (or of one of its encoded forms) this long is masked wherever it appears.
FRAGMENT_CHARS = 8
_ANCHOR_CHARS = 4
# Escapes nested deeper than this (a JSON escape, URL-encoded, HTML-escaped) are not undone.
_DECODING_ROUNDS = 3
# Characters of reports from the most frequent down, roughly. Anchors preferably start with rarer
# ones, which the search skips over faster; absent ones are the rarest.
_BY_FREQUENCY = " etaoinsrhldcum\n012fpgwybv.,-/:\"'k_x=jqz3456789+"
_URL_SAFE = str.maketrans("+/", "-_")
# What the escapes of each family begin with: backslashes (any number deep), percent signs (``%25`` too), ``&``.
_LEADS = {"\\": r"\\\\*", "%": "%(?:25)*", "&": "&"}
_BACKSLASHES = re.compile(r"\\+")
_PERCENT_BYTE = re.compile(r"%(?:25)*([0-9a-fA-F]{2})")
_Trie = dict[str, "_Trie"]
_ENTITY_NAMES: dict[str, list[str]] = {}
for _name, _char in html5.items():
    if _name.endswith(";") and len(_char) == 1:
        _ENTITY_NAMES.setdefault(_char, []).append(_name)


def _base64_forms(secret: str) -> list[str]:
    """The base64 characters that depend on the secret's bytes alone, at each byte alignment.

    Whatever precedes the secret in the encoded bytes (``user:``, ``Bearer ``),
    one of these three runs appears verbatim in the encoding.
    """
    data = secret.encode("utf-8")
    forms = []
    for offset in range(3):
        encoded = base64.b64encode(bytes(offset) + data).decode("ascii")
        core = encoded[-(-4 * offset // 3) : 8 * (offset + len(data)) // 6]
        forms += [core, core.translate(_URL_SAFE)]
    return forms


def _forms(secret: str) -> dict[str, int]:
    """Each form the secret is searched in, and how long a piece of it must be to be masked."""
    hexed = secret.encode("utf-8").hex()
    needs = dict.fromkeys([secret, secret.replace(" ", "+"), *_base64_forms(secret)], FRAGMENT_CHARS)
    needs |= dict.fromkeys([hexed, hexed.upper()], 2 * FRAGMENT_CHARS)
    return {form: min(need, len(form)) for form, need in needs.items() if len(form) >= MIN_SECRET_CHARS}


def _hex(number: str) -> list[str]:
    """Regex atoms for hex digits in either case."""
    return [f"[{digit}{digit.upper()}]" if digit.isalpha() else digit for digit in number]


def _spellings(char: str) -> list[tuple[str, tuple[str, ...]]]:
    """The escaped spellings of ``char``: the character each begins with, and the regex atoms after it."""
    utf16 = char.encode("utf-16-be").hex()
    json_escape: list[str] = []
    for i in range(0, len(utf16), 4):  # a surrogate pair outside the BMP
        json_escape += [_LEADS["\\"]] * bool(i) + ["[uU]", *_hex(utf16[i : i + 4])]
    percent: list[str] = []
    for i, byte in enumerate(char.encode("utf-8")):
        percent += [_LEADS["%"]] * bool(i) + _hex(f"{byte:02x}")
    spellings = [
        ("\\", tuple(json_escape)),
        *([("\\", ("x", *_hex(f"{ord(char):02x}")))] if ord(char) < 0x100 else []),  # \x2f (Python, JavaScript)
        ("%", tuple(percent)),
        ("&", ("#", *str(ord(char)), ";")),
        ("&", ("#", "[xX]", *_hex(f"{ord(char):x}"), ";")),
        *(("&", tuple(map(re.escape, name))) for name in _ENTITY_NAMES.get(char, ())),
    ]
    if char == "\\":
        spellings.append(("\\", (r"\\",)))  # two or more backslashes alone
    elif not char.isalnum():
        spellings.append(("\\", (re.escape(char),)))
    return spellings


def _escapes_pattern(alphabet: set[str]) -> str:
    """One regex for the escapes of every character in ``alphabet``, and of no other.

    The spellings are grouped by their first character and factored into tries,
    so the search skips ahead to a backslash, ``%`` or ``&`` and rejects most of
    those after a test or two.
    """
    families: dict[str, list[tuple[str, ...]]] = {lead: [] for lead in _LEADS}
    for char in alphabet:
        for lead, atoms in _spellings(char):
            families[lead].append(atoms)
    return "|".join(_LEADS[lead] + _trie_pattern(words) for lead, words in families.items())


@functools.lru_cache(maxsize=1024)  # a text repeats few distinct escapes many times
def _unescape(escape: str) -> str:
    """The character that ``escape``, matched by an escapes pattern, stands for."""
    if escape[0] == "%":
        return bytes.fromhex("".join(_PERCENT_BYTE.findall(escape))).decode("utf-8")
    if escape[0] == "&":
        return html.unescape(escape)
    parts = [part for part in _BACKSLASHES.split(escape) if part]
    if not parts:
        return "\\"
    if parts[0][0] in "uU":
        return bytes.fromhex("".join(part[1:] for part in parts)).decode("utf-16-be")
    if parts[0][0] == "x":
        return chr(int(parts[0][1:], 16))
    return parts[0]


def _commonness(char: str) -> int:
    """How frequent ``char`` is in reports, 0 for the rarest."""
    index = _BY_FREQUENCY.find(char)
    return 0 if index < 0 else len(_BY_FREQUENCY) - index


def _anchor_starts(form: str, need: int, chosen: set[str]) -> list[int]:
    """Offsets of anchors in ``form`` such that every piece of ``need`` characters holds a whole anchor.

    So every run of ``need - _ANCHOR_CHARS + 1`` consecutive offsets must hold an
    anchor's start. Within each run the latest offset whose character is already
    an anchor's first (else the rarest one) is taken: the fewer and rarer the
    first characters, the faster the search.
    """
    spread = need - _ANCHOR_CHARS + 1
    starts: list[int] = []
    first = 0
    while first <= len(form) - need:
        start = min(range(first, first + spread), key=lambda i: (form[i] not in chosen, _commonness(form[i]), -i))
        chosen.add(form[start])
        starts.append(start)
        first = start + 1
    return starts


def _trie_pattern(words: Iterable[Iterable[str]]) -> str:
    """A regex for any of ``words``, each a sequence of regex atoms.

    Shared prefixes are factored out, so a position where no word starts costs
    a test or two, not one per word.
    """
    trie: _Trie = {}
    for atoms in words:
        node = trie
        for atom in atoms:
            node = node.setdefault(atom, {})
        node[""] = {}  # a word ends here
    return _node_pattern(trie)


def _node_pattern(node: _Trie) -> str:
    branches = [atom + _node_pattern(child) for atom, child in sorted(node.items()) if atom]
    if "" in node:  # a word ends here: tried after the longer ones
        branches.append("")
    return branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"


# What may stand between the pieces of a secret cut up to slip past a search for it: line breaks and
# other white space, zero-width characters, a JSON string's escaped line breaks, an HTML line break.
_SEPARATORS = r"(?:[\s\u200b-\u200d\u2060\ufeff]|\\[nrt]|<br\s*/?>)+"
_SEPARATOR_RUNS = re.compile(_SEPARATORS, re.IGNORECASE)
# A run and the character after it, which the run's view keeps.
_SEPARATED = re.compile(_SEPARATORS + "(.)", re.DOTALL | re.IGNORECASE)


def _unescaped(match: re.Match[str]) -> str:
    return _unescape(match.group())


def _after_separators(match: re.Match[str]) -> str:
    return match.group(1)


class _View:
    """``text`` with each match of a pattern decoded into one character, and the way back to ``text``'s positions.

    The escapes of :func:`_escapes_pattern` decode into the character each stands
    for; the runs of :data:`_SEPARATED` into the character after them, so the
    pieces of a secret split over lines (a model asked to write it six
    characters a line) read as the secret again.
    """

    def __init__(
        self, text: str, escapes: re.Pattern[str], decode: Callable[[re.Match[str]], str] = _unescaped
    ) -> None:
        self._at: list[int] = []  # where each decoded escape sits in the view
        self._spans: list[tuple[int, int]] = []  # and where it came from in the text
        pieces: list[str] = []
        done = shrunk = 0
        for match in escapes.finditer(text):
            start, end = match.span()
            pieces += [text[done:start], decode(match)]
            self._at.append(start - shrunk)
            # A character kept after separators came from itself alone: a mask starting there
            # leaves the line break before it (the group), as it leaves the text before an escape.
            self._spans.append((match.start(1) if escapes.groups else start, end))
            shrunk += end - start - 1
            done = end
        self.text = "".join([*pieces, text[done:]]) if self._spans else text

    def source(self, start: int, end: int) -> tuple[int, int]:
        """The span of the text that the view's characters ``start:end`` were decoded from."""
        return self._where(start)[0], self._where(end - 1)[1]

    def _where(self, index: int) -> tuple[int, int]:
        k = bisect_right(self._at, index) - 1
        if k >= 0 and self._at[k] == index:
            return self._spans[k]
        shift = self._spans[k][1] - self._at[k] - 1 if k >= 0 else 0
        return index + shift, index + shift + 1


def _lower(text: str) -> str:
    """``text`` in lower case, character for character, so that positions still match.

    Matching ignores case: a server may shout the key back.
    """
    lowered = text.lower()
    if len(lowered) == len(text):
        return lowered
    return "".join(char.lower() if len(char.lower()) == 1 else char for char in text)  # İ lowers to two


def _extent(text: str, at: int, form: str, offset: int) -> tuple[int, int]:
    """The longest stretch of ``text`` around ``at`` that matches ``form`` aligned at ``offset``."""
    start, back = at, offset
    while start > 0 and back > 0 and text[start - 1] == form[back - 1]:
        start, back = start - 1, back - 1
    end, ahead = at + _ANCHOR_CHARS, offset + _ANCHOR_CHARS
    while end < len(text) and ahead < len(form) and text[end] == form[ahead]:
        end, ahead = end + 1, ahead + 1
    return start, end


def _masked(text: str, spans: Iterable[tuple[int, int]]) -> str:
    merged: list[list[int]] = []
    for start, end in sorted(spans):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    pieces, done = [], 0
    for start, end in merged:
        pieces += [text[done:start], MASK]
        done = end
    return "".join([*pieces, text[done:]])


class Redactor:
    """Masks the secrets it was built with in any text, in every form the module docstring lists.

    Build one per run (construction compiles the patterns) and call it on each
    text about to leave the process. One built from no secrets returns text as it is.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        #: Each form of each secret, and the length of the shortest piece of it that is masked.
        self._needs: dict[str, int] = {}
        for secret in secrets:
            if len(secret) >= MIN_SECRET_CHARS:
                for form, need in _forms(secret).items():
                    folded = form.lower()
                    self._needs[folded] = min(need, self._needs.get(folded, need))
        forms = sorted(self._needs)
        #: Each anchor, and where it sits in which forms.
        self._spots: dict[str, list[tuple[str, int]]] = {}
        chosen: set[str] = set()
        for form in forms:
            for start in _anchor_starts(form, self._needs[form], chosen):
                self._spots.setdefault(form[start : start + _ANCHOR_CHARS], []).append((form, start))
        self._patterns = (
            (
                re.compile(_trie_pattern(map(re.escape, anchor) for anchor in self._spots)),
                # Either case of each letter; a backslash too, so that an escape of an escape
                # decodes over two rounds (%5C%22, then \").
                re.compile(_escapes_pattern({"\\", *(char for form in forms for char in form + form.upper())})),
            )
            if forms
            else None
        )

    def __call__(self, text: str) -> str:
        if self._patterns is None or not text:
            return text
        anchors, escapes = self._patterns
        spans = list(self._fragments(_lower(text), anchors))
        views: list[_View] = []
        current = text
        while len(views) < _DECODING_ROUNDS and (view := _View(current, escapes)).text is not current:
            views.append(view)
            current = view.text
            spans += self._traced(views, anchors)
        # The separators are taken out by one substitution first; the view that maps positions back
        # costs a step per separator, so it is built only for a text where the pieces do join up.
        joined = _SEPARATOR_RUNS.sub("", current)
        if joined != current and next(self._fragments(_lower(joined), anchors), None):
            views.append(_View(current, _SEPARATED, _after_separators))
            spans += self._traced(views, anchors)
        return _masked(text, spans) if spans else text

    def _traced(self, views: list[_View], anchors: re.Pattern[str]) -> Iterator[tuple[int, int]]:
        """The fragments in the last of ``views``, as spans of the text the first was made from."""
        for span in self._fragments(_lower(views[-1].text), anchors):
            for layer in reversed(views):
                span = layer.source(*span)
            yield span

    def _fragments(self, text: str, anchors: re.Pattern[str]) -> Iterator[tuple[int, int]]:
        """Spans of ``text`` long enough to be a fragment of some form, each around an anchor."""
        position = 0
        while hit := anchors.search(text, position):
            for form, offset in self._spots[hit.group()]:
                start, end = _extent(text, hit.start(), form, offset)
                if end - start >= self._needs[form]:
                    yield start, end
            position = hit.start() + 1


#: The redactor of a process that holds no secret.
NO_SECRETS = Redactor()


# Control characters a terminal would run (escape sequences, the bell): a log line shows them as U+FFFD.
_TERMINAL_CONTROL = controls_except("\t\n")


def single_line(text: str) -> str:
    """``text`` as one line: its lines (by every boundary ``str.splitlines`` knows) stripped and joined by a space."""
    return " ".join(part.strip() for part in text.splitlines() if part.strip())


def terminal_text(text: str) -> str:
    """``text`` as a terminal shows it without acting on it: every control but the tab and line feed as U+FFFD."""
    return _TERMINAL_CONTROL.sub("\ufffd", text)


class RedactingFormatter(logging.Formatter):
    """A log formatter whose every line passes through :attr:`redactor`: message, arguments, traceback alike.

    Text from commits, servers and models reaches log lines (an error's reason),
    so control characters other than the tab and the line feed are shown as
    U+FFFD, and a message is one line whatever its reason holds (a validation
    error's lines, a server's body): a line of its own would read as another
    record, or as a forged one. Only a traceback (``-vv``) runs over several.
    The redactor can be replaced once the secrets are known (after the config
    is read).
    """

    def __init__(self, fmt: str, redactor: Redactor = NO_SECRETS) -> None:
        super().__init__(fmt)
        self.redactor = redactor

    def formatMessage(self, record: logging.LogRecord) -> str:
        return single_line(super().formatMessage(record))

    def format(self, record: logging.LogRecord) -> str:
        return terminal_text(self.redactor(super().format(record)))
