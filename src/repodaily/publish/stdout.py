"""The ``stdout`` publisher: each report printed the moment it is made, for pipes and a quick look.

Several days of JSON form one array, so the output stays one JSON document;
Markdown days follow each other separated by a blank line.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from typing import TextIO

from repodaily.errors import ConfigError
from repodaily.hookspecs import Register, hookimpl
from repodaily.models import DailyReport
from repodaily.plugins import NoSettings, PluginSpec
from repodaily.publish.base import Delivery, PublishContext
from repodaily.render.base import Artefact

__all__ = ["StdoutPublisher"]


class StdoutPublisher:
    """Prints one artefact per report on standard output (redacted); a stream, so it has no locations."""

    #: Whoever reads stdout asked for the report now, whether or not it was printed before.
    repeatable = True

    def __init__(self, *, settings: NoSettings, context: PublishContext, stream: TextIO | None = None) -> None:
        self.context = context
        self._stream = stream
        self._printed = 0
        self._array = False

    @property
    def stream(self) -> TextIO:
        # Looked up when printing, not when made: a test runner or the CLI may swap sys.stdout meanwhile.
        stream = self._stream or sys.stdout
        if stream is None:  # started with stdout closed (`>&-`): nobody reads it, as when a pipe's reader left
            raise BrokenPipeError("standard output is closed")
        return stream

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        if len(artefacts) != 1:
            formats = ", ".join(a.format for a in artefacts)
            raise ConfigError(f"stdout takes one format, got {formats}; write files to get several")
        (artefact,) = artefacts
        text = self.context.redact(artefact.text)
        if self._printed == 0:
            self._array = artefact.format == "json" and self.context.days > 1
            separator = "[\n" if self._array else ""
        else:
            separator = ",\n" if self._array else "\n"
        self.stream.write(separator + (text.rstrip("\n") if self._array else text))
        self.stream.flush()
        self._printed += 1
        return Delivery("stdout")

    async def aclose(self) -> None:
        if self._array:
            self.stream.write("\n]\n")
            self.stream.flush()


@hookimpl
def register_publishers(register: Register) -> None:
    register(PluginSpec("stdout", StdoutPublisher, description="standard output, one format"))
