"""The HTML renderer: the Markdown report's sections and anchors, every foreign text escaped, a strict CSP."""

from __future__ import annotations

import base64
import hashlib
import html
import re
from datetime import date

import pytest
from hostile import ALL
from hostile_report import hostile_report
from html_checks import page_problems, read
from report_checks import fragment_links, headings, parse
from stored_reports import DEMO_DAY, DEMO_REPO_NAME, fill_store

from repodaily.render.anchors import github_slug
from repodaily.render.html import SitePage, render_html
from repodaily.render.markdown import render_markdown
from repodaily.store import Store


@pytest.fixture(scope="module")
def demo_report(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("html")
    fill_store(root, since=DEMO_DAY, until=DEMO_DAY)
    with Store(root / "cache") as store:
        (report,) = store.reports(DEMO_REPO_NAME, "zh")
    return report


def test_every_heading_has_the_id_github_gives_the_same_heading_in_the_markdown(demo_report):
    tokens = parse(render_markdown(demo_report))
    seen: dict[str, int] = {}
    slugs = [github_slug(heading.text, seen) for heading in headings(tokens)]
    page = read(render_html(demo_report))
    heading_ids = [attrs["id"] for tag, attrs in page.elements if tag in ("h1", "h2", "h3", "h4")]
    assert heading_ids == slugs


def test_every_link_of_the_markdown_toc_lands_on_an_element_of_the_page(demo_report):
    ids = set(read(render_html(demo_report)).ids)
    fragments = [link.removeprefix("#") for link in fragment_links(parse(render_markdown(demo_report)))]
    assert fragments and set(fragments) <= ids
    assert {f"c-{c.short_sha}" for c in demo_report.commits} <= ids


def test_each_commit_section_carries_its_importance_type_and_flags(demo_report):
    sections = {a["id"]: a for tag, a in read(render_html(demo_report)).elements if tag == "section"}
    for commit in demo_report.commits:
        section = sections[f"c-{commit.short_sha}"]
        flags = commit.analysis.flags
        assert section["data-importance"] == commit.analysis.importance.value
        assert section["data-type"] == commit.analysis.type.value
        assert (section["data-breaking"], section["data-security"], section["data-user-facing"]) == (
            str(int(flags.breaking)),
            str(int(flags.security)),
            str(int(flags.user_facing)),
        )


@pytest.mark.parametrize("language", ["zh", "en"])
def test_the_hostile_corpus_renders_inert_and_shows_as_text(language):
    report = hostile_report(language=language)
    for site in (None, SitePage(root="../../", filters=True)):
        page = render_html(report, site=site)
        assert page_problems(page) == []
        assert not re.search("[\u202a-\u202e\u2066-\u2069]", page), "a bidi scope would reorder the page's text"
        shown = "".join(read(page).text)
        for name, text in ALL.items():
            visible = " ".join(
                re.sub(r"[\x00-\x08\x0e-\x1f\x7f-\x84\x86-\x9f\u202a-\u202e\u2066-\u2069]", "\ufffd", text).split()
            )
            if visible:
                assert visible.split()[0] in shown, name


def test_a_page_alone_allows_only_its_own_stylesheet_by_hash(demo_report):
    page = render_html(demo_report)
    (policy,) = [html.unescape(p) for p in re.findall(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)]
    css = re.search(r"<style>(.*?)</style>", page, re.S).group(1)  # type: ignore[union-attr]
    digest = base64.b64encode(hashlib.sha256(css.encode()).digest()).decode()
    assert f"style-src 'sha256-{digest}'" in policy and "unsafe-inline" not in policy
    assert "script-src" not in policy and "<script" not in page


def test_a_site_page_loads_its_style_and_script_from_files_by_relative_links(demo_report):
    page = render_html(demo_report, site=SitePage(root="../../"))
    assert "<style" not in page and 'href="../../assets/site.css"' in page
    assert 'src="../../assets/site.js"' in page
    assert "script-src &#39;self&#39;" in page and "unsafe-inline" not in page


def test_format_html_writes_the_page_through_the_renderer_plugin(tmp_path):
    fill_store(tmp_path, since=DEMO_DAY, until=DEMO_DAY)
    from click.testing import CliRunner

    from repodaily.cli import main

    result = CliRunner().invoke(
        main,
        [
            "report",
            str(tmp_path / "repo"),
            "--name",
            DEMO_REPO_NAME,
            "--date",
            DEMO_DAY.isoformat(),
            "--format",
            "html",
        ],
    )
    assert result.exit_code in (0, 1), result.output
    assert result.stdout.startswith("<!DOCTYPE html>") and f"c-{date.today():%Y}" not in result.stdout
    assert page_problems(result.stdout) == []
