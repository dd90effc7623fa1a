"""Plugins the tests register in-process, through the registry's one door like any other."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

from repodaily.plugins import PluginSpec, registry

T = TypeVar("T", bound=Callable[..., Any])


def analyzer_plugin(name: str) -> Callable[[T], T]:
    """Class decorator: register the analyzer class as the plugin ``name`` (no settings)."""

    def decorator(factory: T) -> T:
        registry().add("analyzer", PluginSpec(name, factory))
        return factory

    return decorator
