"""Whether a code file's patch changes only the calls that print a warning or a log line.

Code tells its users and operators what happens through warnings and logs:
Ruby's ``warn "...", uplevel: 1``, Python's ``logger.warning(...)`` and
``warnings.warn(...)``, JavaScript's ``console.warn(...)``, Rust's
``warn!(...)`` and ``tracing::debug!(...)``, Java's ``LOG.info(...)``, Go's
``log.Printf(...)``. A patch whose every changed line is such a call (its text
reworded, its level changed, the caller a deprecation warning points at, a
call added or dropped) leaves what the code does as it was: the rubric's
logging, low. A call a formatter wraps over several lines (black, yapf and
rustfmt break long ones after the opening parenthesis) counts whole, from the
line that opens it to the one whose parenthesis closes it, when the hunk shows
both: its continuation lines are its arguments, not code. A patch that touches
any other line is none of these.
"""

from __future__ import annotations

import re

from repodaily.analyzers.heuristic.layout import changed_lines, marked_sides, only_set_aside
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
#: The line that opens such a call and leaves its parenthesis open: a formatter wrapped the arguments.
_OPENING = re.compile(
    r"""^\s*(?:
        warnings\.warn
      | (?:self\.|this\.|@)?_?(?:logger|log|LOG|LOGGER|Log|logging)
        \.(?:warn|warning|info|debug|error|trace|critical|fatal|exception|Printf|Println|Print)\w*
      | console\.(?:log|warn|error|info|debug)
      | (?:(?:log|tracing)::)?(?:warn|info|debug|error|trace)!
    )\(""",
    re.X,
)
#: The line that closes the wrapped call: nothing follows its parenthesis but a statement's end.
_CLOSING = re.compile(r"\)\s*[;,]?\s*$")
#: A string literal on one line, whose brackets are text and not the call's.
_STRING = re.compile(r""""(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'""")
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
    if all(_CALL.match(line) for line in lines):
        return bool(lines)
    if not any(_OPENING.match(line) for line in hunk.split("\n")):
        return None
    before, after = marked_sides(hunk)
    return True if _only_in_calls(before) and _only_in_calls(after) else None


def _only_in_calls(side: list[tuple[bool, str]]) -> bool:
    """Every changed line of one side is, or lies inside, a warning or log call the side shows whole."""
    depth = 0  # open parentheses of the wrapped call the walk is in; 0: outside any
    for changed, text in side:
        if depth == 0 and _CALL.match(text):
            continue
        if depth == 0 and _OPENING.match(text):
            depth = _balance(text)
            if depth <= 0:
                return False  # closed on its line but followed by code: not the whole statement
            continue
        if depth > 0:
            depth += _balance(text)
            if depth < 0 or (depth == 0 and not _CLOSING.search(text)):
                return False
            continue
        if changed and text.strip():
            return False
    return depth == 0


def _balance(line: str) -> int:
    """How many parentheses the line opens and leaves open, outside its string literals."""
    code = _STRING.sub("", line)
    return code.count("(") - code.count(")")
