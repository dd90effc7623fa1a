"""Unit tests kept in the file they test: Rust's ``#[cfg(test)] mod tests``.

Rust puts a module's unit tests in a test module at the end of its own source
file, so a commit that only adds or fixes such tests changes a source file by
path while the released program does not change at all. Git names the
enclosing item of each hunk in its header (``@@ -735,4 +735,20 @@ mod tests {``),
and a hunk that reaches the module shows its ``#[cfg(test)]`` or ``mod tests {``
line: a patch whose every changed line lies below one of them changes only tests.
"""

from __future__ import annotations

import re

from repodaily.models import ContextFile

__all__ = ["only_unit_tests"]

#: The opening of a test module: its attribute or its declaration.
_TEST_MODULE = re.compile(r"\s*(#\[cfg\(test\)\]|(pub(\([\w:]+\))?\s+)?mod\s+tests?\s*\{)")
#: A hunk header and the enclosing item git names after it.
_HUNK = re.compile(r"@@ [^@]* @@ ?(?P<context>.*)")


def only_unit_tests(file: ContextFile) -> bool:
    """A Rust file whose patch changes lines, every one of them inside the file's test module."""
    if not file.path.endswith(".rs"):
        return False
    seen = inside = in_hunk = False
    for line in file.text.splitlines():
        hunk = _HUNK.match(line)
        if hunk is not None:
            in_hunk = True
            inside = _TEST_MODULE.match(hunk.group("context")) is not None
            continue
        if not in_hunk:
            continue  # the file header: `diff --git`, `---`, `+++`
        text = line[1:]
        if _TEST_MODULE.match(text) is not None:
            inside = True
        if line[:1] in ("+", "-") and text.strip():
            if not inside:
                return False
            seen = True
    return seen
