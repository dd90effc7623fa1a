"""Checks of a built site as files: every relative link lands on a file and, with a fragment, on an id there."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

from html_checks import read


def pages(root: Path) -> list[Path]:
    return sorted(root.rglob("*.html"))


def broken_links(root: Path) -> list[str]:
    """Every link or resource address of the site's pages that does not resolve inside the site."""
    ids = {page: set(read(page.read_text(encoding="utf-8")).ids) for page in pages(root)}
    problems = []
    for page in pages(root):
        for _tag, attributes in read(page.read_text(encoding="utf-8")).elements:
            address = attributes.get("href") or attributes.get("src")
            if not address or address.startswith(("https://", "http://")):
                continue
            parts = urlsplit(address)
            if parts.scheme or parts.netloc or parts.path.startswith("/"):
                problems.append(f"{page.relative_to(root)}: absolute {address}")
                continue
            target = (page.parent / parts.path).resolve() if parts.path else page
            if not target.is_file() or root.resolve() not in target.parents:
                problems.append(f"{page.relative_to(root)}: {address} is no file of the site")
            elif parts.fragment and target.suffix == ".html" and parts.fragment not in ids[target]:
                problems.append(f"{page.relative_to(root)}: {address} names no id there")
    return problems
