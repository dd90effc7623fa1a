"""Whether a Python file's patch only adds, drops or rewrites type annotations.

An annotation (``x: int = 0``, ``def f(a: Mapping[str, str]) -> "Headers":``) tells
the type checker what a value is; the interpreter stores it and runs the code as it
did. A commit that only touches them (a stricter checker's demands, annotations
made precise) is RUBRIC.md's type annotations: refactor, low. Each hunk must hold
the same code on both sides once the annotations are set aside: those of a ``def``
line's parameters and return, and of a variable at the start of a line. At least
one hunk must change an annotation, or the patch only lays its code out anew
(:mod:`.layout`).
"""

from __future__ import annotations

import keyword
import re

from repodaily.analyzers.heuristic.layout import changed_lines, only_set_aside
from repodaily.models import ContextFile

__all__ = ["annotations_only"]

_PYTHON = (".py", ".pyi")
#: Python's tokens as far as annotations need them: strings (an annotation may be one), names, the
#: return arrow, line ends, and any other single character.
_TOKEN = re.compile(r"""[rbuRBU]{0,2}("(\\.|[^"\\\n])*"|'(\\.|[^'\\\n])*')|[A-Za-z_]\w*|->|\n|\S""")
_OPENS, _CLOSES = "([{", ")]}"
_KEYWORDS = frozenset([*keyword.kwlist, *keyword.softkwlist])
#: Imports of the modules annotations take their names from: an annotation made precise
#: (``list[int]`` to ``Sequence[int]``) imports the new name, and runs nothing else.
_TYPING_IMPORT = re.compile(r"\s*(from\s+(typing|typing_extensions|collections\.abc)\s+import\b|import\s+typing\b)")


def annotations_only(file: ContextFile) -> bool:
    """Every hunk of a Python file's whole patch holds the same code once type annotations are set aside."""
    return file.path.lower().endswith(_PYTHON) and only_set_aside(file, _same_but_annotations)


def _same_but_annotations(hunk: str) -> bool | None:
    """True: the hunk changes annotations and nothing else; False: it changes nothing; None: it changes code."""
    removed, added = changed_lines(hunk)
    if "import" in hunk:
        # The names annotations use, imported: alone they change no code, beside an annotation they serve it.
        removed = [line for line in removed if not _TYPING_IMPORT.match(line)]
        added = [line for line in added if not _TYPING_IMPORT.match(line)]
        if not removed and not added:
            return False
    # An annotation is written after a colon or an arrow: a hunk whose changed lines hold neither changes code.
    if not any(":" in line for line in removed + added):
        return None
    (before, before_code), (after, after_code) = _read(removed), _read(added)
    if before_code != after_code:
        return None
    return before != after


def _read(lines: list[str]) -> tuple[list[str], list[str]]:
    """The lines' tokens, and their tokens with the annotations left out."""
    tokens = [m.group(0) for m in _TOKEN.finditer("\n".join(lines))]
    code: list[str] = []
    depth, i, signature, line_start = 0, 0, False, True
    while i < len(tokens):
        token = tokens[i]
        nxt = tokens[i + 1] if i + 1 < len(tokens) else ""
        parameter = signature and depth == 1 and nxt == ":" and code[-1:] in (["("], [","], ["*"], ["**"])
        variable = depth == 0 and line_start and nxt == ":" and token not in _KEYWORDS
        end = _skip(tokens, i + 2, stop=",=)" if parameter else "=") if parameter or variable else i
        if end > i + 2 and _is_name(token) and (parameter or _a_type(tokens[i + 2 : end])):
            code.append(token)
            i, line_start = end, False
            continue
        if signature and depth == 0 and token == "->":
            i = _skip(tokens, i + 1, stop=":")
            continue
        if token == "def":
            signature = True
        elif token == ":" and depth == 0:
            signature = False
        depth += (token in _OPENS) - (token in _CLOSES)
        line_start = token == "\n" or (line_start and token in ("self", "."))
        if token != "\n":
            code.append(token)
        i += 1
    return [t for t in tokens if t != "\n"], code


def _skip(tokens: list[str], i: int, stop: str) -> int:
    """The index of the first token from ``i`` that ends an annotation: one of ``stop`` outside its
    brackets, a bracket closing around it, or the line's end."""
    depth = 0
    while i < len(tokens):
        token = tokens[i]
        if depth == 0 and (token in stop or token in _CLOSES or token == "\n"):
            return i
        depth += (token in _OPENS) - (token in _CLOSES)
        i += 1
    return i


def _a_type(annotation: list[str]) -> bool:
    """What follows ``name:`` at the start of a line reads as a type: a name or a string first, and no comma
    last (``key: value,`` is an entry of a dictionary written over several lines)."""
    return (_is_name(annotation[0]) or annotation[0][-1:] in "\"'") and annotation[-1] != ","


def _is_name(token: str) -> bool:
    return token.isidentifier() and token not in _KEYWORDS
