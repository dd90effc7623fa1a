"""`repodaily site`: the stored reports as a static site, rebuilt incrementally, links relative and resolving."""

from __future__ import annotations

import json
import re
from datetime import timedelta

import pytest
from click.testing import CliRunner
from hostile_report import hostile_report
from html_checks import page_problems, read
from site_checks import broken_links, pages
from stored_reports import DEMO_DAY, DEMO_REPO_NAME, FIRST_DAY, LAST_DAY, fill_store

from repodaily.cli import main
from repodaily.models import DailyReport, RunInfo
from repodaily.site.builder import build_site
from repodaily.site.paths import repo_dir
from repodaily.store import Store

DAY_PAGE_LIMIT = 200_000


def _site(config, outdir, *extra: str):
    result = CliRunner().invoke(main, ["site", str(outdir), "--config", str(config), *extra])
    assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("site")
    config = fill_store(root)
    _site(config, root / "public")
    return root / "public"


def test_the_site_has_a_page_per_day_week_and_repository(built):
    repo = built / "r" / "demo-org" / "inferno"
    days = [FIRST_DAY + timedelta(days=n) for n in range((LAST_DAY - FIRST_DAY).days + 1)]
    assert sorted(p.name for p in (repo / "days").iterdir()) == [f"{d}.html" for d in days]
    assert sorted(p.name for p in (repo / "weeks").iterdir()) == ["2026-W09.html", "2026-W10.html"]
    for name in ("index.html", "search.html", "assets/site.css", "assets/site.js", "assets/search-index.js"):
        assert (built / name).is_file(), name
    assert (repo / "index.html").is_file()


def test_every_link_is_relative_and_lands_on_a_file_and_its_anchor(built):
    assert broken_links(built) == []


def test_every_page_is_inert_markup_with_a_strict_policy(built):
    for page in pages(built):
        html = page.read_text(encoding="utf-8")
        assert page_problems(html) == [], page
        assert "Content-Security-Policy" in html and "unsafe-inline" not in html, page


def test_a_day_page_is_the_day_report_with_the_markdown_anchors(built):
    page = built / "r" / "demo-org" / "inferno" / "days" / f"{DEMO_DAY}.html"
    html = page.read_text(encoding="utf-8")
    assert len(html.encode()) <= DAY_PAGE_LIMIT
    ids = read(html).ids
    markdown = (page.parents[5] / "reports").rglob(f"{DEMO_DAY}.md")
    anchors = [line.split('"')[1] for line in next(markdown).read_text().splitlines() if line.startswith("<a id=")]
    assert anchors and set(anchors) <= set(ids)


def test_a_rebuild_with_nothing_new_writes_nothing(built, tmp_path):
    config = built.parent / "repodaily.toml"
    before = {p: p.stat().st_mtime_ns for p in built.rglob("*")}
    result = _site(config, built)
    assert "0 files written" in result.stderr
    assert {p: p.stat().st_mtime_ns for p in built.rglob("*")} == before


def test_one_more_day_rewrites_only_what_shows_it(tmp_path):
    config = fill_store(tmp_path, until=DEMO_DAY)
    _site(config, tmp_path / "public")
    fill_store(tmp_path, since=LAST_DAY, until=LAST_DAY)
    with Store(tmp_path / "cache") as store:
        built = build_site(store, [DEMO_REPO_NAME], "zh", tmp_path / "public")
    repo = repo_dir(DEMO_REPO_NAME)
    assert sorted(built.files.written) == sorted(
        [
            f"{repo}/days/{LAST_DAY}.html",  # the new day
            f"{repo}/days/{DEMO_DAY}.html",  # its "next day" link
            f"{repo}/weeks/2026-W10.html",
            f"{repo}/index.html",
            "index.html",
            "assets/search-index.js",
        ]
    )
    assert built.files.removed == []


