"""The built site in a real browser: from file:// and from a sub-path over HTTP, search, filters, anchors, keyboard,
phone width and dark mode, and a site built from the hostile corpus that runs nothing and asks no host for anything.
"""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import TypeVar

import pytest
from browser import ARTIFACTS, chromium  # noqa: F401  # the fixture
from click.testing import CliRunner
from hostile_report import hostile_report
from stored_reports import DEMO_DAY, DEMO_REPO_NAME, fill_store

from repodaily.cli import main
from repodaily.site.builder import build_site
from repodaily.store import Store

pytestmark = pytest.mark.browser
T = TypeVar("T")

DAY = f"r/demo-org/inferno/days/{DEMO_DAY}.html"
WEEK = "r/demo-org/inferno/weeks/2026-W10.html"
PAGES = ["index.html", "search.html", "r/demo-org/inferno/index.html", DAY, WEEK]


def _aside(function: Callable[[], T]) -> T:
    """``function()`` in a thread of its own: Playwright's sync API keeps an event loop running in this one."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(function).result()


@pytest.fixture(scope="module")
def public(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("browse")
    config = _aside(lambda: fill_store(root))
    site = root / "serve" / "reports"  # served under the sub-path /reports/
    args = ["site", str(site), "--config", str(config), "--base-url", "https://acme.github.io/reports/"]
    assert _aside(lambda: CliRunner().invoke(main, args)).exit_code == 0
    return site


@pytest.fixture(scope="module")
def served(public: Path):
    """The site over HTTP under the sub-path ``/reports/``, as GitHub Pages serves a project's site."""
    handler = functools.partial(_QuietHandler, directory=str(public.parent))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/reports/"
    server.shutdown()


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


class Visit:
    """A page opened in a fresh tab, with everything it logged, raised, asked for and tried to show."""

    def __init__(self, browser, url: str, *, width: int = 1200, scheme: str = "light") -> None:
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.dialogs: list[str] = []
        self.page = browser.new_page(viewport={"width": width, "height": 900}, color_scheme=scheme)
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type in ("error", "warning") else None)
        self.page.on("pageerror", lambda e: self.errors.append(str(e)))
        self.page.on("dialog", self._dialog)
        self.page.route("**/*", self._route)
        self.page.goto(url)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _route(self, route) -> None:
        self.requests.append(route.request.url)
        route.continue_()

    def close(self) -> None:
        self.page.close()


def _visit(browser, url: str, **options):
    visit = Visit(browser, url, **options)
    return visit


@pytest.mark.parametrize("path", PAGES)
def test_each_page_loads_from_file_with_no_console_error(chromium, public, path):  # noqa: F811
    visit = _visit(chromium, (public / path).as_uri())
    try:
        assert visit.errors == []
        assert all(url.startswith("file://") for url in visit.requests), visit.requests
        assert visit.page.title()
    finally:
        visit.close()


@pytest.mark.parametrize("path", PAGES)
def test_each_page_loads_from_a_sub_path_with_every_resource(chromium, served, path):  # noqa: F811
    visit = _visit(chromium, served + path)
    try:
        assert visit.errors == []
        assert all(url.startswith(served) for url in visit.requests), visit.requests
        sheet = visit.page.evaluate("getComputedStyle(document.body).fontFamily")
        assert "system-ui" in sheet  # the stylesheet loaded
    finally:
        visit.close()


def test_search_finds_a_known_commit_and_lands_on_its_section(chromium, public):  # noqa: F811
    with Store(public.parents[1] / "cache") as store:
        (report,) = store.reports(DEMO_REPO_NAME, "zh", DEMO_DAY, DEMO_DAY)
    known = next(c for c in report.commits if "pickled" in c.subject)
    visit = _visit(chromium, (public / "search.html").as_uri())
    try:
        visit.page.fill("#search", "pickled payloads")
        results = visit.page.locator("#results li a")
        assert results.count() == 1
        assert results.first.get_attribute("href") == f"{DAY}#c-{known.short_sha}"
        results.first.click()
        visit.page.wait_for_url(f"**/{DEMO_DAY}.html#c-{known.short_sha}")
        assert visit.page.locator(f"#c-{known.short_sha}").is_visible()
        assert visit.page.evaluate(f"document.getElementById('c-{known.short_sha}').getBoundingClientRect().top") < 200
        assert visit.errors == []
    finally:
        visit.close()


def test_search_filters_by_importance_type_and_flags(chromium, public):  # noqa: F811
    visit = _visit(chromium, (public / "search.html").as_uri())
    try:
        page = visit.page
        everything = page.locator("#results li").count()
        assert everything > 10
        page.check("input[name=flag][value=security]")
        secure = page.locator("#results li").count()
        assert 0 < secure < everything
        page.uncheck("input[name=flag][value=security]")
        page.select_option("select[name=type]", "docs")
        assert all("文档更新" in text for text in page.locator("#results li div.muted").all_text_contents())
        page.select_option("select[name=type]", "")
        for level in ("high", "medium"):
            page.uncheck(f"input[name=importance][value={level}]")
        assert all(text.startswith("🟢") for text in page.locator("#results li a").all_text_contents())
    finally:
        visit.close()


def _shown(page) -> dict[str, bool]:
    return page.evaluate(
        "Object.fromEntries([...document.querySelectorAll('section.commit')].map(s => [s.id, !s.hidden]))"
    )


