"""What a C or C++ library's public headers declare: the API its users include and link against.

A library's users see its headers, not its sources: the types, the functions
at namespace scope and the macros of the headers it installs. Which headers
those are is a convention C and C++ libraries share: the tree under an
``include/`` directory (``include/<lib>/...``), or a single header at the
repository root (``zlib.h``, ``stb_image.h``). A header-only library's
amalgamation (``single_include/<lib>/<lib>.hpp``) is generated from that tree
with its details pasted in: the tree says what it declares. Inside the tree,
what users must not touch lives in folders or files named for that:
``detail/``, ``details/``, ``internal/``, ``impl/``, ``private/``, a bundled
copy of another library (``bundled/``), and the inline or implementation
halves of a header (``logger-inl.h``, ``format_impl.h``, Qt's ``widget_p.h``).
Tests, examples and benchmarks are no source at all (the path classes leave
them out before any extractor runs).

Only what stands at the start of a line is read: namespaces are not indented
by the common styles (LLVM, Google, and most libraries' own), while class
members and function bodies are, so a line that starts with a declaration is
a namespace-scope one. Comments are set aside. A header may keep its details
in a namespace of their own instead (``namespace detail {`` inside
``fmt/format.h``): a declaration the hunk shows inside one (after its opening,
or before the closing comment clang-format writes, ``}  // namespace
detail``), one the hunk calls qualified (``detail::copy(...)``), and a name
that ends in ``_`` (the common mark of a private name) are details too. Such a
namespace is mostly out of the hunk's sight, so the surface rules count a
declaration only when the title, a test, a doc or an example names it
(``named_beside`` in rules.toml).

Forward declarations (``class logger;``), specialisations of another
library's templates (``struct formatter<my_type>``), out-of-class member
definitions (``void registry::drop(...)``), macro calls, include guards and
macros named as private (``X_DETAIL_Y``, ``X_INTERNAL_Y``) are no new API. C
has one namespace for macros, so a library names its own after itself
(``SPDLOG_``, ``FMT_``, ``CURL_``, ``UV_``: the folder its headers are
installed under, or a lone header's name); a macro under another name is a
setting the header passes to a library it includes (``FMT_DEPRECATED_OSTREAM``
in spdlog's headers), none of the library's own API.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from repodaily.analyzers.heuristic.surface.found import Found
from repodaily.analyzers.heuristic.surface.sides import Side
from repodaily.models import SurfaceKind

__all__ = ["detail_names", "header_api", "header_file", "public_header", "reads_header"]

#: The extensions of C and C++ headers.
_HEADER = re.compile(r"\.(?:h|hh|hpp|hxx|h\+\+)$", re.I)
#: The folders of a public header tree.
_PUBLIC_TREES = frozenset({"include"})
#: Folders of a header tree that hold implementation details, or someone else's code.
_PRIVATE_PARTS = frozenset(
    {"detail", "details", "internal", "impl", "private", "bundled", "vendor", "third_party", "thirdparty"}
)
#: Headers that are the implementation half of another, or named private.
_PRIVATE_STEM = re.compile(r"[-_](?:inl|inline|impl|internal|private|detail|p)$", re.I)


def header_file(path: str) -> bool:
    """Whether ``path`` is a C or C++ header."""
    return _HEADER.search(path) is not None


@functools.lru_cache(maxsize=4096)
def public_header(path: str) -> bool:
    """A header a library installs for its users: under ``include/`` or at the root, not named as a detail."""
    if not header_file(path):
        return False
    *folders, name = path.split("/")
    if folders and not _PUBLIC_TREES.intersection(folders):
        return False
    stem = name.rsplit(".", 1)[0]
    return not _PRIVATE_PARTS.intersection(folders) and _PRIVATE_STEM.search(stem) is None


#: Export, attribute and visibility macros that may stand before a declaration (``class SPDLOG_API mdc``).
_MACROS = r"(?:(?:[A-Z][A-Z0-9_]*(?:\([^()\n]*\))?|alignas\([^()\n]*\)|\[\[[^\]\n]*\]\]|__declspec\([^()\n]*\))\s+)*"
_TEMPLATE = r"(?:template\s*<[^\n]*?>\s*)?"
# A class, struct, union or enum defined (a body or a base list follows), not forward-declared.
_TYPE = re.compile(
    rf"^{_MACROS}{_TEMPLATE}(?:typedef\s+)?(?:class|struct|union|enum(?:\s+(?:class|struct))?)\s+{_MACROS}"
    r"(?P<name>[A-Za-z]\w*)\s*(?:final\s*)?(?:[:{]|$)",
    re.M,
)
# A function declared or defined at namespace scope: specifiers and a return type, then its name and `(`,
# on the same line or at the start of the next (the style that breaks after the return type).
# A line that starts with a statement's keyword is no declaration; a qualified name (`registry::get`) is
# a member defined out of its class, not a new function. The blanks before a line break and before `(`
# are bounded: unbounded, a line of many blanks costs time quadratic in their number.
_FUNCTION = re.compile(
    rf"^{_MACROS}{_TEMPLATE}(?!(?:return|else|case|goto|using|typedef|namespace|delete|new|throw|if|for|while|"
    r"switch|do|static_assert|friend|public|private|protected|class|struct|union|enum)\b)"
    r"[A-Za-z_][\w:<>,* \t&]*?(?:[ \t*&]|[ \t*&]{0,8}\n)(?P<name>[A-Za-z]\w*)[ \t]{0,8}\(",
    re.M,
)
# A type alias: `using sink_mt = sink<std::mutex>;`, `typedef struct uv_loop_s uv_loop_t;`.
_ALIAS = re.compile(r"^(?:using\s+(?P<using>[A-Za-z]\w*)\s*=|typedef\s[^;{}\n]*?\b(?P<typedef>[A-Za-z]\w*)\s*;)", re.M)
#: A macro's definition; only its name is read.
_DEFINE = re.compile(r"^[ \t]*#[ \t]*define[ \t]+(?P<name>[A-Za-z]\w*)", re.M)
#: A macro named as an include guard, or as a library's private helper.
_NOT_API_MACRO = re.compile(r"(?:_H|_HH|_HPP|_HXX|_INCLUDED)_?$|_(?:DETAIL|INTERNAL|PRIVATE|IMPL)(?:_|$)")
_WORDS = ("class ", "struct ", "union ", "enum ", "(", "define", "using ", "typedef ")


def header_api(side: Side) -> Iterator[Found]:
    """Types, namespace-scope functions, type aliases and public macros a public header declares."""
    if not public_header(side.path):
        return
    private = _private_spans(side.text) if "namespace" in side.text else []
    details = detail_names(side.text)
    text = _COMMENT.sub(_blank, side.text) if "/" in side.text else side.text
    declared = [(m.start(), m.group("name")) for pattern in (_TYPE, _FUNCTION) for m in pattern.finditer(text)]
    if "using" in text or "typedef" in text:
        declared += [(m.start(), m.group("using") or m.group("typedef")) for m in _ALIAS.finditer(text)]
    for start, name in declared:
        # `FMT_FORMAT_AS(...)` is a macro's call; `operator<<` no name of its own.
        if name.isupper() or name == "operator" or name.endswith("_"):
            continue
        if any(begin <= start < end for begin, end in private) or name in details:
            continue
        yield Found(SurfaceKind.public_api, name)
    if "define" in text:
        prefix = _macro_prefix(side.path)
        for define in _DEFINE.finditer(text):
            name = define.group("name")
            if name.startswith(prefix) and _NOT_API_MACRO.search(name) is None:
                yield Found(SurfaceKind.public_api, name)


#: A namespace of details opened, or closed with the comment clang-format writes after its brace.
_PRIVATE_NAMESPACE = re.compile(
    r"^[ \t]*(?:(?P<open>(?:inline[ \t]+)?namespace[ \t]+(?:\w+::)*(?:detail|details|internal|impl)[ \t]*\{)|"
    r"(?P<close>\}[ \t]*//[ \t]*namespace[ \t]+(?:\w+::)*(?:detail|details|internal|impl)\b))",
    re.M,
)


def _private_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` lies inside a namespace of details, as far as its openings and closing comments show.

    A closing comment before any opening closes the namespace ``text`` starts in.
    """
    marks = list(_PRIVATE_NAMESPACE.finditer(text))
    spans: list[tuple[int, int]] = []
    opened = 0 if marks and marks[0].group("close") is not None else None
    for mark in marks:
        if mark.group("open") is not None:
            opened = mark.start() if opened is None else opened
        elif opened is not None:
            spans.append((opened, mark.end()))
            opened = None
    if opened is not None:
        spans.append((opened, len(text)))
    return spans


