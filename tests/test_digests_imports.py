"""The fingerprint's import scan parses only a module's header, yet finds what a whole parse finds.

:func:`repodaily.digests.with_imports` follows module-level imports; it cuts each
module after its last import line before parsing. These tests hold the cut to
what parsing the whole module gives, on the package's own modules and on the
shapes that could mislead a cut.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import repodaily
from repodaily.digests import _imported, _imports


def _whole(source: bytes) -> list[str]:
    """The module-level imports of the whole module's syntax tree."""
    return _imported(ast.parse(source))


@pytest.mark.parametrize(
    "source",
    [
        # An import below the definitions (a late import that breaks a cycle).
        "import a\n\ndef f():\n    import b\n\nclass C:\n    pass\n\nfrom c import d\n\ndef g():\n    pass\n",
        # A docstring line that reads like an import, after the last one.
        'import a\n\ndef f():\n    """Doc.\n\nfrom x import y\n"""\n\ndef g():\n    pass\n',
        # A string that holds a line like a definition, and an import after it.
        'import a\nX = """\ndef not_one():\n"""\nfrom b import c\n\ndef f():\n    pass\n',
        # Imports after a semicolon, and across a continued line.
        "import a\n\ndef f():\n    pass\n\nx = 1; import b\n\ndef g():\n    pass\n",
        "import a\n\ndef f():\n    pass\n\ny = 2 ;\\\n  import b\n\ndef g():\n    pass\n",
        # A parenthesised import over several lines, a decorator after it.
        "from a import (\n    b,\n    c,\n)\n\n@decorate\ndef f():\n    pass\n",
        # Imports in blocks are not module-level statements: an `if` and a `try` above the cut.
        "if TYPE_CHECKING:\n    import a\ntry:\n    import b\nexcept ImportError:\n    b = None\n\ndef f():\n    ...\n",
        # A matrix product continued at column 0 inside brackets: no definition starts there.
        "import a\nx = (y\n@ z)\nfrom b import c\n\ndef f():\n    pass\n",
        # No definition at all, and no import at all.
        "import a\nfrom b import c\n",
        "def f():\n    pass\n",
    ],
)
def test_the_header_scan_finds_the_imports_a_whole_parse_finds(source: str) -> None:
    assert _imports(source.encode()) == _whole(source.encode())


def test_every_module_of_the_package_scans_like_its_whole_parse() -> None:
    modules = sorted(Path(repodaily.__file__).parent.rglob("*.py"))
    assert [path for path in modules if _imports(path.read_bytes()) != _whole(path.read_bytes())] == []
