"""What a patch changes, definition by definition: the functions and classes its hunks touch.

Most commits change nothing of the user-visible surface and their messages say
no more than their titles; the definitions a diff touches still tell a reader
more than its file names do. Git names the definition a hunk sits in after the
second ``@@`` (its default rule: the last line above that starts with a
letter), a definition line inside the hunk takes over from there, and every
changed line counts for the definition it sits in. A definition whose own line
the commit adds or removes is added or removed, not changed.

This reads diff text, not a syntax tree, so it serves any language whose
definitions start with a keyword (``def``, ``class``, ``fn``, ``func``,
``function``, ``struct``, ...) and C-like functions named in hunk headers.
"""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass, field

__all__ = ["Outline", "read_outline"]

_MODIFIER_WORDS = (
    r"export|default|pub(?:\([\w:]+\))?|public|private|protected|internal|static|async|abstract|final"
    r"|override|virtual|inline|unsafe|extern"
)
_KEYWORDS = "def|class|fn|func|function|struct|enum|trait|interface|impl|module"
# The name is followed by what code puts there (a parameter list, generics, a base, a body, the
# line's end), not by a word: a docstring line that reads "function returns 0 when ..." defines nothing.
_DEFINITION = re.compile(
    rf"^(?P<indent>\s*)(?:(?:{_MODIFIER_WORDS})\s+)*(?P<keyword>{_KEYWORDS})"
    r"\s+(?:\([^)]*\)\s*)?(?P<name>[A-Za-z_]\w*)"
    r"(?=\s*(?:[(<:{;=\[]|$|(?:extends|implements|where|for|final)\b))"
)
#: How a definition's first word (a modifier or the keyword) begins: only a line that starts so is matched.
_DEFINITION_STARTS = tuple(word.partition("(")[0] for word in f"{_MODIFIER_WORDS}|{_KEYWORDS}".split("|"))
# A C-like function in a hunk header: a return type, then the name and its parenthesis, not a statement.
_C_FUNCTION = re.compile(r"^[A-Za-z_][\w:<>,*&\s]*?[\s*&](?P<name>[A-Za-z_]\w*(?:::~?\w+)*)\s*\((?!.*;\s*$)")
_NOT_FUNCTIONS = frozenset({"if", "for", "while", "switch", "return", "sizeof", "catch", "else", "do", "case", "new"})
_DUNDER = re.compile(r"^__\w+__$")
_HEADER = re.compile(r"^@@ [^@]* @@ ?(?P<context>.*)$")
_CLASSES = ("class", "struct", "impl", "trait", "interface", "module")
_NOT_CODE = ("@", "#", "//", "/*")


@dataclass
class Outline:
    """The definitions a commit's patches touch, in the order they first appear."""

    changed: list[str] = field(default_factory=list)
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.changed or self.added or self.removed)


@dataclass
class _Scope:
    """Where a hunk's walk is: the enclosing container (a class) and the innermost definition."""

    container: str = ""
    current: str = ""


def added_names(patches: list[str]) -> list[str]:
    """The names of the definitions the patches add and do not also remove (a move), without their containers.

    Only the changed lines are read: no scope is walked, and the pattern is tried only on a line that starts
    as a definition does, so a large test patch costs little more than its lines.
    """
    names: dict[str, dict[str, None]] = {"+": {}, "-": {}}
    for patch in patches:
        for line in patch.splitlines():
            sign, text = line[:1], line[1:]
            if (
                sign in names
                and not line.startswith(("+++", "---"))
                and text.lstrip().startswith(_DEFINITION_STARTS)
                and (definition := _DEFINITION.match(text))
            ):
                names[sign][definition.group("name")] = None
    return [name for name in names["+"] if name not in names["-"]]


def read_outline(patches: list[str]) -> Outline:
    """The definitions the patches change, add and remove; one that moves (removed and added) counts as changed."""
    outline = Outline()
    touched: dict[str, None] = {}
    added: dict[str, None] = {}
    removed: dict[str, None] = {}
    for patch in patches:
        scope = _Scope()
        for line in patch.splitlines():
            if line.startswith("@@") and (header := _HEADER.match(line)):
                scope = _header_scope(header.group("context"))
                continue
            sign, text = line[:1], line[1:]
            if not sign or sign not in "+- " or line.startswith(("+++", "---")):
                continue
            # The pattern is tried only where a definition's first word could begin.
            if text.lstrip().startswith(_DEFINITION_STARTS) and (definition := _DEFINITION.match(text)):
                name = _enter(scope, definition)
                if sign != " ":
                    (added if sign == "+" else removed)[name] = None
                continue
            # A decorator or comment belongs to the definition below it, not to the one it follows.
            code = text.strip()
            if sign != " " and code and not code.startswith(_NOT_CODE) and scope.current:
                touched[scope.current] = None
    # In the order the patches show them: a set's order changes from run to run, and so would the report.
    moved = [name for name in added if name in removed]
    outline.added = [name for name in added if name not in moved]
    outline.removed = [name for name in removed if name not in moved]
    # A class is named only when no member of it is: `Runner.step` says more than `Runner`.
    members = {name.rpartition(".")[0] for name in [*touched, *added, *removed]}
    new_or_gone = {*outline.added, *outline.removed} | members
    outline.changed = [name for name in dict.fromkeys([*touched, *moved]) if name not in new_or_gone]
    return outline


def _header_scope(context: str) -> _Scope:
    definition = _DEFINITION.match(context)
    if definition is not None:
        name = definition.group("name")
        is_class = definition.group("keyword") in _CLASSES
        return _Scope(container=name if is_class else "", current=name)
    function = _C_FUNCTION.match(context)
    if function is not None and _c_function(context.split(maxsplit=1)[0], function.group("name")):
        return _Scope(current=function.group("name"))
    return _Scope()


def _c_function(first_word: str, name: str) -> bool:
    """A header that declares ``name``, not a statement that calls it (``if find_spec(...)``, ``return f(x)``).

    A dunder name in C-like code is a compiler attribute or macro (``__launch_bounds__``), not the function.
    """
    statement = first_word in _NOT_FUNCTIONS or keyword.iskeyword(first_word)
    return not statement and name not in _NOT_FUNCTIONS and not _DUNDER.match(name)


def _enter(scope: _Scope, definition: re.Match[str]) -> str:
    """Step into ``definition``: a nested one is named through its container (``Runner.step``)."""
    name = definition.group("name")
    nested = bool(definition.group("indent")) and scope.container and scope.container != name
    if definition.group("keyword") in _CLASSES and not definition.group("indent"):
        scope.container = name
    scope.current = f"{scope.container}.{name}" if nested else name
    return scope.current
