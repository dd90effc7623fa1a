"""Control characters: the C0 and C1 codes and DEL, which a terminal or a renderer acts on instead of showing.

Text from commits, servers and models may carry them (an escape sequence that
recolours, retitles or re-links a terminal; a character HTML forbids). Each
medium keeps the whitespace it understands and shows the rest as U+FFFD; the
set is defined once here so the media differ only in what they keep.
"""

from __future__ import annotations

import re

__all__ = ["controls_except"]


def controls_except(kept: str = "") -> re.Pattern[str]:
    """A pattern matching one control character (U+0000–U+001F, U+007F–U+009F) not in ``kept``."""
    codes = [chr(code) for code in (*range(0x20), *range(0x7F, 0xA0)) if chr(code) not in kept]
    return re.compile("[" + "".join(re.escape(char) for char in codes) + "]")
