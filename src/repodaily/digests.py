"""Content hashes of the package's own files, for analyzer fingerprints.

A fingerprint is part of the cache key, so it must change whenever what an
analyzer does could change. A version number kept by hand changes only when
someone remembers to bump it; a hash of the files themselves cannot be
forgotten. Each analyzer decides what to hash; this module only reads and hashes.

The hash is the same on every machine and every run: files are read through
:mod:`importlib.resources` (a checkout and an installed wheel read alike), named
by their path from the top-level package with ``/`` separators, taken in sorted
order, and their line endings normalised to ``\\n``, so a Windows checkout hashes
like a Linux one. No modification time, absolute path or directory order enters.
"""

from __future__ import annotations

import ast
import hashlib
import re
from collections.abc import Mapping
from importlib import resources
from importlib.resources.abc import Traversable

__all__ = ["SHORT", "digest", "package_file", "package_tree", "with_imports"]

#: Hex digits of a digest: 40 bits, plenty to tell one version of a file set from another.
SHORT = 10

_SKIPPED = "__pycache__"


def digest(material: Mapping[str, str | bytes]) -> str:
    """The first :data:`SHORT` hex digits of SHA-256 over named pieces, in name order.

    Each piece is framed by its name and length, so moving bytes from one piece
    to the next, or renaming one, changes the digest.
    """
    sha = hashlib.sha256()
    for name in sorted(material):
        data = material[name]
        data = data.encode() if isinstance(data, str) else data
        sha.update(f"{name}\0{len(data)}\0".encode())
        sha.update(data)
    return sha.hexdigest()[:SHORT]


def package_tree(package: str, *, suffixes: tuple[str, ...], folder: str = "") -> dict[str, bytes]:
    """Every file below ``folder`` of ``package``, recursively, whose name ends with one of ``suffixes``.

    Keyed by path from the top-level package (``repodaily/analyzers/heuristic/rules.toml``).
    Bytecode caches and hidden files (an editor's swap file) are not part of the package.
    """
    root = _child(resources.files(package), folder)
    prefix = "/".join([*package.split("."), *filter(None, folder.split("/"))])
    found: dict[str, bytes] = {}
    _collect(root, prefix, suffixes, found)
    return found


def package_file(package: str, path: str) -> dict[str, bytes]:
    """One file of ``package``, keyed as :func:`package_tree` keys it."""
    name = "/".join([*package.split("."), path])
    return {name: _read(_child(resources.files(package), path))}


def with_imports(files: Mapping[str, bytes]) -> dict[str, bytes]:
    """``files`` and every module of the same top-level package that their modules import, transitively.

    Only imports at module level are followed: they are the code a module runs
    with. An import inside a function is a deliberate late binding (the analyzer
    registry loads every analyzer that way), and following it would tie one
    analyzer's digest to the others'. A parent package's ``__init__`` is not
    followed either, only the modules an import statement names.
    """
    found = dict(files)
    todo = [name for name in found if name.endswith(".py")]
    # Most modules are imported by many others: each is looked for on disk once.
    looked_for: set[str] = set()
    while todo:
        name = todo.pop()
        top = name.partition("/")[0]
        for module in _imports(found[name]):
            if module.partition(".")[0] != top or module in looked_for:
                continue
            looked_for.add(module)
            located = _module_file(module)
            if located is not None and located[0] not in found:
                found[located[0]] = located[1]
                todo.append(located[0])
    return found


#: A line that may begin a module-level import: at column 0, or after a ``;`` that ends a statement.
_IMPORT_LINE = re.compile(rb"^(?:import|from)\b", re.MULTILINE)
_IMPORT_AFTER_SEMICOLON = re.compile(rb";[ \t\\\r\n]*(?:import|from)\b")
#: A line that begins a module-level definition: no statement above it continues past it.
_DEFINITION_LINE = re.compile(rb"^(?:def|class|async|@)", re.MULTILINE)


def _imports(source: bytes) -> list[str]:
    """Absolute module names imported at module level: ``from m import n`` gives ``m``, and ``m.n`` in case n is one."""
    return _imported(_import_header(source))


def _imported(module: ast.Module) -> list[str]:
    """The absolute module names the statements of ``module`` import, as :func:`_imports` names them."""
    names: list[str] = []
    for node in module.body:
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module)
            names.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return names


def _import_header(source: bytes) -> ast.Module:
    """The module's statements up to its last module-level import, parsed: the same imports, a fraction of the work.

    Building the syntax tree of every module is most of what a fingerprint costs a
    process that starts, and the definitions below the imports hold none. The
    source is cut where a definition starts at column 0 after the last line that
    may import; such a cut, when the part above it parses, lies between two
    module-level statements (a cut inside a string or a bracket leaves the part
    unparseable), so that part holds every module-level import the module does.
    When it does not parse, the whole module is.
    """
    last_import = max((line.end() for line in _IMPORT_LINE.finditer(source)), default=0)
    definition = _DEFINITION_LINE.search(source, last_import)
    if definition is None or _IMPORT_AFTER_SEMICOLON.search(source) is not None:
        return ast.parse(source)
    try:
        return ast.parse(source[: definition.start()])
    except SyntaxError:
        return ast.parse(source)


def _module_file(module: str) -> tuple[str, bytes] | None:
    """The source file of ``module`` (a module or a package's ``__init__``), if it is one."""
    *parents, last = module.split(".")
    if not parents:
        return None  # the top-level package: its __init__ gathers the public surface, the whole program
    folder = _child(resources.files(parents[0]), "/".join(parents[1:]))
    for path in (f"{last}.py", f"{last}/__init__.py"):
        candidate = _child(folder, path)
        if candidate.is_file():
            return "/".join([*parents, path]), _read(candidate)
    return None


def _collect(folder: Traversable, prefix: str, suffixes: tuple[str, ...], found: dict[str, bytes]) -> None:
    for entry in folder.iterdir():
        if entry.name.startswith(".") or entry.name == _SKIPPED:
            continue
        name = f"{prefix}/{entry.name}"
        if entry.is_dir():
            _collect(entry, name, suffixes, found)
        elif entry.name.endswith(suffixes):
            found[name] = _read(entry)


def _child(node: Traversable, path: str) -> Traversable:
    for part in filter(None, path.split("/")):
        node = node.joinpath(part)
    return node


def _read(file: Traversable) -> bytes:
    return file.read_bytes().replace(b"\r\n", b"\n")
