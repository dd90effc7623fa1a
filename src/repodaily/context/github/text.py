"""A pull request's text as it may travel: its author's words, without what only a browser shows, bounded.

A pull request body is written by whoever opened it: it can hold images (a
tracking pixel, a data URI), HTML comments (every template's instructions,
invisible on GitHub), raw HTML, control characters, and up to 65,536
characters. What an analyzer and a reader need is its prose, so images, comments
and HTML tags (their text kept) are dropped here and the rest kept as plain
text, cut to a bound; escaping it for a format is the renderer's job, as for a
commit message.

Every pattern here runs in time linear in the text, or bounded per match, and
only over the first :data:`MAX_READ_CHARS` of it: a body crafted to make a
regular expression backtrack costs a fraction of a second, not the run.

Linked issues come from GitHub's closing keywords ("Fixes #12", "closes
owner/repo#7", or an issue URL of the same repository): the issues merging the
pull request closes.
"""

from __future__ import annotations

import re

__all__ = [
    "MAX_BODY_CHARS",
    "MAX_LABELS",
    "MAX_LABEL_CHARS",
    "MAX_LINKED",
    "clean_body",
    "clean_line",
    "closing_issues",
]

#: A body longer than this is cut at a word: enough for a PR's motivation and test plan.
MAX_BODY_CHARS = 2000
MAX_TITLE_CHARS = 300
MAX_LABELS = 20
MAX_LABEL_CHARS = 50
#: GitHub links at most ten closing references per pull request.
MAX_LINKED = 10
#: What of a body is read at all; past it nothing would survive the cut anyway.
MAX_READ_CHARS = 16 * MAX_BODY_CHARS

_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.DOTALL)
# Alt texts and link targets are bounded, so no match scans far from where it starts.
_ALT = r"!\[[^\]\n]{0,300}\]"
_INLINE_IMAGE = re.compile(_ALT + r"\((?:[^()\s]|\([^()\s]{0,200}\)){0,4000}(?:\s+\"[^\"\n]{0,300}\")?\s*\)")
_REFERENCE_IMAGE = re.compile(_ALT + r"\[[^\]\n]{0,300}\]")
_EMPTY_LINK = re.compile(r"\[\]\([^()\s]{0,4000}\)")  # what a linked image ([![badge](…)](…)) leaves
_DATA_URI = re.compile(r"data:[\w/+.-]{1,100};base64,[A-Za-z0-9+/=]*")
_IMAGE_DEFINITION = re.compile(
    r"^ {0,3}\[[^\]]+\]:\s*\S+\.(?:png|jpe?g|gif|svg|webp)\S*.*$", re.IGNORECASE | re.MULTILINE
)
_HTML_TAG = re.compile(r"</?[A-Za-z][A-Za-z0-9-]{0,30}(?:\s[^<>]{0,2000})?/?>")
_INNER_SPACES = re.compile(r"(?<=\S)[ \t]{2,}")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
_BLANK_RUNS = re.compile(r"\n{3,}")
_CLOSING = re.compile(
    r"\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\s*:?\s+"
    r"(?:(?P<repo>[\w.-]+/[\w.-]+)#|https?://[^\s/]+/(?P<url_repo>[\w.-]+/[\w.-]+)/issues/|#)(?P<number>\d+)\b",
    re.IGNORECASE,
)


def clean_line(text: str | None, limit: int = MAX_TITLE_CHARS) -> str:
    """One line of plain text (a title, a label) without control characters, cut at ``limit``."""
    line = " ".join(_CONTROL.sub(" ", text or "").split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def clean_body(text: str | None, limit: int = MAX_BODY_CHARS) -> str:
    """The body's prose: comments, images, HTML tags and control characters out, blank runs collapsed, cut at a word."""
    body = (text or "")[:MAX_READ_CHARS].replace("\r\n", "\n").replace("\r", "\n")
    for pattern in (_COMMENT, _DATA_URI, _INLINE_IMAGE, _REFERENCE_IMAGE, _EMPTY_LINK, _IMAGE_DEFINITION):
        body = pattern.sub("", body)
    # A tag may stand between two words (</summary>Because): a space keeps them apart, one space.
    body = _INNER_SPACES.sub(" ", _HTML_TAG.sub(" ", _CONTROL.sub("", body)))
    body = _BLANK_RUNS.sub("\n\n", "\n".join(line.rstrip() for line in body.split("\n"))).strip()
    if len(body) <= limit:
        return body
    cut = body[: limit - 1]
    space = max(cut.rfind(" "), cut.rfind("\n"))
    return (cut[:space] if space > limit // 2 else cut).rstrip() + "…"


def closing_issues(body: str | None, repo: str) -> list[int]:
    """The issues of ``repo`` that ``body`` says merging closes, in the order it names them."""
    found: list[int] = []
    # A template's instructions ("Fixes #<issue>") sit in comments nobody filled in.
    for match in _CLOSING.finditer(_COMMENT.sub("", (body or "")[:MAX_READ_CHARS])):
        other = match["repo"] or match["url_repo"]
        number = int(match["number"])
        if (other is None or other.lower() == repo.lower()) and number not in found:
            found.append(number)
    return found[:MAX_LINKED]
