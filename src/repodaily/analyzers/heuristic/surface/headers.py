"""What a C or C++ library's public headers declare: the API its users include and link against.

A library's users see its headers, not its sources: the types, the functions
at namespace scope and the macros of the headers it installs. Which headers
those are is a convention C and C++ libraries share: the tree under an
``include/`` directory (``include/<lib>/...``, or ``single_include/`` for an
amalgamated header-only library), or a single header at the repository root
(``zlib.h``, ``stb_image.h``). Inside it, what users must not touch lives in
folders or files named for that: ``detail/``, ``details/``, ``internal/``,
``impl/``, ``private/``, a bundled copy of another library (``bundled/``), and
the inline or implementation halves of a header (``logger-inl.h``,
``format_impl.h``, Qt's ``widget_p.h``). Tests, examples and benchmarks are no
source at all (the path classes leave them out before any extractor runs).

Only what stands at the start of a line is read: namespaces are not indented
by the common styles (LLVM, Google, and most libraries' own), while class
members and function bodies are, so a line that starts with a declaration is a
namespace-scope one. Forward declarations (``class logger;``), specialisations
of another library's templates (``struct formatter<my_type>``), out-of-class
member definitions (``void registry::drop(...)``), macro calls, include guards
and macros named as private (``X_DETAIL_Y``, ``X_INTERNAL_Y``) are no new API.
C has one namespace for macros, so a library names its own after itself
(``SPDLOG_``, ``FMT_``, ``CURL_``, ``UV_``: the folder its headers are installed
under, or a lone header's name); a macro under another name is a setting the
header passes to a library it includes (``FMT_DEPRECATED_OSTREAM`` in spdlog's
headers), none of the library's own API.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator

from repodaily.analyzers.heuristic.surface.found import Found
from repodaily.analyzers.heuristic.surface.sides import Side
from repodaily.models import SurfaceKind

__all__ = ["header_api", "header_file", "public_header", "reads_header"]

#: The extensions of C and C++ headers.
_HEADER = re.compile(r"\.(?:h|hh|hpp|hxx|h\+\+)$", re.I)
#: The folders of a public header tree.
_PUBLIC_TREES = frozenset({"include", "single_include"})
#: Folders of a header tree that hold implementation details, or someone else's code.
_PRIVATE_PARTS = frozenset({"detail", "details", "internal", "impl", "private", "bundled", "vendor", "third_party"})
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
# A function declared or defined at namespace scope: specifiers and a return type, then its name and `(`.
# A line that starts with a statement's keyword is no declaration; a qualified name (`registry::get`) is
# a member defined out of its class, not a new function.
_FUNCTION = re.compile(
    rf"^{_MACROS}{_TEMPLATE}(?!(?:return|else|case|goto|using|typedef|namespace|delete|new|throw|if|for|while|"
    r"switch|do|static_assert|friend|public|private|protected|class|struct|union|enum)\b)"
    r"[A-Za-z_][\w:<>,* \t&]*?[ \t*&](?P<name>[A-Za-z]\w*)[ \t]*\(",
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
    text = side.text
    for pattern in (_TYPE, _FUNCTION):
        for declaration in pattern.finditer(text):
            name = declaration.group("name")
            if not (name.isupper() or name == "operator"):  # `FMT_FORMAT_AS(...)` is a macro's call
                yield Found(SurfaceKind.public_api, name)
    if "using" in text or "typedef" in text:
        for alias in _ALIAS.finditer(text):
            yield Found(SurfaceKind.public_api, alias.group("using") or alias.group("typedef"))
    if "define" in text:
        prefix = _macro_prefix(side.path)
        for define in _DEFINE.finditer(text):
            name = define.group("name")
            if name.startswith(prefix) and _NOT_API_MACRO.search(name) is None:
                yield Found(SurfaceKind.public_api, name)


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
