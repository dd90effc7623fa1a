"""The registry: one door for every plugin, strict settings, and clear errors when a name is wrong."""

from __future__ import annotations

import pytest
from pydantic import BaseModel, ConfigDict

from repodaily.errors import ConfigError
from repodaily.hookspecs import hookimpl
from repodaily.plugins import PluginSpec, registry


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid")
    size: int = 1


class _Renderer:
    def __init__(self, *, settings: _Settings, **_context: object) -> None:
        self.settings = settings


def test_a_plugin_added_in_process_is_made_with_its_validated_settings() -> None:
    registry().add("renderer", PluginSpec("test-sized", _Renderer, settings=_Settings))
    made = registry().create("renderer", "test-sized", {"size": 3}, "test")
    assert isinstance(made, _Renderer) and made.settings.size == 3
    assert "test-sized" in registry().names("renderer")
    assert registry().owner("renderer", "test-sized") == "renderer:test-sized (in-process)"


def test_an_unknown_key_names_the_source_and_the_key_under_its_table() -> None:
    registry().add("renderer", PluginSpec("test-sized", _Renderer, settings=_Settings))
    with pytest.raises(ConfigError, match=r"^my\.toml: render\.sizes: unknown key$"):
        registry().settings("renderer", "test-sized", {"sizes": 3}, "my.toml", at="render.")


def test_an_unknown_name_lists_the_available_ones() -> None:
    with pytest.raises(ConfigError, match=r"unknown publisher 'nope' \(available: .*files.*stdout"):
        registry().get("publisher", "nope")


def test_two_plugins_registering_one_name_is_an_error_naming_both() -> None:
    class Impostor:
        @hookimpl
        def register_publishers(self, register):  # type: ignore[no-untyped-def]
            register(PluginSpec("files", _Renderer))

    plugins = registry()
    plugins.add_plugin(Impostor(), "impostor")
    try:
        with pytest.raises(ConfigError, match=r"publisher 'files' is registered by two plugins: .*impostor"):
            plugins.get("publisher", "files")
    finally:
        plugins.remove_plugin("impostor")
    assert plugins.get("publisher", "files").settings.__name__ == "FilesSettings"
