"""What a changed file is: one table of path classes and one glob dialect for every stage that asks.

The context stage reads a commit's files in :class:`~repodaily.models.FileCategory`
order (source, build, test, docs; generated and binary never), and the heuristic
analyzer judges a commit by the finer class of each file (``ci``, ``lockfile``,
``docs``, ``test``, ``tooling``, ``core`` …). Both ask a :class:`PathTable`, so a
file is read where its class ranks and the two never disagree about what a file
is. The classes are data: ``paths.toml``, shipped with the package, read by
:meth:`PathTable.packaged`; a repository's conventions extend it (the heuristic
analyzer's ``RuleSet`` merges them over it, and the context stage ranks by the
analyzer's table).

A path's class is the first class, in table order, with a glob that matches it;
a path no class claims is ``source`` (an unexpected file is better read than
hidden), or ``binary`` when git says its content is. Its category is its
class's, except that a class of never-read files (category ``generated`` or
``binary``: lock files, vendored or generated code, images, weights) claims the
category wherever it stands in the order. Where a file lives says what it is
for — a picture under ``docs/`` is documentation, a snapshot under ``tests/`` a
test — but its content is still not worth a reader's tokens.

Glob dialect, the only one in the package (rule tables, conventions and this
table all use it), matched case-insensitively because ``README.md`` and
``Readme.md``, ``Dockerfile`` and ``dockerfile`` are the same file to a reader:

- no ``/`` in the glob: matched against the file name, in any directory
  (``*.md``, ``Dockerfile*``, ``test_*.py``);
- with a ``/``: matched against the whole path from the repository root
  (``cmake/*.cmake``); a leading ``/`` only anchors (``/Makefile`` is the root's);
- a trailing ``/`` takes everything below (``.github/``, ``**/tests/``);
- ``*`` and ``?`` stay within one path component; ``**/`` is any number of
  directories, none included (``**/tests/``, ``vllm/**/configs/*.json``); any
  other ``**`` is any characters, ``/`` included;
- ``[abc]``, ``[a-z]`` and ``[!abc]`` are one character in or not in the set.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Iterable, Mapping
from functools import cache
from importlib import resources
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from repodaily.errors import ConfigError
from repodaily.models import FileCategory
from repodaily.tables import describe

__all__ = ["Globs", "PathClass", "PathTable", "check_globs", "packaged_path_classes"]

PATHS_FILE = "paths.toml"

_NEVER_READ = frozenset({FileCategory.generated, FileCategory.binary})
#: How many paths' classes a table remembers: more than a year of a busy repository touches.
_REMEMBERED = 16_384
_FLAGS = re.IGNORECASE | re.DOTALL


def check_globs(globs: list[str]) -> list[str]:
    """Check globs when a table loads, so a mistake is a config error before any file is classed."""
    for glob in globs:
        _glob_regex(glob)
    return globs


class Globs:
    """Compiled globs: does any of them match a path?"""

    __slots__ = ("_regex",)

    def __init__(self, globs: Iterable[str]) -> None:
        alternatives = [_glob_regex(glob) for glob in globs]
        self._regex = re.compile("|".join(alternatives), _FLAGS) if alternatives else None

    def matches(self, path: str) -> bool:
        return self._regex is not None and self._regex.fullmatch(_subject(path)) is not None


class PathClass(BaseModel):
    """A class of files: the globs that claim a path, and the category the context stage reads it in."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    category: FileCategory = FileCategory.source
    globs: list[str] = Field(default_factory=list)

    @field_validator("globs")
    @classmethod
    def _check_globs(cls, value: list[str]) -> list[str]:
        return check_globs(value)


class PathTable:
    """Path classes in order: the first whose globs match a path is its class (see the module docstring)."""

    def __init__(self, classes: Mapping[str, PathClass]) -> None:
        self.classes = dict(classes)
        self._claims = _Claims(self.classes.items())
        # The same classes with the never-read ones first: the first claim is then the category's.
        self._reading = _Claims(sorted(self.classes.items(), key=lambda item: item[1].category not in _NEVER_READ))

    @staticmethod
    def packaged() -> PathTable:
        """The table shipped as ``paths.toml``, without any repository's conventions."""
        return _packaged_table()

    def classify(self, path: str, *, binary: bool = False) -> str:
        """The name of ``path``'s class; ``binary`` is git's word that its content is binary."""
        return self._claims.first(path) or ("binary" if binary else "source")

    def category(self, path: str, *, binary: bool = False) -> FileCategory:
        """The category the context stage reads ``path`` in: its class's, unless its content is never read."""
        if binary:
            return FileCategory.binary
        found = self.classes.get(self._reading.first(path) or "source")
        return found.category if found is not None else FileCategory.source


