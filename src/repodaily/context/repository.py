"""What an analyzer is told about a commit's repository: a :class:`~repodaily.models.RepositoryContext`.

A model judges a commit better when it knows what the project is: a one-line
description, the language most of it is written in, and what the project's own
title tags mean. Every commit of a repository's day carries the same context, so
a prompt can put it right after its static prefix, where the provider's prefix
cache serves it again for each commit.

Each part comes from where it is known without a forge's API: the description
from the repository's configuration, the primary language from the file names
of the day's tree (no blob is read), the title tags from the conventions the
repository is judged by. A forge's metadata (GitHub's description and language)
would fill the same fields, where the configuration says nothing.

Everything is bounded here, once, so a prompt grows by a few hundred tokens at
most, whatever a description or a conventions table holds; and as the context
is what the prompt shows, a change to it is a change to the prompt.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath

from repodaily.models import FileCategory, RepositoryContext, TitleTag
from repodaily.paths import PathTable

__all__ = ["MAX_DESCRIPTION_CHARS", "MAX_TAG_NAMES", "describe_repository", "primary_language"]

#: A description longer than this is cut (GitHub's own limit is 350 characters).
MAX_DESCRIPTION_CHARS = 350
#: The tag names the context lists at most, over all rows, in their order; the names past it are left out.
MAX_TAG_NAMES = 64
#: A tag name longer than this is no tag a title carries; it is left out.
MAX_TAG_NAME_CHARS = 40

# Programming languages by file extension, as GitHub's linguist names them; markup,
# data and configuration files do not make a repository's language.
_LANGUAGES = {
    "Python": (".py", ".pyi", ".pyx"),
    "C++": (".cc", ".cpp", ".cxx", ".hpp", ".hh", ".hxx", ".ipp"),
    "C": (".c",),
    "CUDA": (".cu", ".cuh"),
    "Go": (".go",),
    "Rust": (".rs",),
    "Java": (".java",),
    "Kotlin": (".kt", ".kts"),
    "Scala": (".scala",),
    "JavaScript": (".js", ".mjs", ".cjs", ".jsx"),
    "TypeScript": (".ts", ".mts", ".cts", ".tsx"),
    "Ruby": (".rb",),
    "PHP": (".php",),
    "C#": (".cs",),
    "Swift": (".swift",),
    "Objective-C": (".m", ".mm"),
    "Dart": (".dart",),
    "Shell": (".sh", ".bash", ".zsh"),
    "Lua": (".lua",),
    "Perl": (".pl", ".pm"),
    "Haskell": (".hs",),
    "OCaml": (".ml", ".mli"),
    "Elixir": (".ex", ".exs"),
    "Erlang": (".erl",),
    "Clojure": (".clj", ".cljs"),
    "Julia": (".jl",),
    "Zig": (".zig",),
    "Nim": (".nim",),
    "Fortran": (".f90", ".f95", ".f03"),
    "Vue": (".vue",),
    "Svelte": (".svelte",),
}
_BY_EXTENSION = {extension: language for language, extensions in _LANGUAGES.items() for extension in extensions}
# A `.h` header is C++'s in a repository with more C++ than C sources, else C's.
_HEADER = ".h"
_NOT_A_LANGUAGE = frozenset({FileCategory.docs, FileCategory.generated, FileCategory.binary})


def primary_language(paths: Iterable[str], table: PathTable | None = None) -> str | None:
    """The language most of the files at ``paths`` are written in, counted by file; None when none is known.

    Documentation, generated, vendored and binary files (by ``table``, the
    package's path table by default) do not count, nor do files of no programming
    language (Markdown, JSON, YAML). A tie goes to the name first in alphabetical
    order, so the answer depends on the tree alone.
    """
    table = table or PathTable.packaged()
    counts: Counter[str] = Counter()
    headers = 0
    for path in paths:
        extension = PurePosixPath(path).suffix.lower()
        if (extension != _HEADER and extension not in _BY_EXTENSION) or table.category(path) in _NOT_A_LANGUAGE:
            continue
        if extension == _HEADER:
            headers += 1
        else:
            counts[_BY_EXTENSION[extension]] += 1
    if headers:
        counts["C++" if counts["C++"] > counts["C"] else "C"] += headers
    ranked = sorted(((-n, language) for language, n in counts.items() if n))
    return ranked[0][1] if ranked else None


def describe_repository(
    name: str, *, description: str | None = None, title_tags: Sequence[TitleTag] = ()
) -> RepositoryContext:
    """The context of repository ``name`` whatever the day: ``description`` cut to size, the tags bounded.

    The language is the day's: ``context.model_copy(update={"language": primary_language(tree)})``.
    """
    return RepositoryContext(name=name, description=_clipped(description), title_tags=_bounded(title_tags))


def _clipped(description: str | None) -> str | None:
    """The description on one line and at most :data:`MAX_DESCRIPTION_CHARS` long; None when it says nothing."""
    text = " ".join((description or "").split())
    if len(text) > MAX_DESCRIPTION_CHARS:
        text = text[: MAX_DESCRIPTION_CHARS - 1].rstrip() + "…"
    return text or None


def _bounded(rows: Sequence[TitleTag]) -> list[TitleTag]:
    """The rows in order with their usable names (one line, a tag's length) until :data:`MAX_TAG_NAMES` are listed."""
    kept: list[TitleTag] = []
    room = MAX_TAG_NAMES
    for row in rows:
        usable = (name for name in (" ".join(n.split()) for n in row.names) if 0 < len(name) <= MAX_TAG_NAME_CHARS)
        names = list(usable)[:room]
        if names:
            kept.append(row.model_copy(update={"names": names}))
            room -= len(names)
        if not room:
            break
    return kept
