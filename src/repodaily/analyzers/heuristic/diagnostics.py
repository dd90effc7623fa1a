"""Whether a code file's patch changes only the calls that print a warning or a log line.

Code tells its users and operators what happens through warnings and logs:
Ruby's ``warn "...", uplevel: 1``, Python's ``logger.warning(...)`` and
``warnings.warn(...)``, JavaScript's ``console.warn(...)``, Rust's
``warn!(...)`` and ``tracing::debug!(...)``, Java's ``LOG.info(...)``, Go's
``log.Printf(...)``. A patch whose every changed line is such a call (its text
reworded, its level changed, the caller a deprecation warning points at, a
call added or dropped) leaves what the code does as it was: the rubric's
logging, low. A patch that touches any other line is none of these; so is one
whose call spans lines, since its continuation reads as code.
"""

from __future__ import annotations

import re

from repodaily.analyzers.heuristic.layout import changed_lines, only_set_aside
from repodaily.models import ContextFile

__all__ = ["diagnostics_only"]

#: One whole statement that warns or logs: a warning or logging function, a logger's method or a
#: logging macro, called with its arguments closed on the line (``)`` or Ruby's bare arguments).
_CALL = re.compile(
    r"""^\s*(?:
        (?:Kernel\.)?warn\s+\S.*                                         # Ruby's bare `warn msg, uplevel: 1`
      | (?:Kernel\.)?warn\(.*\)                                          # Ruby's `warn(msg)`
      | warnings\.warn\(.*\)                                             # Python
      | (?:self\.|this\.|@)?_?(?:logger|log|LOG|LOGGER|Log|logging)                # a logger's method
        \.(?:warn|warning|info|debug|error|trace|critical|fatal|exception|Printf|Println|Print)\w*\(.*\)
      | console\.(?:log|warn|error|info|debug)\(.*\)                     # JavaScript
      | (?:(?:log|tracing)::)?(?:warn|info|debug|error|trace)!\(.*\)    # Rust's macros
    )\s*[;,]?\s*$""",
    re.X,
)
#: The cheap test a patch passes before its lines are matched: it names a warning or a log call.
_MARKS = ("warn", "log", "LOG", "info", "debug", "error", "trace")


def diagnostics_only(file: ContextFile) -> bool:
    """Every hunk of the file's whole patch changes only warning or log calls, and one changes some."""
    if not any(mark in file.text for mark in _MARKS):
        return False
    return only_set_aside(file, _changes_diagnostics)


def _changes_diagnostics(hunk: str) -> bool | None:
    """Whether the hunk changes warning or log calls and nothing else (None: it changes code; False: nothing)."""
    removed, added = changed_lines(hunk)
    lines = [line for line in removed + added if line.strip()]
    if not all(_CALL.match(line) for line in lines):
        return None
    return bool(lines)
