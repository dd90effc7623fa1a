"""Implementations a program registers by importing them for their side effect: Go's blank imports.

A Go program with pluggable implementations (model architectures, backends)
lists them in one file of blank imports, ``_ "example.com/app/model/models/llama"``:
each package's ``init`` registers itself, so the line is the whole registration
and the package's name is what users select. The folder that holds such
packages says what they are; only folders named for models or backends are
read, so a driver or a codec imported the same way registers nothing here.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from repodaily.analyzers.heuristic.surface.extractors import Extractor, Found
from repodaily.analyzers.heuristic.surface.sides import Side
from repodaily.models import SurfaceKind

__all__ = ["REGISTRATIONS"]

#: A blank import on a line of its own, inside an import block or alone: the package path's last two parts.
_BLANK_IMPORT = re.compile(r'^\s*(?:import\s+)?_\s+"(?:[^"\s]*/)?(?P<folder>[\w.-]+)/(?P<name>[\w.-]+)"', re.M)
#: What the folder of registered packages says they are.
_FOLDERS = {
    "models": SurfaceKind.model_arch,
    "model": SurfaceKind.model_arch,
    "architectures": SurfaceKind.model_arch,
    "backends": SurfaceKind.backend,
    "backend": SurfaceKind.backend,
}


def blank_imports(side: Side) -> Iterator[Found]:
    """Model architectures and backends a Go file registers by a blank import of their package."""
    for line in _BLANK_IMPORT.finditer(side.text):
        kind = _FOLDERS.get(line.group("folder"))
        if kind is not None:
            yield Found(kind, line.group("name"))


REGISTRATIONS = (Extractor(blank_imports, lambda path, patch: path.endswith(".go") and '_ "' in patch),)
