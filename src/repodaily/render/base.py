"""The renderer protocol: a report becomes named artefacts.

A renderer is made by the factory its plugin registers, called with keyword
arguments ``settings`` (its own model, validated from ``[render.NAME]``) and
``templates_dir`` (the user's template directory, or None). ``[output] formats``
names the renderers a run uses; each artefact carries the suffix a file
publisher gives it and the media type a web publisher sends it as.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from repodaily.models import DailyReport

__all__ = ["Artefact", "Renderer"]


@dataclass(frozen=True)
class Artefact:
    """One rendered form of a report: ``format`` names it (``md``), ``suffix`` ends its file name."""

    format: str
    suffix: str
    media_type: str
    text: str


@runtime_checkable
class Renderer(Protocol):
    """Turns one report into its artefacts; pure, no I/O beyond reading templates."""

    def render(self, report: DailyReport) -> list[Artefact]:
        """The artefacts of ``report``; :class:`~repodaily.errors.RenderError` when a template fails."""
        ...
