"""One registry for every plugin: sources, context sources, analyzers, renderers and publishers.

Built-ins and third-party packages come in through the same door: the entry
points of the ``repodaily`` group, each a module implementing the hooks of
:mod:`repodaily.hookspecs` (this package declares its own built-ins there too,
in ``pyproject.toml``). Nothing here imports an implementation: a plugin module
is loaded when the registry is first asked, and a plugin's factory defers its
heavy imports (an HTTP client, a template engine) until it is called.

Each plugin owns a strict settings model. :meth:`Registry.settings` validates a
config table with it, so an unknown key is an error that names the file and the
key, whichever plugin the table belongs to.
"""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Any, Literal

import pluggy
from pydantic import BaseModel, ConfigDict, ValidationError

from repodaily import hookspecs
from repodaily.errors import ConfigError
from repodaily.models import TitleTag
from repodaily.tables import describe

__all__ = ["KINDS", "Health", "Kind", "NoSettings", "PluginSpec", "Registry", "registry"]

Kind = Literal["source", "context", "analyzer", "renderer", "publisher"]
KINDS: tuple[Kind, ...] = ("source", "context", "analyzer", "renderer", "publisher")
_HOOKS: dict[Kind, str] = {
    "source": "register_sources",
    "context": "register_contexts",
    "analyzer": "register_analyzers",
    "renderer": "register_renderers",
    "publisher": "register_publishers",
}


