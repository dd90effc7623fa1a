"""Hostile input: text from strangers written to break out of a Markdown report.

Commit subjects, bodies, author names and file names come from anyone who can
land a commit; analyzer text comes from a model that read them. Each payload
here tries one way out of the construct a template puts text in — raw HTML, a
link or image, an autolink, a code span that pairs differently for us and for
the renderer, an entity, a table pipe, a block marker, a line break — and is
named after it. Renderer tests import these dictionaries (id → text) instead
of keeping payload lists of their own.

Git refuses NUL in messages and drops ``<``, ``>`` and line breaks from
names, so the git-built tests get what git stores; :data:`NOT_IN_GIT` has what
only a model (or a report's JSON) can deliver, and :data:`ALL` has everything.
"""

from __future__ import annotations

import pytest

SUBJECTS = {
    "link": "[Bugfix](javascript:alert(1)) click me",
    "link-relative": "[Bugfix](xpu): prevent index out of range (#37259)",
    "link-angle-destination": "[click](<javascript:alert(1)>)",
    "link-title": '[x](https://evil.example "title") and [y](#c-abcdef0)',
    "image-tracker": "![pixel](https://tracker.example/p.gif?u=1) tracked",
    "image-in-link": "[![logo](https://evil.example/l.png)](https://evil.example)",
    "destination-swallows-backtick": "[a](`) <img src=x onerror=alert(1)> `",
    "title-swallows-backtick": '[a](x "`") <img src=x onerror=alert(1)> `',
    "html-attribute-swallows-backtick": '<a title="`">x</a> `<img src=x onerror=alert(1)>`',
    "autolink-swallows-backtick": "<https://evil.example/`> <img src=x onerror=alert(1)> `",
    "html-img": "<img src=x onerror=alert(1)>",
    "html-script": "<script>alert(1)</script>",
    "html-close-our-sub": "</sub><h1>x</h1><sub>",
    "html-comment": "<!-- hidden --> <?php x ?> <![CDATA[ y ]]>",
    "html-our-anchor": '<a id="c-abcdef0"></a><a href="javascript:alert(1)">x</a>',
    "html-br": "one<br>two<br/>three",
    "autolink-angle": "<https://evil.example> <mailto:ceo@evil.example>",
    "autolink-bare": "see https://evil.example/x, HTTP://EVIL.EXAMPLE and ftp://evil.example",
    "autolink-www": "visit www.evil.example or (www.evil.example) or _www.evil.example_",
    "autolink-email": "mail ceo@evil.example, mailto:ceo@evil.example or xmpp:bot@evil.example/r",
    "autolink-escaped": "http\\://evil.example www\\.evil.example ceo\\@evil.example a\\.b@evil.example",
    "autolink-protocol-relative": "a //evil.example/x b",
    "entities": "&lt;script&gt;alert(1)&lt;/script&gt; &#96;x&#96; &#x3C;b&#x3E; &amp; &colon;",
    "reference-link": "[x][y] [x] [^1] dependabot[bot]",
    "pipes": "a | b || c \\| d `e | f`",
    "trailing-backslash": "ends with a backslash \\",
    "lone-backtick": "don`t pair ` with ``` or ``",
    "long-backtick-run": "`" * 40 + " x " + "`" * 39,
    "heading": "# heading ##",
    "rule": "---",
    "setext": "===",
    "quote": "> quote",
    "ordered": "1. item",
    "bullet": "- item",
    "fence": "```js",
    "task": "- [x] done",
    "emphasis": "***bold*** _under_ ~~gone~~ **",
    "bidi-override": "Fix the \u202egnp.exe\u202c loader \u2067left open \u202dand this",
    "terminal-escapes": "\x1b[2J\x1b[31mred\x1b[0m \x1b]8;;https://evil.example\x07click\x1b]8;;\x07 \x9b1;1H\x08\x7f",
}

BODIES = {
    "backtick-pairs-across-lines": "opens ` here\ncloses ` here <img src=x onerror=alert(1)>\nand ```\nfences",
    "backslash-before-break": "python -m vllm.entrypoints.api_server \\\n  --model x \\\n  --enable-lora",
    "html-block": "<div>\n<script>alert(1)</script>\n</div>\n<details><summary>x</summary>y</details>",
    "reference-definition": "[x]: javascript:alert(1)\n[x]\n[bot]: https://evil.example",
    "table-breakout": "| a | b |\n|---|---|\n| c | d |",
    "blocks": "# h\n---\n> q\n    indented code\n1) one\n* star",
    "links": "See [the PR](https://evil.example/pr) and ![](https://tracker.example/p.gif)\nhttps://evil.example",
    "unicode-breaks": "line\u2028separator\u0085next\u2029paragraph\x0bvertical\x0cfeed",
}

AUTHORS = {
    "link": "[Mallory](https://evil.example)",
    "image": "![](https://tracker.example/p.gif)",
    "html": '<img src=x onerror="alert(1)">',
    "email": "mallory@evil.example",
    "www": "www.evil.example",
    "code-and-pipe": "`ada` | lovelace",
    "emphasis": "*Mallory* _the_ ~~great~~",
    "backslash": "Ada \\",
    "bidi-override": "Eve \u202elive",
    "lone-backtick": "O`Brien",
    "entity": "&lt;b&gt; &amp;",
    "bot": "dependabot[bot]",
}

FILE_NAMES = {
    "html": "web/<script>x<b>.html",
    "backtick": "a`b.py",
    "backticks": "``x```.md",
    "link": "[x](javascript:alert(1)).py",
    "image": "![x](https:evil.example).md",
    "pipe": "a | b.md",
    "email": "mail@evil.example.txt",
    "www": "www.evil.example.md",
    "entity": "&lt;b&gt;.txt",
    "newline": "new\nline.py",
    "unicode-break": "line\u2028sep.py",
    "spaces": " padded .py",
}

# Analyzer output and report JSON can carry what git cannot.
NOT_IN_GIT = {
    "nul": "before\x00after",
    "crlf": "one\r\ntwo\rthree",
    "only-spaces": "   ",
    "empty": "",
}

# Every payload, for fields that take any text (analyses, or a report built in a test).
ALL = {
    f"{kind}-{name}": text
    for kind, payloads in (
        ("subject", SUBJECTS),
        ("body", BODIES),
        ("author", AUTHORS),
        ("file", FILE_NAMES),
        ("not-in-git", NOT_IN_GIT),
    )
    for name, text in payloads.items()
}


def params(payloads: dict[str, str]) -> list:
    """``pytest.param`` per payload, with its name as the test id."""
    return [pytest.param(text, id=name) for name, text in payloads.items()]