def test_day_filters_hide_and_show_the_right_sections(chromium, public):  # noqa: F811
    visit = _visit(chromium, (public / DAY).as_uri())
    try:
        page = visit.page
        sections = page.evaluate(
            "[...document.querySelectorAll('section.commit')].map(s => ({id: s.id, ...s.dataset}))"
        )
        assert all(_shown(page).values())
        page.uncheck("input[name=importance][value=low]")
        assert _shown(page) == {s["id"]: s["importance"] != "low" for s in sections}
        assert page.locator("li[data-for]:visible").count() == sum(s["importance"] != "low" for s in sections)
        page.check("input[name=importance][value=low]")
        page.select_option("select[name=type]", "docs")
        assert _shown(page) == {s["id"]: s["type"] == "docs" for s in sections}
        page.select_option("select[name=type]", "")
        page.check("input[name=flag][value=breaking]")
        assert _shown(page) == {s["id"]: s["breaking"] == "1" for s in sections}
        assert any(_shown(page).values())
        page.check("input[name=flag][value=security]")
        assert _shown(page) == {s["id"]: s["breaking"] == "1" and s["security"] == "1" for s in sections}
    finally:
        visit.close()


def test_every_toc_link_lands_on_its_target(chromium, public):  # noqa: F811
    visit = _visit(chromium, (public / DAY).as_uri())
    try:
        page = visit.page
        links = page.locator("ul.toc a")
        assert links.count() > 5
        for index in range(links.count()):
            target = links.nth(index).get_attribute("href").removeprefix("#")
            links.nth(index).click()
            assert page.evaluate("decodeURIComponent(location.hash)") == f"#{target}"
            top = page.evaluate(f"document.getElementById({target!r}).getBoundingClientRect().top")
            bottom = page.evaluate("scrollY + innerHeight >= document.documentElement.scrollHeight - 1")
            assert -2 < top < (900 if bottom else 50), target  # at the top, or as far as the page scrolls
    finally:
        visit.close()


def test_keys_jump_between_commits_and_to_search(chromium, public):  # noqa: F811
    visit = _visit(chromium, (public / DAY).as_uri())
    try:
        page = visit.page
        first, second = page.evaluate("[...document.querySelectorAll('section.commit')].slice(0, 2).map(s => s.id)")
        page.keyboard.press("j")
        assert page.evaluate("location.hash") == f"#{first}"
        page.keyboard.press("j")
        assert page.evaluate("location.hash") == f"#{second}"
        page.keyboard.press("k")
        assert page.evaluate("location.hash") == f"#{first}"
        page.keyboard.press("/")
        page.wait_for_url("**/search.html")
        page.keyboard.press("/")
        assert page.evaluate("document.activeElement.id") == "search"
    finally:
        visit.close()


@pytest.mark.parametrize("path", [DAY, WEEK, "index.html", "r/demo-org/inferno/index.html"])
def test_a_phone_shows_no_sideways_scroll(chromium, public, path):  # noqa: F811
    visit = _visit(chromium, (public / path).as_uri(), width=360)
    try:
        assert visit.page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    finally:
        visit.close()


def test_dark_mode_follows_the_system(chromium, public):  # noqa: F811
    colours = {}
    for scheme in ("light", "dark"):
        visit = _visit(chromium, (public / DAY).as_uri(), scheme=scheme)
        colours[scheme] = visit.page.evaluate("getComputedStyle(document.body).backgroundColor")
        visit.close()
    assert colours == {"light": "rgb(255, 255, 255)", "dark": "rgb(13, 17, 23)"}


def test_screenshots_of_home_day_and_week(chromium, public):  # noqa: F811
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    shots = [
        ("home", "index.html", 1200, "light"),
        ("day", DAY, 1200, "light"),
        ("day-phone-dark", DAY, 390, "dark"),
        ("week", WEEK, 1200, "light"),
        ("timeline", "r/demo-org/inferno/index.html", 1200, "dark"),
    ]
    for name, path, width, scheme in shots:
        visit = _visit(chromium, (public / path).as_uri(), width=width, scheme=scheme)
        visit.page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=name != "day")
        visit.close()
        assert (ARTIFACTS / f"{name}.png").stat().st_size > 10_000


@pytest.fixture(scope="module")
def hostile_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("hostile")
    with Store(root / "cache") as store:
        store.put_report(hostile_report())
        build_site(store, ["acme/widget"], "zh", root / "public", base_url="https://acme.github.io/reports/")
    return root / "public"


@pytest.mark.parametrize(
    "path", ["r/acme/widget/days/2026-03-02.html", "r/acme/widget/weeks/2026-W10.html", "index.html"]
)
def test_a_site_of_the_hostile_corpus_runs_nothing_and_asks_no_host(chromium, hostile_site, path):  # noqa: F811
    visit = _visit(chromium, (hostile_site / path).as_uri())
    try:
        page = visit.page
        page.mouse.move(200, 300)
        for index in range(min(page.locator("main img, main svg, main iframe").count(), 5)):
            page.locator("main img, main svg, main iframe").nth(index).hover()
        page.keyboard.press("j")
        assert visit.dialogs == []
        assert all(url.startswith("file://") for url in visit.requests), visit.requests
        assert page.locator("main script, main img, main iframe, main object, main embed").count() == 0
        assert page.evaluate("document.querySelectorAll('[onerror],[onclick],[onload]').length") == 0
        assert visit.errors == []
    finally:
        visit.close()


def test_searching_the_hostile_corpus_shows_it_as_text(chromium, hostile_site):  # noqa: F811
    visit = _visit(chromium, (hostile_site / "search.html").as_uri())
    try:
        page = visit.page
        page.fill("#search", "onerror")
        assert page.locator("#results li").count() > 0
        assert page.locator("#results img, #results script").count() == 0
        assert "<img src=x onerror=alert(1)>" in page.locator("#results").inner_text()
        assert visit.dialogs == [] and all(url.startswith("file://") for url in visit.requests)
    finally:
        visit.close()