class NoSettings(BaseModel):
    """The settings of a plugin that takes none: any key is an error."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True)
class Health:
    """What ``doctor`` prints for one thing a plugin depends on (an endpoint, a server, a directory)."""

    target: str
    #: True: works; False: does not; None: could not tell.
    ok: bool | None
    #: Named findings in the order they are shown, e.g. ``{"auth": "yes", "latency": "0.31 s"}``.
    checks: dict[str, str] = field(default_factory=dict)
    problem: str = ""


@dataclass(frozen=True)
class PluginSpec:
    """What a plugin provides: a name, a factory, and the strict model of its settings.

    ``factory`` is called with keyword arguments only: ``settings`` (the
    validated model) and those of the kind, which each protocol's module lists.
    The optional hooks:

    - ``health(settings, environ)``: ``doctor``'s checks of what the plugin depends on;
    - ``from_environment(table, environ)``: the table completed from environment
      variables the plugin honours (the replaced tool's ``LLM_MODEL``), at config load only;
    - ``ready(settings)``: for analyzers, whether ``[analyzer] name = "auto"`` may pick
      it; the ready analyzer of highest ``rank`` is picked;
    - ``conventions(value)``: for analyzers, reads a repository's ``conventions``
      into a table, raising :class:`~repodaily.errors.ConfigError` when it is wrong;
    - ``preset(repo)``: for analyzers, the shipped conventions that declare the
      repository ``repo`` (``owner/name``), applied when it sets none of its own;
    - ``title_tags(table)``: for analyzers, what the title tags of a table that
      ``conventions`` returned mean, for the repository context every analyzer is given;
    - ``locate(location)``: for sources, the settings table that a location given on
      the command line (``repodaily report PATH_OR_URL``) means.
    """

    name: str
    factory: Callable[..., Any]
    settings: type[BaseModel] = NoSettings
    description: str = field(default="", compare=False)
    health: Callable[[Any, Mapping[str, str]], Awaitable[list[Health]]] | None = None
    from_environment: Callable[[dict[str, Any], Mapping[str, str]], dict[str, Any]] | None = None
    ready: Callable[[Any], bool] | None = None
    rank: int = 0
    conventions: Callable[[Any], dict[str, Any]] | None = None
    preset: Callable[[str], str | None] | None = None
    title_tags: Callable[[dict[str, Any]], list[TitleTag]] | None = None
    locate: Callable[[str], dict[str, Any]] | None = None


class _Added:
    """A plugin object made from one spec, so that in-process registration uses the same hooks."""

    def __init__(self, kind: Kind, spec: PluginSpec) -> None:
        setattr(self, _HOOKS[kind], hookspecs.hookimpl(specname=_HOOKS[kind])(lambda register: register(spec)))


class Registry:
    """The plugins of every kind, by name, as the hooks of the registered plugin modules report them."""

    def __init__(self, manager: pluggy.PluginManager, distributions: Mapping[str, str] | None = None) -> None:
        self.manager = manager
        #: The distribution (installed package) of each plugin loaded from an entry point, by plugin name.
        self.distributions = dict(distributions or {})

    def add(self, kind: Kind, spec: PluginSpec) -> PluginSpec:
        """Register ``spec`` from this process (an embedding program, a test); re-adding a name replaces it."""
        self.add_plugin(_Added(kind, spec), f"{kind}:{spec.name}")
        return spec

    def add_plugin(self, plugin: object, name: str) -> None:
        """Register a plugin object (hooks marked with ``hookimpl``) from this process, as an entry point would."""
        self.remove_plugin(name)
        self.manager.register(plugin, name=name)
        self._specs.cache_clear()

    def remove_plugin(self, name: str) -> None:
        """Unregister the plugin ``name``, if there is one."""
        if self.manager.has_plugin(name):
            self.manager.unregister(name=name)
            self._specs.cache_clear()

    @functools.cache  # noqa: B019 - the registry lives as long as the process; add() clears it
    def _specs(self, kind: Kind) -> dict[str, tuple[str, PluginSpec]]:
        found: dict[str, tuple[str, PluginSpec]] = {}
        for impl in getattr(self.manager.hook, _HOOKS[kind]).get_hookimpls():

            def register(spec: PluginSpec, owner: str = impl.plugin_name) -> None:
                if spec.name in found and found[spec.name][0] != owner:
                    raise ConfigError(
                        f"{kind} {spec.name!r} is registered by two plugins: {found[spec.name][0]} and {owner}"
                    )
                found[spec.name] = (owner, spec)

            impl.function(register=register)
        return found

    def specs(self, kind: Kind) -> dict[str, PluginSpec]:
        """Every plugin of ``kind`` by name."""
        return {name: spec for name, (_, spec) in self._specs(kind).items()}

    def owner(self, kind: Kind, name: str) -> str:
        """Who registered ``name``: the installed package and its entry point, or this process."""
        self.get(kind, name)
        plugin = self._specs(kind)[name][0]
        distribution = self.distributions.get(plugin)
        return f"{distribution} ({plugin})" if distribution else f"{plugin} (in-process)"

    def names(self, kind: Kind) -> list[str]:
        return sorted(self._specs(kind))

    def get(self, kind: Kind, name: str) -> PluginSpec:
        """The plugin ``name`` of ``kind``; a ConfigError listing the available ones when there is none."""
        specs = self._specs(kind)
        if name not in specs:
            known = ", ".join(sorted(specs)) or "none"
            raise ConfigError(f"unknown {kind} {name!r} (available: {known})")
        return specs[name][1]

    def settings(self, kind: Kind, name: str, table: Mapping[str, Any], source: str, *, at: str = "") -> Any:
        """``table`` validated by the settings model of plugin ``name``.

        Errors name ``source`` (a file) and the key, under ``at`` (where the table sits in it).
        """
        spec = self.get(kind, name)
        try:
            return spec.settings.model_validate(dict(table))
        except ValidationError as exc:
            raise ConfigError(describe(exc, source, at=at)) from None

    def create(
        self, kind: Kind, name: str, table: Mapping[str, Any], source: str, *, at: str = "", **context: Any
    ) -> Any:
        """A new plugin instance from its config ``table`` and the kind's keyword ``context``."""
        settings = self.settings(kind, name, table, source, at=at)
        return self.get(kind, name).factory(settings=settings, **context)


def _load_entry_points(manager: pluggy.PluginManager) -> dict[str, str]:
    """Register every module of the ``repodaily`` entry points; one that fails to load is a clear error.

    Returns the distribution of each, by plugin name.
    """
    distributions = {}
    for entry in entry_points(group=hookspecs.PROJECT):
        if manager.has_plugin(entry.name):
            continue  # the same distribution found twice on the path
        try:
            plugin = entry.load()
        except Exception as exc:
            raise ConfigError(f"plugin {entry.name!r} ({entry.value}) failed to load: {exc}") from exc
        manager.register(plugin, name=entry.name)
        distributions[entry.name] = entry.dist.name if entry.dist else "?"
    return distributions


@functools.cache
def registry() -> Registry:
    """The process's registry: the hooks, then every module of the ``repodaily`` entry points."""
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    distributions = _load_entry_points(manager)
    if not manager.get_plugins():
        raise ConfigError("no plugins found: repodaily is not installed (run `pip install -e .` in its checkout)")
    return Registry(manager, distributions)
