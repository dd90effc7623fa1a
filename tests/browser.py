"""The system Chromium driven by Playwright, for the site's browser tests, and where their screenshots go.

Playwright cannot download its own browser here; it drives Debian's
``/usr/bin/chromium`` (``make setup`` installs it). Without it, or without the
``playwright`` package, the tests that need a browser are skipped, saying why.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")
ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Screenshots for a person to look at: git-ignored, never committed.
ARTIFACTS = Path(os.environ.get("REPODAILY_ARTIFACTS", Path(__file__).parent.parent / ".artifacts" / "browser"))


@pytest.fixture(scope="module")
def chromium() -> Iterator[object]:
    """One headless Chromium for a module's tests."""
    playwright = pytest.importorskip("playwright.sync_api", reason="the playwright package is not installed")
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing: `make setup` installs it (as root)")
    with playwright.sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        yield browser
        browser.close()
