"""Shared fixtures: every test gets its own config, cache and output directories."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

pytest_plugins = ["llm_server"]


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
