"""Link targets inside a report: GitHub heading slugs and explicit commit anchors.

A table-of-contents link works only if it names the id the viewer gives the
target. Commits get explicit ``<a id="c-<short sha>">`` anchors, which mean the
same everywhere; section headings are reached by the id GitHub derives from the
heading text, so :func:`github_slug` reproduces GitHub's algorithm (the
``github-slugger`` package) character for character.
"""

from __future__ import annotations

import unicodedata

# Categories github-slugger keeps: letters, marks, decimal and letter numbers,
# connector punctuation ("_"). Everything else goes, except " " and "-".
_KEPT_CATEGORIES = frozenset({"Lu", "Ll", "Lt", "Lm", "Lo", "Mn", "Mc", "Me", "Nd", "Nl", "Pc"})

# Symbols with the Unicode "Alphabetic" property (circled and squared Latin
# letters); github-slugger keeps them although their category is "So".
_ALPHABETIC_SYMBOLS = ((0x24B6, 0x24E9), (0x1F130, 0x1F149), (0x1F150, 0x1F169), (0x1F170, 0x1F189))


def _kept(char: str) -> bool:
    if char in " -" or unicodedata.category(char) in _KEPT_CATEGORIES:
        return True
    code = ord(char)
    return any(low <= code <= high for low, high in _ALPHABETIC_SYMBOLS)


def github_slug(text: str, seen: dict[str, int] | None = None) -> str:
    """The id GitHub gives a heading with this rendered text.

    Lowercase; drop every character that is not a letter, mark, number,
    connector punctuation, ``-`` or space (so emoji and punctuation vanish);
    each space becomes ``-``. With ``seen`` (one dict per document, headings
    in document order) a repeated slug gets ``-1``, ``-2``… exactly as
    github-slugger counts them.
    """
    slug = "".join(char for char in text.lower() if _kept(char)).replace(" ", "-")
    if seen is None:
        return slug
    unique = slug
    while unique in seen:
        seen[slug] += 1
        unique = f"{slug}-{seen[slug]}"
    seen[unique] = 0
    return unique


def commit_anchor(short_sha: str) -> str:
    """The explicit id of a commit's section; stable across languages and renderers."""
    return f"c-{short_sha}"
