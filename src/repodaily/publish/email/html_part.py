"""The report's Markdown as the HTML part of an e-mail that Gmail and Outlook show alike.

Why from the Markdown, with markdown-it, rather than from the report with a
template of its own: the Markdown artefact is what the user configured (their
templates included), the text part of the same message, and what every other
target shows; a second template would drift from it. And the escaping of
commit and model text (:mod:`repodaily.render.text`) is property-tested against
markdown-it itself, with raw HTML on, so the same parser here shows that text
as text.

Mail clients take little CSS: Gmail drops ``<style>`` in many views, Outlook
for Windows renders with Word and inherits fonts poorly. So each element gets
its own ``style`` attribute (fonts set on every text block, a CJK font stack so
Chinese reads well on every system), the layout is a centred table of fixed
width, and there is no stylesheet, no script and nothing fetched (no image).

Defence in depth: the report's Markdown holds raw HTML only where the packaged
templates write it (``<sub>``, ``<br>``, ``<a id="c-…">``). Any other raw HTML,
an image, or a link to anything but http(s), mailto or a fragment of the report
is shown as text (or its link dropped), whatever a user's template or a gap in
the escaping let through.
"""

from __future__ import annotations

import functools
import html
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from repodaily.render.anchors import github_slug

if TYPE_CHECKING:
    from markdown_it import MarkdownIt  # imported here: runs without e-mail skip its start-up cost
    from markdown_it.token import Token

__all__ = ["email_html"]

# System fonts first (macOS and iOS, Windows), then each system's Chinese font (macOS, Windows, Linux).
_FONT = "font-family:-apple-system,'Segoe UI','PingFang SC','Microsoft YaHei','Noto Sans CJK SC',Arial,sans-serif"
_MONO = "font-family:SFMono-Regular,Consolas,'Liberation Mono',Menlo,monospace"
_TEXT = f"{_FONT};font-size:14px;line-height:1.6;color:#1f2328"
_BORDER = "1px solid #d0d7de"
_CELL = f"{_FONT};font-size:13px;line-height:1.5;color:#1f2328;text-align:left;border:{_BORDER};padding:6px 10px"
#: The style of each element, by tag. The font is set on the page's cell and again where Outlook
#: does not inherit it (headings, which it styles itself, and table cells); every byte counts, since
#: Gmail cuts a message whose HTML passes about 100 KB.
STYLES = {
    "h1": f"{_FONT};font-size:24px;line-height:1.3;margin:0 0 16px;font-weight:600",
    "h2": f"{_FONT};font-size:20px;line-height:1.3;margin:24px 0 12px;font-weight:600;"
    f"border-bottom:{_BORDER};padding-bottom:6px",
    "h3": f"{_FONT};font-size:17px;line-height:1.4;margin:24px 0 10px;font-weight:600",
    "h4": f"{_FONT};font-size:15px;line-height:1.4;margin:20px 0 8px;font-weight:600",
    "h5": f"{_FONT};font-size:14px;margin:16px 0 8px;font-weight:600",
    "h6": f"{_FONT};font-size:13px;margin:16px 0 8px;font-weight:600",
    "p": "margin:0 0 12px",
    "ul": "margin:0 0 12px;padding-left:24px",
    "ol": "margin:0 0 12px;padding-left:24px",
    "li": "margin:0 0 4px",
    "blockquote": "color:#57606a;margin:0 0 12px;padding:4px 12px;border-left:4px solid #d0d7de;"
    "background-color:#f6f8fa",
    "hr": f"border:0;border-top:{_BORDER};height:0;margin:20px 0",
    "table": f"border-collapse:collapse;border:{_BORDER};width:100%;margin:0 0 16px",
    "th": f"{_CELL};font-weight:600;background-color:#f6f8fa",
    "td": f"{_CELL};vertical-align:top",
    "code": f"{_MONO};font-size:12px;background-color:#eff1f3;padding:1px 4px",
    "pre": f"{_MONO};font-size:12px;background-color:#f6f8fa;padding:12px;white-space:pre-wrap",
    "a": "color:#0969da;text-decoration:none",
    "sub": "font-size:12px;color:#57606a;vertical-align:baseline",
    "strong": "font-weight:600",
}
# The first column of the commit table is a time: kept on one line.
_FIRST_CELL = ";white-space:nowrap"

