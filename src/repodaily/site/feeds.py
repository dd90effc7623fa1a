"""RSS 2.0 and Atom 1.0 feeds of a site: per repository and for the whole site, one item per reported day.

One item per day, not per change: a day's report is the unit repodaily makes and
a reader opens, and a busy repository lands dozens of commits a day (vLLM ~28,
up to 69), which as items would bury everything else in a reader; the item names
the day's high-importance, breaking and security changes and links to the day's
page, where each has its section. An item's id is its day page's address, so a
rerun that rewrites a day updates its item instead of adding one.

Feeds need absolute addresses (RSS 2.0 links are URLs; Atom ids are IRIs), so
they are written only when the site's public address is known
(``site --base-url``). Dates are the end of the reported day in its timezone:
RFC 822 in RSS, RFC 3339 in Atom. The XML is built by ElementTree, which escapes
every text, so commit titles cannot add markup.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from datetime import datetime, time
from email.utils import format_datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from repodaily.controls import controls_except
from repodaily.models import DailyReport, Importance
from repodaily.render.labels import LABELS
from repodaily.render.markdown import commit_title
from repodaily.site import paths

__all__ = ["FEED_ITEMS", "atom_feed", "day_time", "rss_feed"]

#: The newest days a feed carries.
FEED_ITEMS = 60
ATOM = "http://www.w3.org/2005/Atom"
_NAMED = 8
# The controls a feed reader would act on instead of showing; the whitespace XML keeps stays.
_CONTROL = controls_except("\t\n\r")
# What XML 1.0 cannot carry at all (ElementTree would write it and break the feed), and those controls.
_NOT_SHOWN = re.compile(f"[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]|{_CONTROL.pattern}")


def day_time(report: DailyReport) -> datetime:
    """When a day's report is complete: the last second of the day in its timezone."""
    try:
        zone = ZoneInfo(report.timezone)
    except (ZoneInfoNotFoundError, ValueError, OSError):  # a hand-made report's; the pipeline's are checked
        zone = ZoneInfo("UTC")
    return datetime.combine(report.date, time(23, 59, 59), zone)


def _title(report: DailyReport) -> str:
    stats, labels = report.stats, LABELS[report.language]
    counts = " ".join(f"{labels.importance_names[level]} {getattr(stats, level.value)}" for level in Importance)
    commits = labels.commits.format(n=stats.total, s="" if stats.total == 1 else "s")
    return f"{report.repo} {report.date}: {commits} ({counts})"


def _summary(report: DailyReport) -> str:
    """The day's high-importance, breaking and security changes, one per line, as plain text."""
    labels = LABELS[report.language]
    if not report.commits:
        return labels.empty_day
    named = [
        c
        for c in report.commits
        if c.analysis.importance == Importance.high or c.analysis.flags.breaking or c.analysis.flags.security
    ]
    lines = [f"{labels.stats_total.format(n=report.stats.total, s='' if report.stats.total == 1 else 's')}"]
    for commit in named[:_NAMED]:
        marks = "".join(
            mark
            for mark, flag in (("💥", commit.analysis.flags.breaking), ("🔒", commit.analysis.flags.security))
            if flag
        )
        lines.append(f"- {marks}{commit_title(commit)} ({commit.short_sha}): {commit.analysis.one_line}")
    if len(named) > _NAMED:
        lines.append(f"- … +{len(named) - _NAMED}")
    return "\n".join(lines)


def _newest(reports: Sequence[DailyReport]) -> list[DailyReport]:
    return sorted(reports, key=lambda r: (day_time(r), r.repo), reverse=True)[:FEED_ITEMS]


def _xml(root: ET.Element) -> bytes:
    ET.indent(root)
    data: bytes = ET.tostring(root, encoding="utf-8", xml_declaration=True)
    return data + b"\n"


def _text(parent: ET.Element, tag: str, text: str, **attributes: str) -> ET.Element:
    """A child element holding ``text``; characters XML 1.0 cannot hold (NUL, most controls) shown as U+FFFD."""
    element = ET.SubElement(parent, tag, attributes)
    element.text = _NOT_SHOWN.sub("\ufffd", text)
    return element


def rss_feed(base: str, title: str, page: str, feed: str, reports: Sequence[DailyReport]) -> bytes:
    """An RSS 2.0 feed of ``reports``' days: ``page`` is the site page it stands for, ``feed`` its own path."""
    rss = ET.Element("rss", {"version": "2.0", "xmlns:atom": ATOM})
    channel = ET.SubElement(rss, "channel")
    _text(channel, "title", title)
    _text(channel, "link", base + page)
    _text(channel, "description", title)
    ET.SubElement(channel, "atom:link", {"href": base + feed, "rel": "self", "type": "application/rss+xml"})
    _text(channel, "generator", "repodaily")
    for report in _newest(reports):
        address = base + paths.day_page(report.repo, report.date)
        item = ET.SubElement(channel, "item")
        _text(item, "title", _title(report))
        _text(item, "link", address)
        _text(item, "guid", address, isPermaLink="true")
        _text(item, "pubDate", format_datetime(day_time(report)))
        _text(item, "description", _summary(report))
    return _xml(rss)


def atom_feed(base: str, title: str, page: str, feed: str, reports: Sequence[DailyReport]) -> bytes:
    """An Atom 1.0 feed of ``reports``' days, as :func:`rss_feed`."""
    root = ET.Element("feed", {"xmlns": ATOM})
    newest = _newest(reports)
    _text(root, "id", base + feed)
    _text(root, "title", title)
    updated = max((day_time(r) for r in newest), default=datetime(1970, 1, 1, tzinfo=ZoneInfo("UTC")))
    _text(root, "updated", updated.isoformat())
    author = ET.SubElement(root, "author")
    _text(author, "name", "repodaily")
    ET.SubElement(root, "link", {"rel": "self", "href": base + feed, "type": "application/atom+xml"})
    ET.SubElement(root, "link", {"rel": "alternate", "href": base + page, "type": "text/html"})
    _text(root, "generator", "repodaily")
    for report in newest:
        address = base + paths.day_page(report.repo, report.date)
        entry = ET.SubElement(root, "entry")
        _text(entry, "id", address)
        _text(entry, "title", _title(report))
        _text(entry, "updated", day_time(report).isoformat())
        ET.SubElement(entry, "link", {"rel": "alternate", "href": address, "type": "text/html"})
        _text(entry, "summary", _summary(report), type="text")
    return _xml(root)
