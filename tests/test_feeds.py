"""The site's feeds: RSS 2.0 and Atom 1.0, per repository and for the site, with what each specification requires."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from datetime import date, datetime, timedelta
from email.utils import parsedate_to_datetime

import pytest
from click.testing import CliRunner
from hostile_report import hostile_report
from site_checks import broken_links
from stored_reports import DEMO_REPO_NAME, fill_store

from repodaily.cli import main
from repodaily.site.feeds import FEED_ITEMS, atom_feed, rss_feed
from repodaily.store import Store

BASE = "https://acme.github.io/reports/"
A = "{http://www.w3.org/2005/Atom}"
RFC_3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$")


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("feeds")
    config = fill_store(root)
    result = CliRunner().invoke(main, ["site", str(root / "public"), "--config", str(config), "--base-url", BASE])
    assert result.exit_code == 0, result.output
    return root / "public"


def check_rss(data: bytes) -> list[ET.Element]:
    """The items of a valid RSS 2.0 document (asserted): channel title, link, description; each item's guid, date."""
    rss = ET.fromstring(data)
    assert rss.tag == "rss" and rss.get("version") == "2.0"
    (channel,) = rss.findall("channel")
    for name in ("title", "link", "description"):
        assert (channel.findtext(name) or "").strip(), name
    assert channel.findtext("link", "").startswith(BASE)
    items = channel.findall("item")
    guids = [item.findtext("guid") for item in items]
    assert len(set(guids)) == len(guids)
    for item in items:
        assert item.findtext("title") or item.findtext("description")
        assert item.findtext("link", "").startswith(BASE) and item.findtext("guid", "").startswith(BASE)
        assert parsedate_to_datetime(item.findtext("pubDate", "")).tzinfo is not None
    return items


def check_atom(data: bytes) -> list[ET.Element]:
    """The entries of a valid Atom 1.0 document (asserted): id, title, updated, author, self and alternate links."""
    feed = ET.fromstring(data)
    assert feed.tag == f"{A}feed"
    for name in ("id", "title", "updated"):
        assert (feed.findtext(f"{A}{name}") or "").strip(), name
    assert RFC_3339.match(feed.findtext(f"{A}updated", ""))
    assert feed.find(f"{A}author/{A}name") is not None
    rels = {link.get("rel"): link.get("href", "") for link in feed.findall(f"{A}link")}
    assert rels["self"].startswith(BASE) and rels["alternate"].startswith(BASE)
    entries = feed.findall(f"{A}entry")
    ids = [entry.findtext(f"{A}id") for entry in entries]
    assert len(set(ids)) == len(ids)
    for entry in entries:
        for name in ("id", "title", "updated"):
            assert (entry.findtext(f"{A}{name}") or "").strip(), name
        updated = entry.findtext(f"{A}updated", "")
        assert RFC_3339.match(updated) and datetime.fromisoformat(updated).tzinfo is not None
        (alternate,) = [link for link in entry.findall(f"{A}link") if link.get("rel") == "alternate"]
        assert alternate.get("href", "").startswith(BASE)
    return entries


def test_each_repository_and_the_site_have_valid_rss_and_atom_feeds(public):
    for folder in (public, public / "r" / "demo-org" / "inferno"):
        assert len(check_rss((folder / "feed.xml").read_bytes())) == 5
        assert len(check_atom((folder / "atom.xml").read_bytes())) == 5


def test_an_item_is_a_day_linking_to_its_page_newest_first(public):
    items = check_rss((public / "feed.xml").read_bytes())
    links = [item.findtext("link", "") for item in items]
    assert links == sorted(links, reverse=True)
    for link in links:
        assert (public / link.removeprefix(BASE)).is_file()
    busy = next(item for item in items if item.findtext("link", "").endswith("2026-03-02.html"))
    assert "Refuse pickled payloads" in busy.findtext("description", "")


