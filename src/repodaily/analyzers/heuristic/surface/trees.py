"""Backends that arrive as a tree of their own: a new folder of modules with a container recipe named for it.

A server with pluggable hardware backends (an inference server's
``backends/neuron/``, ``backends/gaudi/``) adds one as a folder of new source
modules and a Dockerfile that builds the image users run it from
(``Dockerfile.neuron``, ``Dockerfile_gaudi``, ``neuron.Dockerfile``). No registry
line names such a backend: the launcher picks it by the image, so the tree and
its image are the whole registration. The rubric calls it a new backend, and the
commit's size must not be what says so: only a Dockerfile the commit adds whose
name ends in the folder's name, beside at least :data:`MIN_MODULES` new modules
in that folder under one named for backends or platforms, counts. A new
service's or an example's image is no backend.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from repodaily.models import ContextFile, FileStatus, SurfaceAction, SurfaceChange, SurfaceKind

__all__ = ["MIN_MODULES", "backend_trees"]

#: A Dockerfile named for what it builds: ``Dockerfile.neuron``, ``Dockerfile_gaudi``, ``neuron.Dockerfile``.
_NAMED_DOCKERFILE = re.compile(
    r"(?:^|/)(?:dockerfile[._-](?P<suffix>[a-z0-9][\w-]*)|(?P<prefix>[a-z0-9][\w-]*)\.dockerfile)$", re.I
)
#: Folders whose sub-folders are pluggable backends or platforms.
_FOLDERS = ("backends", "platforms")
#: The least number of new modules that make a folder a backend rather than a helper beside an image.
MIN_MODULES = 2


def backend_trees(manifests: Sequence[ContextFile], source: Sequence[ContextFile]) -> list[SurfaceChange]:
    """Backends a commit adds as a folder of new modules shipped by a new Dockerfile named for the folder."""
    added = [file.path.lower() for file in source if file.status == FileStatus.added]
    changes: list[SurfaceChange] = []
    for file in manifests:
        named = _NAMED_DOCKERFILE.search(file.path) if file.status == FileStatus.added else None
        if named is None:
            continue
        name = (named.group("suffix") or named.group("prefix")).lower()
        folders = tuple(f"{folder}/{name}/" for folder in _FOLDERS)
        modules = [path for path in added if any(path.startswith(f) or f"/{f}" in path for f in folders)]
        if len(modules) >= MIN_MODULES:
            changes.append(
                SurfaceChange(kind=SurfaceKind.backend, name=name, change=SurfaceAction.added, path=file.path)
            )
    return changes
