"""Mentions made inert before a report becomes an issue: a daily issue must not ping whoever a commit names.

GitHub notifies every ``@login`` and ``@org/team`` an issue body or comment
mentions, and reads mentions in the rendered text, where entities and escapes
are gone; it leaves code alone. So the ``@`` that opens a mention becomes a
one-character code span, as the Markdown renderer already spells an ``@``
inside a word (an e-mail address) and for the same reason: a node boundary
nothing reads across. Code spans the report holds are kept as they are (a
mention there pings no one); the renderer leaves a raw backtick only where it
delimits one.
"""

from __future__ import annotations

import re

__all__ = ["quiet_mentions"]

#: A code span as the renderer writes it: a backtick run, the code, the same run.
_CODE_SPAN = re.compile(r"(?<!\\)(`+)(?!`).*?(?<!`)\1(?!`)", re.S)
#: The ``@`` GitHub would read as a mention: not inside a word, a login's character after it.
_MENTION = re.compile(r"(?<![A-Za-z0-9_`\\])@(?=[A-Za-z0-9])")


def quiet_mentions(markdown: str) -> str:
    """``markdown`` with every mention outside code spans respelt so that it pings no one."""
    pieces: list[str] = []
    start = 0
    for span in _CODE_SPAN.finditer(markdown):
        pieces.append(_MENTION.sub("`@`", markdown[start : span.start()]))
        pieces.append(span.group())
        start = span.end()
    pieces.append(_MENTION.sub("`@`", markdown[start:]))
    return "".join(pieces)