def test_a_rebuild_removes_only_what_an_earlier_build_wrote(tmp_path):
    config = fill_store(tmp_path, since=DEMO_DAY, until=DEMO_DAY)
    public = tmp_path / "public"
    _site(config, public)
    (public / "CNAME").write_text("reports.example\n")
    (public / "r" / "notes.txt").write_text("mine\n")
    with Store(tmp_path / "cache") as store:
        built = build_site(store, [], "zh", public)
    assert f"{repo_dir(DEMO_REPO_NAME)}/days/{DEMO_DAY}.html" in built.files.removed
    assert (public / "CNAME").read_text() == "reports.example\n" and (public / "r" / "notes.txt").exists()
    assert (public / "index.html").is_file()


def test_a_manifest_edited_to_name_files_outside_the_site_removes_none_of_them(tmp_path):
    config = fill_store(tmp_path, since=DEMO_DAY, until=DEMO_DAY)
    public, elsewhere = tmp_path / "public", tmp_path / "elsewhere"
    _site(config, public)
    elsewhere.mkdir()
    (public / "linked").symlink_to(elsewhere)
    victims = [tmp_path / "beside.txt", elsewhere / "through-a-link.txt", tmp_path / "absolute.txt"]
    for victim in victims:
        victim.write_text("not the site's\n")
    manifest = json.loads((public / ".repodaily-site.json").read_text())
    entry = next(iter(manifest["files"].values()))
    for named in ["../beside.txt", "linked/through-a-link.txt", str(victims[2]), "r/../../beside.txt"]:
        manifest["files"][named] = entry
    (public / ".repodaily-site.json").write_text(json.dumps(manifest))
    with Store(tmp_path / "cache") as store:
        built = build_site(store, [DEMO_REPO_NAME], "zh", public)
    assert built.files.removed == []
    assert all(victim.read_text() == "not the site's\n" for victim in victims)
    assert "../beside.txt" not in json.loads((public / ".repodaily-site.json").read_text())["files"]


def test_a_link_in_the_site_leading_out_of_it_is_written_through_nowhere(tmp_path):
    config = fill_store(tmp_path, since=DEMO_DAY, until=DEMO_DAY)
    public, elsewhere = tmp_path / "public", tmp_path / "elsewhere"
    elsewhere.mkdir()
    (public / "r" / "demo-org").mkdir(parents=True)
    (public / "r" / "demo-org" / "inferno").symlink_to(elsewhere)
    result = CliRunner().invoke(main, ["site", str(public), "--config", str(config)])
    assert result.exit_code == 3 and len(result.stderr.splitlines()) == 1, result.output
    assert "a link leads it out of the site directory" in result.stderr
    assert list(elsewhere.iterdir()) == []


def test_a_hostile_repository_name_stays_inside_its_folder(tmp_path):
    name = "../../evil/<script>"
    with Store(tmp_path / "cache") as store:
        store.put_report(DailyReport(repo=name, date=DEMO_DAY, timezone="UTC", run=RunInfo(analyzer="x")))
        build_site(store, [name], "zh", tmp_path / "public")
    written = [p.relative_to(tmp_path / "public") for p in (tmp_path / "public").rglob("*.html")]
    assert all(".." not in p.parts for p in written) and not (tmp_path / "evil").exists()
    assert broken_links(tmp_path / "public") == []
    for page in pages(tmp_path / "public"):
        assert page_problems(page.read_text(encoding="utf-8")) == []


def test_repositories_whose_names_reduce_alike_or_past_a_file_name_each_keep_their_own_pages(tmp_path):
    """Names a git host can hold that the path's safe characters cannot: neither overwrites another, nor fails."""
    names = ["o/a#b", "o/a?b", "o/a_b", "o/" + "x" * 300, "o/" + "x" * 299 + "y"]
    with Store(tmp_path / "cache") as store:
        for name in names:
            store.put_report(DailyReport(repo=name, date=DEMO_DAY, timezone="UTC", run=RunInfo(analyzer="x")))
        build_site(store, names, "zh", tmp_path / "public")
    folders = {repo_dir(name) for name in names}
    assert len(folders) == len(names) and max(len(folder) for folder in folders) < 100
    for name in names:
        assert name in (tmp_path / "public" / repo_dir(name) / "index.html").read_text(encoding="utf-8")
    assert broken_links(tmp_path / "public") == []


