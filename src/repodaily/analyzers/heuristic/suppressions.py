"""Whether a code file's patch only adds or drops directives that silence a compiler's or linter's warning.

A new compiler release or a stricter lint flags code that is fine ("rustc false
dead code positives"), and a build that denies warnings (``RUSTFLAGS=-D
warnings``, ``-Werror``, a lint step in CI) fails until the code says the warning
is expected: ``#[allow(unused)]``, ``#[expect(dead_code)]``, ``@SuppressWarnings``,
``// NOLINT``, ``# noqa``, ``# type: ignore``, ``// eslint-disable-next-line``,
``// @ts-expect-error``, and the security linters' ``// #nosec G602`` (gosec,
Go's) or ``# nosec B602`` (bandit, Python's) on a false positive. The compiled program does what it did; only the
developers' build sees the difference. Their kin ask for a warning instead: Rust's
``#[must_use]`` on a function or type (clippy suggests it for every value-returning
method) warns a caller who drops the value, and ``#![deny(...)]``/``#![warn(...)]``
raise a lint's level; libraries add them in sweeps ("add suggested must_use"), and
the program still does what it did. A formatter's directives are of the kind
(``# yapf: disable``, ``# fmt: off``, ``# isort: skip``, ``// clang-format off``,
``// prettier-ignore``): they keep the formatter off a block, and once they go
the formatter lays the block out anew, which changes no code either. A patch
that changes anything else, once such directives and layout are set aside, is
none of these.
"""

from __future__ import annotations

import re
from functools import partial

from repodaily.analyzers.heuristic.layout import changed_lines, indent_matters, laid_out_alike, only_set_aside
from repodaily.models import ContextFile

__all__ = ["suppressions_only"]

#: A line that is only an attribute or annotation setting a warning's level (Rust's, the JVM's), or Rust's
#: ``#[must_use]`` (with its optional message) asking for one.
_ATTRIBUTE = re.compile(
    r"""^\s*(#!?\[(allow|expect|warn|deny|forbid)\([^\]]*\)\]|#\[must_use(\s*=\s*"[^"]*")?\]|@Suppress(Warnings)?\(.*\))\s*$"""
)
#: A comment directive silencing a checker, on a line of its own or after the code it concerns (tried only
#: where a run of blanks starts: inside one, a long run would cost time quadratic in its length).
_DIRECTIVE = re.compile(
    r"(?<!\s)\s*(#|//|/\*)\s*(noqa\b|type:\s*ignore\b|pyright:\s*ignore\b|pylint:\s*disable|eslint-disable|"
    r"@ts-ignore\b|@ts-expect-error\b|NOLINT|nolint\b|#?nosec\b|lint:ignore\b|rubocop:disable|yapf:\s*(disable|enable)\b|"
    r"fmt:\s*(off|on|skip)\b|isort:\s*(skip|off|on)\b|clang-format\s+(off|on)\b|prettier-ignore\b)[^\n]*$"
)
#: A line that is only a comment: the reason a suppression is given beside it (gosec asks for one), no code.
#: A ``#`` opens one only before a blank, so that a C preprocessor line (``#include``) stays code.
_COMMENT_LINE = re.compile(r"\s*(//|/\*|\*/|\*(\s|$)|#(\s|$))")
#: The cheap test a patch with such a directive passes before the regexes run.
_HINTS = (
    "allow(",
    "expect(",
    "warn(",
    "deny(",
    "forbid(",
    "must_use",
    "@Suppress",
    "noqa",
    "ignore",
    "disable",
    "@ts-",
    "NOLINT",
    "nolint",
    "nosec",
    "lint:ignore",
    "yapf",
    "fmt:",
    "isort:",
    "clang-format",
    "prettier-ignore",
)


def suppressions_only(file: ContextFile) -> bool:
    """Every hunk of the file's whole patch adds or drops warning suppressions and changes no code."""
    if not any(hint in file.text for hint in _HINTS):
        return False
    return only_set_aside(file, partial(_changes_suppressions, indented=indent_matters(file)))


def _changes_suppressions(hunk: str, *, indented: bool) -> bool | None:
    """True: the hunk changes suppressions and nothing else; False: it changes nothing; None: it changes code.

    Code only laid out anew, as a formatter does once its directives go, is no change
    (see :mod:`.layout`); a hunk that changes nothing else changes no suppression either.
    """
    removed, added = changed_lines(hunk)
    if not laid_out_alike(_code(removed), _code(added), indented):
        return None
    return any(map(_suppresses, removed + added))


def _suppresses(line: str) -> bool:
    return _ATTRIBUTE.match(line) is not None or _DIRECTIVE.search(line) is not None


def _code(lines: list[str]) -> list[str]:
    """The lines without suppressions: attribute and comment lines dropped, trailing directives cut, blank
    lines left out."""
    kept = (
        _DIRECTIVE.sub("", line).rstrip() for line in lines if not (_ATTRIBUTE.match(line) or _COMMENT_LINE.match(line))
    )
    return [line for line in kept if line.strip()]