def packaged_path_classes() -> dict[str, Any]:
    """``paths.toml`` as TOML data, for a rule table that merges a repository's conventions over it."""
    return dict(_packaged_data())


class _Claims:
    """Classes' globs as one regex whose named groups say which class claimed a path.

    A full match tries the alternatives in order, so the first class wins, and
    ``lastgroup`` names it; name globs read the file name before the NUL of
    :func:`_subject` instead of searching the path for its last ``/``. Both keep
    classing a path to a few microseconds, and each answer is remembered: the
    stages ask about the same paths again and again (every stage of a commit,
    every commit that touches a busy file), and a backfill's regex runs would
    otherwise add up to more than its rules. The memory is bounded
    (:data:`_REMEMBERED` paths, forgotten all at once when full), so a long
    backfill stays flat.
    """

    def __init__(self, classes: Iterable[tuple[str, PathClass]]) -> None:
        self._known: dict[str, str | None] = {}
        self._names: list[str] = []
        groups: list[str] = []
        for name, path_class in classes:
            if path_class.globs:
                alternatives = "|".join(_glob_regex(glob) for glob in path_class.globs)
                groups.append(f"(?P<c{len(self._names)}>{alternatives})")
                self._names.append(name)
        self._regex = re.compile("|".join(groups), _FLAGS) if groups else None

    def first(self, path: str) -> str | None:
        try:
            return self._known[path]
        except KeyError:
            pass
        if len(self._known) >= _REMEMBERED:
            self._known.clear()
        match = self._regex.fullmatch(_subject(path)) if self._regex is not None else None
        name = None if match is None or match.lastgroup is None else self._names[int(match.lastgroup[1:])]
        self._known[path] = name
        return name


def _subject(path: str) -> str:
    """What a glob's regex reads: ``"<file name>\\0<path>"``."""
    path = path.strip("/")
    return f"{path.rpartition('/')[2]}\0{path}"


def _glob_regex(glob: str) -> str:
    """One glob as a regex over :func:`_subject`; raises ValueError for a glob that can match nothing."""
    if not glob.strip("/"):
        raise ValueError(f"glob {glob!r} names no file")
    if glob.endswith("/"):
        glob += "**"
    if "/" not in glob:
        return _translate(glob) + r"\x00.*"
    return r"[^\x00]*\x00" + _translate(glob.removeprefix("/"))


_GLOB_TOKENS = re.compile(r"\*\*/|\*\*|\*|\?|\[!?[^\]/]+\]|[^*?\[]+|\[")


def _translate(glob: str) -> str:
    """The regex of one glob's tokens.

    ``*`` and ``?`` become ``[^/]``, which ``re`` runs about twice as fast as
    ``[^/\\x00]``; it may step over the NUL of :func:`_subject`, but every
    glob's regex holds that NUL once as a literal, so such a match fails.
    """
    parts: list[str] = []
    for token in _GLOB_TOKENS.findall(glob):
        if token == "**/":
            parts.append(r"(?:[^\x00]*/)?")
        elif token == "**":
            parts.append(r"[^\x00]*")
        elif token == "*":
            parts.append("[^/]*")
        elif token == "?":
            parts.append("[^/]")
        elif token.startswith("[") and token.endswith("]") and len(token) > 2:
            negate = token.startswith("[!")
            members = re.escape(token[2 if negate else 1 : -1]).replace(r"\-", "-")
            parts.append(f"[^/{members}]" if negate else f"[{members}]")
        else:
            parts.append(re.escape(token))
    return "".join(parts)


@cache
def _packaged_data() -> dict[str, Any]:
    text = resources.files("repodaily").joinpath(PATHS_FILE).read_text(encoding="utf-8")
    return tomllib.loads(text)


@cache
def _packaged_table() -> PathTable:
    try:
        classes = TypeAdapter(dict[str, PathClass]).validate_python(_packaged_data())
    except ValidationError as exc:
        raise ConfigError(describe(exc, f"packaged {PATHS_FILE}")) from None
    return PathTable(classes)
