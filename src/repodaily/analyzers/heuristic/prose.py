"""Prose out of commit messages: paragraphs, first sentences, clipped quotes.

They read the body's prose as the source parsed it (``AnalysisInput.prose``,
sign-off lines already gone). The evidence reads a ``BREAKING CHANGE:`` footer
with these, the judgement quotes a changelog entry in a reason, and the texts
quote the body's first sentence; all of them quote the same way.
"""

from __future__ import annotations

import re

from repodaily.sources.message import without_revert_notice

__all__ = [
    "BREAKING_FOOTER",
    "MAX_QUOTED",
    "bare_text",
    "body_sentence",
    "clip",
    "first_sentence",
    "link_targets_dropped",
    "prose_blocks",
    "says_more",
]

BREAKING_FOOTER = re.compile(r"^BREAKING[ -]CHANGE:\s*(?P<text>.*)$")
_NOT_PROSE = ("#", "<", "|", "```", "---", ">", "[", "!", "http")
_BULLET = re.compile(r"^(?:[-*•]|\d{1,2}[.)])\s+")
_SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？]")
_ABBREVIATIONS = frozenset({"e.g.", "i.e.", "etc.", "vs.", "cf.", "approx.", "no.", "fig."})
#: What may open an abbreviation's word: "(e.g. `x`)" still does not end there.
_OPENERS = "([{\"'`*_"
MAX_QUOTED = 200
_WORD = re.compile(r"\w+")
# A sentence says more than a title when this share of its words, and at least two, are not the title's.
_NEW_SHARE = 0.3
_NEW_WORDS = 2


def bare_text(cite: str) -> str:
    """Letters and digits only, lower case: two wordings that differ only in markup compare equal."""
    return "".join(ch for ch in cite.lower() if ch.isalnum())


#: A Markdown link's or image's target, `[text](https://…)`: an address, not the author's words.
_LINK_TARGET = re.compile(r"(?<=\])\([^()\s]*\)")


def link_targets_dropped(prose: str) -> str:
    """The prose without its Markdown link targets, which patterns must not read as words.

    A bot's boilerplate links its documentation (Dependabot's compatibility badge
    points at `…/managing-security-vulnerabilities/…`); the link's text stays.
    """
    return _LINK_TARGET.sub("", prose)


def prose_blocks(prose: str) -> list[str]:
    """The paragraphs and list items of a body's prose, each with its line wraps joined into one line."""
    blocks: list[list[str]] = []
    current: list[str] = []
    for raw in [*prose.splitlines(), ""]:
        line = raw.strip()
        if not line or _BULLET.match(line):
            if current:
                blocks.append(current)
            current = [_BULLET.sub("", line)] if line else []
        else:
            current.append(line)
    return [" ".join(block) for block in blocks]


def first_sentence(text: str) -> str:
    """Up to the first full stop that ends a sentence (not the one in ``e.g.`` or ``v1.2``)."""
    for match in _SENTENCE_END.finditer(text):
        words = text[: match.start()].split()
        if match.group() == "." and words and f"{words[-1].lower().lstrip(_OPENERS)}." in _ABBREVIATIONS:
            continue
        return text[: match.end()]
    return text


def clip(text: str, limit: int) -> str:
    """``text`` whole, or cut at the last word boundary before ``limit`` with ``…``; never inside a code span."""
    if len(text) <= limit:
        return text
    cut = text[: limit + 1].rsplit(" ", 1)[0] if " " in text[:limit] else text[:limit]
    if cut.count("`") % 2:
        cut = cut[: cut.rindex("`")]
    return cut.rstrip(" ,;:—-") + "…"


def body_sentence(prose: str) -> str | None:
    """The first sentence of the prose's first paragraph, line wraps joined, never a fragment.

    A revert's ``This reverts commit <sha>.`` is skipped: what follows it gives the reason.
    """
    for block in prose_blocks(prose):
        block = without_revert_notice(block)
        if block.startswith(_NOT_PROSE) or BREAKING_FOOTER.match(block):
            continue
        sentence = first_sentence(block)
        if len(sentence) >= 20:
            return clip(sentence, MAX_QUOTED)
    return None


def says_more(text: str, than: str) -> bool:
    """Whether ``text`` adds to ``than`` (a title): enough of its words are not among the title's.

    A body or changelog entry that restates the title ("Fix the crash on empty
    batches." under "Fix crash on empty batch") tells a reader nothing new.
    """
    known = {word.lower() for word in _WORD.findall(than)}
    words = [word.lower() for word in _WORD.findall(text)]
    new = [word for word in words if known.isdisjoint({word, word.removesuffix("s"), word.removesuffix("es")})]
    return len(new) >= _NEW_WORDS and len(new) >= _NEW_SHARE * len(words)