def test_pages_link_to_their_feeds_and_the_links_resolve(public):
    day = (public / "r" / "demo-org" / "inferno" / "days" / "2026-03-02.html").read_text()
    assert '<link rel="alternate" type="application/rss+xml"' in day
    assert 'href="../../../../r/demo-org/inferno/atom.xml"' in day
    assert broken_links(public) == []


def test_without_a_base_url_no_feed_is_written_or_linked(tmp_path):
    config = fill_store(tmp_path, since=date(2026, 3, 2), until=date(2026, 3, 2))
    assert CliRunner().invoke(main, ["site", str(tmp_path / "public"), "--config", str(config)]).exit_code == 0
    assert not list((tmp_path / "public").rglob("*.xml"))
    assert "rss+xml" not in (tmp_path / "public" / "index.html").read_text()


@pytest.mark.parametrize(
    "base_url",
    [
        "javascript:x",
        "http://a b/",
        "https://",
        "https:///reports",
        "https://x.io/r?x=1",
        "https://x.io/#top",
        "https://x.io:0/",
        "https://x.io:99999/",
        "http://[::1",
        "https://x.io/\u202e/",
    ],
)
def test_a_base_url_that_is_no_site_address_is_one_line_and_exit_2(tmp_path, base_url):
    config = fill_store(tmp_path, since=date(2026, 3, 2), until=date(2026, 3, 2))
    result = CliRunner().invoke(main, ["site", str(tmp_path / "out"), "--config", str(config), "--base-url", base_url])
    assert result.exit_code == 2 and "--base-url" in result.stderr and len(result.stderr.splitlines()) == 1
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize(
    "base_url", ["https://bot:ghp_S1t3T0k3nAbCdEf0123456789@x.io/r/", "https://ghp_S1t3T0k3nAbCdEf0123456789@x.io/?q"]
)
def test_a_base_url_with_a_user_or_password_is_refused_without_showing_them(tmp_path, base_url):
    config = fill_store(tmp_path, since=date(2026, 3, 2), until=date(2026, 3, 2))
    result = CliRunner().invoke(main, ["site", str(tmp_path / "out"), "--config", str(config), "--base-url", base_url])
    assert result.exit_code == 2 and len(result.stderr.splitlines()) == 1
    assert "ghp_S1t3T0k3n" not in result.stderr and "//[redacted]@x.io/" in result.stderr
    assert not (tmp_path / "out").exists()


def test_the_hostile_corpus_stays_text_in_valid_feeds():
    report = hostile_report()
    for make, check in ((rss_feed, check_rss), (atom_feed, check_atom)):
        (item,) = check(make(BASE, "<b>x</b>", "index.html", "feed.xml", [report]))
        summary = item.findtext("description") or item.findtext(f"{A}summary") or ""
        assert "<img src=x onerror=alert(1)>" in summary and "\x00" not in summary


def test_a_bidi_override_in_a_title_is_shown_as_a_replacement_character_not_obeyed():
    report = hostile_report()
    report = report.model_copy(update={"commits": [c for c in report.commits if "\u202e" in c.subject]})
    for make, check in ((rss_feed, check_rss), (atom_feed, check_atom)):
        feed = make(BASE, "x", "index.html", "feed.xml", [report])
        (item,) = check(feed)
        assert "Fix the \ufffdgnp.exe" in ET.tostring(item, encoding="unicode")
        assert not re.search("[\u202a-\u202e\u2066-\u2069]", feed.decode())


def test_a_feed_carries_the_newest_days_only(tmp_path):
    with Store(tmp_path) as store:
        store.put_report(hostile_report())
        (report,) = store.reports("acme/widget", "zh")
    many = [report.model_copy(update={"date": report.date - timedelta(days=n)}) for n in range(FEED_ITEMS + 5)]
    items = check_rss(rss_feed(BASE, "t", "index.html", "feed.xml", many))
    assert len(items) == FEED_ITEMS and items[0].findtext("link", "").endswith(f"{report.date}.html")
    assert DEMO_REPO_NAME  # the demo's feeds are checked above
