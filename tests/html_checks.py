"""What an HTML page of ours must be, read by the standard library's HTML parser.

:func:`page_problems` lists every element, attribute or address our templates do
not write: an element outside :data:`ELEMENTS`, an event-handler or ``style``
attribute, a link to anything but a page of the site, a fragment or an
``http(s)`` address, a script or stylesheet not loaded from a file.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

ELEMENTS = {
    "html", "head", "meta", "title", "link", "script", "style", "body", "a", "header", "nav", "main", "span",
    "h1", "h2", "h3", "h4", "p", "code", "strong", "br", "ul", "ol", "li", "div", "table", "thead", "tbody",
    "tr", "th", "td", "section", "dl", "dt", "dd", "footer", "form", "fieldset", "legend", "label", "input",
    "select", "option", "time", "small", "output",
}  # fmt: skip


@dataclass
class Page:
    """A parsed page: its elements with their attributes, its ids in order, and its text."""

    elements: list[tuple[str, dict[str, str]]] = field(default_factory=list)
    ids: list[str] = field(default_factory=list)
    text: list[str] = field(default_factory=list)


class _Reader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.page = Page()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        attributes = {name: value or "" for name, value in attrs}
        self.page.elements.append((tag, attributes))
        if "id" in attributes:
            self.page.ids.append(attributes["id"])

    def handle_data(self, data: str) -> None:
        self.page.text.append(data)


def read(html: str) -> Page:
    reader = _Reader()
    reader.feed(html)
    reader.close()
    return reader.page


def _address_ok(address: str) -> bool:
    if address.startswith(("https://", "http://", "#")):
        return True
    return ":" not in address.split("/")[0] and not address.startswith("//")


def page_problems(html: str) -> list[str]:
    problems = []
    for tag, attributes in read(html).elements:
        if tag not in ELEMENTS:
            problems.append(f"element <{tag}>")
        for name, value in attributes.items():
            if name.startswith("on") or name in ("style", "srcdoc", "formaction"):
                problems.append(f"attribute {name} on <{tag}>")
            if name in ("href", "src", "action") and not _address_ok(value.strip()):
                problems.append(f"address {value!r} in <{tag} {name}>")
        if tag == "script" and "src" not in attributes:
            problems.append("inline script")
    return problems
