"""Shared fixtures: every test gets its own config, cache and output directories."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest_plugins = ["llm_server"]


@pytest.fixture(scope="session", autouse=True)
def _no_home_for_the_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Keep the user's home and cache out of module- and session-scoped fixtures too.

    They are made before each test's own isolation below, so without this a fixture
    that runs the CLI once for a module would write the user's own store.
    """
    root = tmp_path_factory.mktemp("session-home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(root / "home"))
        patch.setenv("XDG_CACHE_HOME", str(root / "xdg-cache"))
        patch.delenv("REPODAILY_CONFIG", raising=False)
        yield


@pytest.fixture(autouse=True)
def _isolated_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the user's home, cache and config out of every test."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))
    monkeypatch.delenv("REPODAILY_CONFIG", raising=False)
    for name in list(os.environ):
        if name.startswith("REPODAILY__") or name in ("LLM_MODEL", "LLM_BASE_URL", "LLM_API_KEY"):
            monkeypatch.delenv(name)
    monkeypatch.chdir(tmp_path)


#: The GitHub context source's entry point (pyproject.toml): the name its plugin is registered under.
GITHUB_CONTEXT = "github-context"


@pytest.fixture(autouse=True)
def _no_platform_context() -> None:
    """Keep GitHub out of every test: the context source reads pull requests of any github.com repository.

    The tests of the context source register it again, against a local fake (tests/test_github_context.py).
    """
    from repodaily.plugins import registry

    registry().remove_plugin(GITHUB_CONTEXT)
