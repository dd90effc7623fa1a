"""The shape of the house: the core knows plugins by their protocols, and the models stand alone.

The import graph is read from the source (every ``import`` statement of every
module, at any depth, followed transitively), so an import hidden in a function
counts as much as one at the top.
"""

from __future__ import annotations

import ast
import subprocess
import sys
import tomllib
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "src"
#: The four stage protocols: what plugins are written against.
PROTOCOLS = ("repodaily.sources.base", "repodaily.analyzers.base", "repodaily.render.base", "repodaily.publish.base")
STAGES = tuple(protocol.rpartition(".")[0] for protocol in PROTOCOLS)


def _module_path(module: str) -> Path | None:
    base = SOURCE.joinpath(*module.split("."))
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


@cache
def _imports(module: str) -> frozenset[str]:
    """The modules ``module`` imports directly, ours and third parties' alike (packages and their modules)."""
    path = _module_path(module)
    if path is None:
        return frozenset()
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.add(base)
            # ``from package import module`` imports the module.
            found.update(f"{base}.{alias.name}" for alias in node.names if _module_path(f"{base}.{alias.name}"))
    # Importing a module runs its packages' __init__ first.
    parents = {".".join(module.split(".")[:n]) for n in range(1, module.count(".") + 1)}
    return frozenset(found | parents)


def _closure(*roots: str) -> set[str]:
    seen: set[str] = set()
    todo = list(roots)
    while todo:
        module = todo.pop()
        if module in seen:
            continue
        seen.add(module)
        todo.extend(m for m in _imports(module) if m.startswith("repodaily") and m not in seen)
        seen.update(m for m in _imports(module) if not m.startswith("repodaily"))
    return seen


def _implementations() -> set[str]:
    """Every module of the built-in plugins: what their entry points load from their own packages.

    A plugin's package is the one its entry-point module lives in (``repodaily.sources.git``
    for ``repodaily.sources.git.plugin``); its protocol module (``base``) is what
    plugins are written against, and is not an implementation; nor is the package
    of a stage that holds it.
    """
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    entry_modules = set(pyproject["project"]["entry-points"]["repodaily"].values())
    packages = {module.rpartition(".")[0] + "." for module in entry_modules}
    loaded = _closure(*entry_modules)
    inside = {m for m in loaded if m.startswith(tuple(packages)) and m not in PROTOCOLS}
    # A plugin package's own __init__ is part of it; a stage's (the package of a protocol module) is not.
    return inside | {m for m in loaded if f"{m}." in packages and m not in STAGES}


def test_the_implementations_are_found() -> None:
    implementations = _implementations()
    for module in ("repodaily.sources.git.log", "repodaily.analyzers.llm.client", "repodaily.render.environment"):
        assert module in implementations  # the control: a test that finds nothing proves nothing
    assert "repodaily.publish.files" in implementations


@pytest.mark.parametrize("root", ["repodaily.pipeline", "repodaily.config"])
def test_the_pipeline_and_the_config_import_no_implementation(root: str) -> None:
    imported = _closure(root)
    assert sorted(imported & _implementations()) == []
    assert sorted(m for m in imported if m.split(".")[0] in ("httpx", "jinja2")) == []


def test_every_protocol_module_imports_only_models_and_protocols() -> None:
    for protocol in PROTOCOLS:
        assert sorted(_closure(protocol) & _implementations()) == []


def test_importing_the_models_loads_no_http_client_and_no_template_engine() -> None:
    code = "import repodaily.models, sys; print([m for m in sys.modules if m.startswith(('httpx', 'jinja2'))])"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert result.stdout.strip() == "[]"