# The raw HTML the packaged templates write, and nothing else.
_OUR_HTML = re.compile(r'<sub>|</sub>|<br\s*/?>|<a id="c-[0-9a-f]{7,40}">|</a>')
_SAFE_HREF = re.compile(r"(?:https?:|mailto:|#)", re.IGNORECASE)


@functools.cache
def _parser() -> MarkdownIt:
    """The CommonMark parser, made on the first message: runs that send no e-mail never load it."""
    from markdown_it import MarkdownIt  # imported here: runs without e-mail skip its start-up cost

    return MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"])


_PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta http-equiv="Content-Type" content="text/html; charset=utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title>
</head>
<body style="margin:0;padding:0;background-color:#f6f8fa">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" \
style="border-collapse:collapse;background-color:#f6f8fa">
<tr><td align="center" style="padding:16px 8px">
<table role="presentation" width="760" cellpadding="0" cellspacing="0" border="0" \
style="border-collapse:collapse;width:100%;max-width:760px;background-color:#ffffff;border:1px solid #d0d7de">
<tr><td style="{text};padding:24px">
{body}</td></tr>
</table>
</td></tr>
</table>
</body>
</html>
"""
_LANGUAGES = {"zh": "zh-CN", "en": "en"}


def email_html(markdown: str, *, title: str, language: str) -> str:
    """A whole HTML document for ``markdown`` (a report), every element styled inline."""
    parser = _parser()
    tokens = parser.parse(markdown)
    _prepare(tokens)
    body = parser.renderer.render(tokens, parser.options, {})
    return _PAGE.format(lang=_LANGUAGES.get(language, language), title=html.escape(title), text=_TEXT, body=body)


def _prepare(tokens: Sequence[Token]) -> None:
    """Style the block elements, give headings their GitHub ids, and make what is not ours inert."""
    seen: dict[str, int] = {}
    column = 0
    for index, token in enumerate(tokens):
        if token.type == "html_block":  # a whole block of raw HTML: never ours
            token.content = f'<p style="{STYLES["p"]}">{html.escape(token.content)}</p>\n'
        elif token.type == "heading_open":
            # TOC links name headings by GitHub's slugs; here as on GitHub they lead somewhere.
            token.attrSet("id", github_slug(_shown(tokens[index + 1]), seen))
        elif token.type == "tr_open":
            column = 0
        elif token.type in ("td_open", "th_open"):
            column += 1
        if token.type == "inline":
            _prepare_inline(token.children or [])
        elif token.nesting == 1 or token.type in ("hr", "code_block", "fence"):
            _style(token, _FIRST_CELL if token.type == "td_open" and column == 1 else "")


def _prepare_inline(children: list[Token]) -> None:
    link_open = False
    for child in children:
        if child.type == "html_inline":
            if _OUR_HTML.fullmatch(child.content):
                if child.content == "<sub>":
                    child.content = f'<sub style="{STYLES["sub"]}">'
            else:
                child.type = "text"  # rendered escaped
        elif child.type == "image":  # nothing is fetched: the alt text stands for it
            child.type, child.children = "text", None
        elif child.type == "link_open":
            link_open = not _SAFE_HREF.match(str(child.attrGet("href") or ""))
            child.hidden = link_open
        elif child.type == "link_close":
            child.hidden, link_open = link_open, False
        if child.nesting == 1 or child.type == "code_inline":
            _style(child)


def _style(token: Token, extra: str = "") -> None:
    style = STYLES.get(token.tag)
    if style:
        # Aligned table columns come with a style of their own (text-align): ours goes first, theirs wins.
        own = token.attrGet("style")
        token.attrSet("style", style + extra + (f";{own}" if own else ""))


def _shown(inline: Token) -> str:
    """The text a heading shows: its text and code, as GitHub slugs it."""
    return "".join(child.content for child in inline.children or [] if child.type in ("text", "code_inline"))
