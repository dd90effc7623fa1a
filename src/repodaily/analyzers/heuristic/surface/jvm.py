"""The public surface of a JVM library: the types and members its Java and Kotlin sources offer other code.

A Java library's users call its ``public`` (and subclass its ``protected``)
types and members; a Kotlin declaration is public unless it says otherwise.
Packages named ``internal``, ``impl`` or ``shaded``, and members whose name
starts with ``_``, are the library's own by convention; test, example and
benchmark trees never reach the ``surface`` reader (their path class is not
source).

A hunk rarely shows the class a member belongs to, so a member is named by its
signature alone: ``parse(String, boolean)``, a constructor by its class's name.
A member that moves (to a superclass, to another hunk or file) keeps its name
and is no change; a member removed, or whose parameter types change, is gone
for the code that called it. A type is named by its simple name. The class a
hunk sits in is read from the hunk's header when git names it there: the
members of a class that is not public are nobody's API, and those of a public
interface are public without saying so.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from repodaily.analyzers.heuristic.surface.extractors import RESTATED, Extractor, Found
from repodaily.analyzers.heuristic.surface.sides import Side, balanced
from repodaily.models import SurfaceKind

__all__ = ["JVM_API"]

#: Java and Kotlin sources (the generic `public_api` extractor leaves them to this one).
_SOURCES = (".java", ".kt")
#: Packages a JVM library keeps for itself by name (`com.acme.internal`, `impl`, a shaded copy of a dependency).
_HIDDEN_PACKAGE = re.compile(r"/(?:internal|impl|shaded)/")
#: What starts a public declaration on some line of a patch: the cheap test before any side is read.
_VISIBLE_WORDS = ("public ", "protected ", "fun ", "class ", "interface ", "object ")

# The annotations on lines of their own before a declaration (a comment may follow them), then the
# declaration's line. Java: a `public` or `protected` type or member; Kotlin: a `fun`, `class`,
# `interface` or `object` not `private` or `internal`.
_ANNOTATIONS = r"^(?P<annotations>(?:[ \t]*@[\w.]+(?:\([^\n]*\))?[ \t]*(?://[^\n]*)?\n)*)"
_JAVA = re.compile(
    _ANNOTATIONS + r"[ \t]*(?:@[\w.]+(?:\([^)\n]*\))?[ \t]+)*(?:public|protected)\b(?P<rest>[^\n]*)", re.M
)
_KOTLIN = re.compile(
    _ANNOTATIONS + r"[ \t]*(?P<modifiers>(?:[a-z]+[ \t]+)*)(?P<keyword>fun|class|interface|object)[ \t]+"
    r"(?:<[^>\n]*>[ \t]*)?(?:[\w.]+\.)?(?P<name>[A-Za-z_]\w*)",
    re.M,
)
_KOTLIN_HIDDEN = frozenset({"private", "internal"})
_TYPE = re.compile(r"\b(?:class|interface|enum|record|@interface)\s+(?P<name>[A-Za-z_$][\w$]*)")
_INLINE_ANNOTATION = re.compile(r"@[\w.]+(?:\([^)]*\))?")
_GENERICS = re.compile(r"<[^<>]*>")
# A name starts where a word does (`(?<![\w$])`): tried at every letter of a long word, either pattern
# would read the rest of the word each time, time quadratic in its length.
_CALLABLE = re.compile(r"(?<![\w$])(?P<name>[A-Za-z_$][\w$]*)\s*\(")
_FIELD = re.compile(r"(?<![\w$])(?P<name>[A-Za-z_$][\w$]*)\s*(?:=|;|$)")
#: A hunk header that declares a type neither public nor protected: a package-private class (or a private one).
_HIDDEN_TYPE = re.compile(
    r"^\s*(?:(?:private|static|final|abstract|sealed|non-sealed|strictfp)\s+)*(?:class|interface|enum|record)\b"
)
#: A hunk header that declares a public interface: its methods are public without saying so.
_PUBLIC_INTERFACE = re.compile(r"^\s*public\s+(?:[a-z]+\s+)*@?interface\b")
#: A method of an interface that does not write its visibility: `Type name(` at the start of a line, with
#: `default` or `static` or neither (a statement never starts with a type followed by a call).
_INTERFACE_METHOD = re.compile(
    _ANNOTATIONS + r"[ \t]*(?:@[\w.]+(?:\([^)\n]*\))?[ \t]+)*(?:(?:default|static|abstract)[ \t]+)*"
    r"(?!(?:return|new|throw|else|assert|case|yield|public|protected|private)\b)(?:<[^>\n]*>[ \t]*)?"
    r"[A-Za-z_][\w.]*(?:<[^\n(]*>)?(?:\[\])*[ \t]+(?P<name>[a-z_]\w*)[ \t]*\(",
    re.M,
)
#: A Kotlin declaration is public unless it says otherwise.
_KOTLIN_HIDDEN_TYPE = re.compile(r"^\s*(?:[a-z]+\s+)*(?:private|internal)\s+(?:[a-z]+\s+)*(?:class|object|interface)\b")
_DEPRECATED = "@Deprecated"
_OVERRIDE = re.compile(r"@Override\b|\boverride\b")


@functools.lru_cache(maxsize=4096)
def jvm_source(path: str) -> bool:
    """A Java or Kotlin source outside the packages a library keeps to itself."""
    return path.endswith(_SOURCES) and _HIDDEN_PACKAGE.search(f"/{path}") is None


def _wanted(path: str, patch: str) -> bool:
    """Whether a file may declare public JVM surface: its path, then a substring scan of its patch."""
    return jvm_source(path) and any(word in patch for word in _VISIBLE_WORDS)


def jvm_api(side: Side) -> Iterator[Found]:
    """Public types and members a side declares (``public_api``), and those it marks ``@Deprecated``.

    Each declaration comes with its marks: the annotations above it and its modifiers.
    """
    if not jvm_source(side.path):
        return
    kotlin = side.path.endswith(".kt")
    if (_KOTLIN_HIDDEN_TYPE if kotlin else _HIDDEN_TYPE).match(side.header):
        return
    if kotlin:
        declarations = _kotlin(side.text)
    else:
        declarations = _java(side.text, interface=_PUBLIC_INTERFACE.match(side.header) is not None)
    for name, marks in declarations:
        if name.startswith("_"):  # a leading underscore marks a member the library keeps to itself, public or not
            continue
        # An override implements what a supertype declares: callers still reach that one when it goes, and a
        # declaration it replaces (an abstract method made concrete) is still there.
        yield Found(SurfaceKind.public_api, name, RESTATED if _OVERRIDE.search(marks) else None)
        if _DEPRECATED in marks:
            yield Found(SurfaceKind.deprecation, name, "warns")


def _java(text: str, *, interface: bool) -> Iterator[tuple[str, str]]:
    """Declarations that say `public` or `protected`, and in a public interface the methods that say neither."""
    if interface:
        for method in _INTERFACE_METHOD.finditer(text):
            marks = text[method.start() : method.start("name")]
            yield _signature(method.group("name"), balanced(text, method.end())), marks
    for match in _JAVA.finditer(text):
        # Annotations blanked in place, so a position in the line is one in the text.
        rest = _INLINE_ANNOTATION.sub(lambda a: " " * len(a.group()), match.group("rest"))
        head = rest.split("=")[0]  # a field's initialiser may call a constructor: `= new Foo(...)`
        marks = text[match.start() : match.start("rest")]  # the annotations and the visibility
        if kind := _TYPE.search(rest):
            yield kind.group("name"), marks
        elif call := _CALLABLE.search(head):
            yield _signature(call.group("name"), balanced(text, match.start("rest") + call.end())), marks
        elif field := _FIELD.search(_GENERICS.sub("", head.rstrip() or rest)):
            yield field.group("name"), marks


def _kotlin(text: str) -> Iterator[tuple[str, str]]:
    """Functions and types not `private` or `internal`, functions named by their parameters' types."""
    for match in _KOTLIN.finditer(text):
        if not _KOTLIN_HIDDEN.isdisjoint(match.group("modifiers").split()):
            continue
        name = match.group("name")
        if match.group("keyword") == "fun" and (paren := text.find("(", match.end())) != -1:
            name = _signature(name, balanced(text, paren + 1), kotlin=True)
        yield name, match.group("annotations") + match.group("modifiers")


def _signature(name: str, parameters: str, *, kotlin: bool = False) -> str:
    """``name(Type, Type)``: the parameters' types, without their names, annotations, modifiers or type arguments.

    Java writes ``final Type name``, Kotlin ``name: Type = default``; a parameter
    renamed is no change to callers, a type changed is. A Kotlin parameter with
    a default is left out: callers that do not pass it compile as before
    (``base64()`` still calls ``base64(padding: Boolean = true)``).
    """
    flat = _INLINE_ANNOTATION.sub(" ", parameters)
    while _GENERICS.search(flat):
        flat = _GENERICS.sub("", flat)
    types = []
    for parameter in (p.strip() for p in flat.split(",") if p.strip()):
        if kotlin:
            declared, _, default = parameter.partition("=")
            if not default:
                types.append(declared.partition(":")[2].strip())
        else:
            words = [w for w in parameter.replace("...", "... ").split() if w != "final"]
            types.append(" ".join(words[:-1]).replace(" ...", "..."))
    return f"{name}({', '.join(types)})"


JVM_API = Extractor(jvm_api, _wanted)