#: A comment: a license's prose at the start of a line reads like a declaration ("documentation files (the").
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def _blank(comment: re.Match[str]) -> str:
    """A comment's characters as spaces, its line breaks kept: the positions of the code around it stay."""
    return re.sub(r"[^\n]", " ", comment.group())


#: A name called through a namespace of details: ``detail::copy``.
_DETAIL_CALL = re.compile(r"\b(?:detail|details|internal|impl)::(\w+)")


def detail_names(text: str) -> set[str]:
    """The names ``text`` calls through a namespace of details (``detail::copy``)."""
    return set(_DETAIL_CALL.findall(text)) if "::" in text else set()


@functools.lru_cache(maxsize=4096)
def _macro_prefix(path: str) -> str:
    """How a library names its macros: after the folder under ``include/`` its headers sit in, or the header."""
    folders = path.split("/")
    tree = next((index for index, part in enumerate(folders) if part in _PUBLIC_TREES), -1)
    owner = folders[tree + 1] if tree + 2 < len(folders) else folders[-1].rsplit(".", 1)[0]
    return re.sub(r"\W", "_", owner).upper() + "_"


def reads_header(path: str, patch: str) -> bool:
    """Whether a file is a public header whose patch holds a word a declaration starts with."""
    return public_header(path) and any(word in patch for word in _WORDS)