def test_the_search_index_is_a_script_assigning_every_commit(built):
    script = (built / "assets" / "search-index.js").read_text(encoding="utf-8")
    prefix = "window.REPODAILY_INDEX = "
    assert script.startswith(prefix) and script.rstrip().endswith(";")
    index = json.loads(script[len(prefix) :].rstrip().rstrip(";"))
    assert index["repos"] == [DEMO_REPO_NAME] and len(index["pages"]) == 5
    with Store(built.parent / "cache") as store:
        total = sum(r.stats.total for r in store.reports(DEMO_REPO_NAME, "zh"))
    assert len(index["commits"]) == total
    for page, anchor, short_sha, *_ in index["commits"]:
        assert anchor == f"c-{short_sha}" and index["pages"][page][2].startswith("r/demo-org/inferno/days/")


def test_the_search_index_shows_hostile_text_without_its_controls(tmp_path):
    # site.js shows the index with textContent: no markup, but a bidi override or an escape would still act.
    report = hostile_report()
    with Store(tmp_path / "cache") as store:
        store.put_report(report)
        build_site(store, [report.repo], report.language, tmp_path / "public")
    script = (tmp_path / "public" / "assets" / "search-index.js").read_text(encoding="utf-8")
    index = json.loads(script.removeprefix("window.REPODAILY_INDEX = ").rstrip().rstrip(";"))
    texts = [text for commit in index["commits"] for text in commit[3:5]]
    assert len(texts) == 2 * len(report.commits) and any("Fix the \ufffdgnp.exe" in text for text in texts)
    assert [
        text for text in texts if re.search("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", text)
    ] == []


def test_a_page_that_cannot_be_written_fails_in_one_line_and_leaves_no_half_page(tmp_path):
    config = fill_store(tmp_path, since=DEMO_DAY, until=DEMO_DAY)
    public = tmp_path / "public"
    (public / "index.html").mkdir(parents=True)  # a directory where the home page goes: no file replaces it
    (public / "index.html" / "keep").write_text("mine\n")
    result = CliRunner().invoke(main, ["site", str(public), "--config", str(config)])
    assert (result.exit_code, result.stdout) == (3, "")
    assert result.stderr.startswith(f"repodaily: error: cannot write {public / 'index.html'}: ")
    assert result.stderr.count("\n") == 1
    assert [p for p in public.rglob("*") if p.name.startswith(".tmp-")] == []


def test_english_sites_read_the_english_reports(tmp_path):
    config = fill_store(tmp_path, language="en", since=DEMO_DAY, until=DEMO_DAY)
    _site(config, tmp_path / "public")
    home = (tmp_path / "public" / "index.html").read_text(encoding="utf-8")
    assert '<html lang="en">' in home and "Watched repositories" in home


def test_an_unusable_output_directory_is_one_line_and_exit_2(tmp_path):
    config = fill_store(tmp_path, since=DEMO_DAY, until=DEMO_DAY)
    (tmp_path / "file").write_text("x")
    result = CliRunner().invoke(main, ["site", str(tmp_path / "file" / "public"), "--config", str(config)])
    assert result.exit_code == 2 and len(result.stderr.strip().splitlines()) == 1


def test_a_repository_neither_watched_nor_stored_is_one_line_and_exit_2(tmp_path):
    """``--repo`` with a typo would otherwise build an empty site and say nothing."""
    config = fill_store(tmp_path, since=DEMO_DAY, until=DEMO_DAY)
    result = CliRunner().invoke(
        main, ["site", str(tmp_path / "public"), "--config", str(config), "--repo", "demo-org/infern"]
    )
    assert result.exit_code == 2 and result.stderr.startswith("repodaily: error: --repo demo-org/infern: ")
    assert not (tmp_path / "public").exists()
    _site(config, tmp_path / "public", "--repo", DEMO_REPO_NAME)  # the control: the right name builds
    assert (tmp_path / "public" / "index.html").is_file()
