"""Foreign text made inert for each chat medium: it shows as written, and makes no link, mention or markup.

Commit subjects, model one-liners and highlights land in messages read by a
whole team. Whoever wrote them must not be able to post a link that hides its
target (``[docs](https://evil.example)``, Slack's ``<https://evil.example|docs>``),
ping a channel (Slack ``<!channel>``, WeCom ``<@all>``), open a code span that
swallows the links we write after it, or add lines to the message.

None of these platforms documents an escape for its Markdown (Slack only for
``&``, ``<`` and ``>``), so each character that could start markup is written
as a look-alike that cannot: fullwidth brackets, a modifier-letter grave for
the backtick. Every text is first made one line (:func:`one_line`), and bare
addresses (``https://``, ``//host``, ``www.``, ``user@host``) are broken with a zero-width
space so no client turns them into links (:func:`defang`); our own links are
the only ones a message carries. Feishu's rich text (``post``) takes text and
links as separate elements, so its text needs no more than that.
"""

from __future__ import annotations

import re
from urllib.parse import quote, urlsplit

from repodaily.controls import controls_except
from repodaily.render.text import shorten

__all__ = ["clip", "defang", "link_target", "markdown", "one_line", "plain", "slack", "slack_link_target"]

_ZERO_WIDTH_SPACE = "\u200b"
# Every control character (bidi scopes too), line and paragraph separator: a message line stays one line.
_BREAKS = re.compile(f"(?:{controls_except().pattern}|[\u2028\u2029])+")
_SPACES = re.compile(r"\s+")
# Where a client would start an automatic link: scheme:// and //host, www., user@host.
_AUTOLINK = re.compile(r"(?<=/)(?=/)|(?<![A-Za-z0-9][Ww]{3})(?<=[Ww]{3})(?=\.)|(?<=[\w.+-])(?=@\w)")
# The Markdown that DingTalk and WeCom render: links, images, emphasis, code, HTML-like tags
# (<font>, WeCom's <@userid> mention) and the backslash that could escape our own markup.
_MARKDOWN_LOOKALIKES = str.maketrans({"[": "［", "]": "］", "<": "＜", ">": "＞", "`": "ˋ", "*": "＊", "\\": "＼"})
# An entity reference such a renderer might decode into one of the characters above.
_ENTITY = re.compile(r"&(?=#[0-9]+;|#[xX][0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)")
# Slack mrkdwn: the three characters Slack escapes, and the backtick that opens code.
_SLACK_ESCAPES = str.maketrans({"&": "&amp;", "<": "&lt;", ">": "&gt;", "`": "ˋ"})
_WEB_SCHEMES = ("http", "https")


def one_line(text: str) -> str:
    """``text`` as one line: line breaks and other control characters become spaces, runs of spaces one."""
    return _SPACES.sub(" ", _BREAKS.sub(" ", text)).strip()


def clip(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, an ellipsis ending a cut one, so no one field fills a message.

    Cut as a report cuts (:func:`repodaily.render.text.shorten`): never between a character and its accent.
    """
    return shorten(text, limit)


def defang(text: str) -> str:
    """``text`` with bare web and e-mail addresses broken by a zero-width space: shown the same, never linked."""
    return _AUTOLINK.sub(_ZERO_WIDTH_SPACE, text)


def plain(text: str) -> str:
    """Foreign text for a medium that shows text literally (Feishu rich text, Slack ``plain_text``)."""
    return defang(one_line(text))


def markdown(text: str) -> str:
    """Foreign text inside DingTalk's or WeCom's Markdown: what could start markup written as a look-alike."""
    return _ENTITY.sub("＆", plain(text)).translate(_MARKDOWN_LOOKALIKES)


def slack(text: str) -> str:
    """Foreign text inside Slack mrkdwn: ``&``, ``<`` and ``>`` as entities (so no ``<!channel>``, no ``<url|x>``).

    The emphasis characters are left alone: mrkdwn emphasis ends with the line,
    so at worst a title shows in bold; the backtick is not, as a code span would
    show the links we write after it as text.
    """
    return plain(text).translate(_SLACK_ESCAPES)


def link_target(address: str | None) -> str | None:
    """``address`` if it is an http(s) URL, encoded to sit in a link (parentheses, ``<>``, ``|``, spaces), else None.

    Report JSON can come from anywhere: a ``javascript:`` URL is no link of ours.
    """
    if not address:
        return None
    parts = urlsplit(address)
    if parts.scheme.lower() not in _WEB_SCHEMES or not parts.netloc:
        return None
    return quote(address, safe="!#$%&'*+,/:;=?@[]~")


def slack_link_target(address: str | None) -> str | None:
    """``address`` as :func:`link_target` gives it (``|`` encoded: it ends a Slack link), ``&`` as ``&amp;``."""
    target = link_target(address)
    return target.replace("&", "&amp;") if target else None
