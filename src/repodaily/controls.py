"""Control characters: the C0 and C1 codes and DEL, which a terminal or a renderer acts on instead of showing.

Text from commits, servers and models may carry them (an escape sequence that
recolours, retitles or re-links a terminal; a character HTML forbids). Each
medium keeps the whitespace it understands and shows the rest as U+FFFD; the
set is defined once here so the media differ only in what they keep.

The set includes the bidirectional formatting characters that open or close a
scope (embeddings, overrides, isolates: the "Trojan Source" characters). A
right-to-left override left open in an author's name or a title reverses
whatever follows it on the line — our own words after it, a link, the next
table cell — so a report would show a reader something its text does not say.
Right-to-left prose needs none of them (the Unicode bidi algorithm orders it),
and the marks without a scope (U+200E, U+200F, U+061C) stay.
"""

from __future__ import annotations

import re

__all__ = ["BIDI_CONTROLS", "controls_except"]

#: LRE, RLE, PDF, LRO, RLO, then LRI, RLI, FSI, PDI.
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def controls_except(kept: str = "") -> re.Pattern[str]:
    """A pattern matching one control character (U+0000–U+001F, U+007F–U+009F, a bidi scope) not in ``kept``."""
    codes = [chr(code) for code in (*range(0x20), *range(0x7F, 0xA0))] + list(BIDI_CONTROLS)
    return re.compile("[" + "".join(re.escape(char) for char in codes if char not in kept) + "]")
