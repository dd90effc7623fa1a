"""The hooks a plugin implements: one per kind of stage that can be extended.

A plugin is a module (or any object) named by an entry point of the
``repodaily`` group — in this package's own metadata for the built-ins, in a
third party's for theirs. It implements one or more of these hooks with
:data:`hookimpl` and calls ``register`` once for each thing it provides::

    from repodaily.hookspecs import hookimpl
    from repodaily.plugins import PluginSpec

    @hookimpl
    def register_publishers(register):
        register(PluginSpec("s3", make_s3_publisher, settings=S3Settings))

Each kind has a protocol of its own, which is all the core knows of it:
:class:`~repodaily.sources.base.Source`, :class:`~repodaily.context.base.ContextSource`,
:class:`~repodaily.analyzers.base.Analyzer`,
:class:`~repodaily.render.base.Renderer` and :class:`~repodaily.publish.base.Publisher`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pluggy

__all__ = ["PROJECT", "Register", "hookimpl", "hookspec"]

PROJECT = "repodaily"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)

#: What a hook is handed: call it with a :class:`~repodaily.plugins.PluginSpec`.
Register = Callable[[Any], None]


@hookspec
def register_sources(register: Register) -> None:
    """Register sources: where a repository's commits come from (``source = NAME`` in ``[[repos]]``)."""


@hookspec
def register_contexts(register: Register) -> None:
    """Register context sources: what a platform adds to a day's commits (pull requests, releases; ``[NAME]``)."""


@hookspec
def register_analyzers(register: Register) -> None:
    """Register analyzers: what judges one commit (``[analyzer] name = NAME``, settings in ``[NAME]``)."""


@hookspec
def register_renderers(register: Register) -> None:
    """Register renderers: a report becomes named artefacts (``[output] formats = [NAME, …]``)."""


@hookspec
def register_publishers(register: Register) -> None:
    """Register publishers: where a rendered report is delivered (``[[publish]] type = NAME``)."""
