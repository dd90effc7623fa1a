"""An annotation made precise imports the name it now uses: the commit still only touches annotations.

``list[int]`` widened to ``Sequence[int]`` needs ``Sequence`` from ``collections.abc`` or
``typing``; that import runs nothing the code did not, so the patch is still RUBRIC.md's
type annotations, low and internal, whatever the title's "Fix" says.
"""

from __future__ import annotations

from pathlib import Path

from test_surface import Repo, analyse

from repodaily.models import Importance

_UTILS = (
    "from collections.abc import Iterable\n"
    "\n"
    "\n"
    "def parse(token_ids: list[int]) -> tuple[str, bool]:\n"
    "    text = ''.join(chr(t) for t in token_ids)\n"
    "    return text, bool(text)\n"
    "\n"
    "\n"
    "def total(values: Iterable[int]) -> int:\n"
    "    return sum(values)\n"
)


def test_an_annotation_widened_with_its_typing_import_is_low(tmp_path: Path) -> None:
    repo = Repo(tmp_path, {"engine/harmony_utils.py": _UTILS})
    widened = _UTILS.replace("import Iterable\n", "import Iterable, Sequence\n").replace(
        "token_ids: list[int]", "token_ids: Sequence[int]"
    )
    analysis = analyse(repo.change("[Minor] Fix type (#22347)", {"engine/harmony_utils.py": widened}))
    assert analysis.importance == Importance.low
    assert not analysis.flags.user_facing


def test_an_import_the_code_then_calls_is_code(tmp_path: Path) -> None:
    repo = Repo(tmp_path, {"engine/harmony_utils.py": _UTILS})
    called = _UTILS.replace("import Iterable\n", "import Iterable, Sequence\n").replace(
        "    return sum(values)\n",
        "    if isinstance(values, Sequence):\n        return len(values)\n    return sum(values)\n",
    )
    analysis = analyse(repo.change("[Minor] Fix total", {"engine/harmony_utils.py": called}))
    assert analysis.importance != Importance.low
