"""The heuristic on what a title's `[Tag]` says about the rest of the title.

A project that tags its titles by area (``[Docs]``, ``[Bugfix]``, ``[KV offload][2/N]``)
tells with the tag what the title's verb acts on. Every commit is made by git in a
temporary repository and read by the git source, as a report reads it
(:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_INPUTS = '''\
class FieldConfig:
    """How a keyword argument is sliced per item.

    Args:
        modality: The modality of the item that uses this keyword argument.
        slices: For each item, the size of the slice that
            is used to extract the data corresponding to it.

    Example:
        slices: [3, 4, 2]
        dim: 1
    """

    def __init__(self, modality, size_per_item, dim=0):
        self.modality = modality
        self.size_per_item = size_per_item
        self.dim = dim
'''
_DOCSTRING_FIXED = (
    _INPUTS.replace("slices: For each item, the size of the slice that", "size_per_item: For each item, the size")
    .replace("is used to extract the data", "of the slice that is used to extract the data")
    .replace("slices: [3, 4, 2]", "size_per_item: [3, 4, 2]")
)


def test_what_a_docs_tagged_title_fixes_is_the_documentation(tmp_path: Path) -> None:
    repo = Repo(tmp_path, {"engine/multimodal/inputs.py": _INPUTS})
    title = "[Docs] Fix griffe warnings in engine/multimodal (#25216)"
    analysis = analyse(repo.change(title, {"engine/multimodal/inputs.py": _DOCSTRING_FIXED}))
    assert (analysis.type, analysis.importance) == (ChangeType.docs, Importance.low)
    assert not analysis.flags.user_facing


def test_a_bugfix_tag_beside_the_docs_tag_keeps_the_fix(tmp_path: Path) -> None:
    repo = Repo(tmp_path, {"engine/multimodal/inputs.py": _INPUTS})
    fixed = _INPUTS.replace("self.dim = dim", "self.dim = int(dim)")
    title = "[Bugfix][Docs] Fix the slicing dimension read from docs"
    analysis = analyse(repo.change(title, {"engine/multimodal/inputs.py": fixed}))
    assert analysis.type == ChangeType.fix


_OFFLOADING = '''\
class OffloadingManager:
    """Decides which KV blocks leave the GPU and where they go."""

    def __init__(self, capacity):
        self.capacity = capacity
        self.blocks = {}

    def store(self, block_id, medium):
        if len(self.blocks) >= self.capacity:
            raise MemoryError("offloading medium is full")
        self.blocks[block_id] = medium
'''
_OFFLOADING_TEST = """\
from engine.offloading.manager import OffloadingManager


def test_store_respects_capacity():
    manager = OffloadingManager(capacity=1)
    manager.store(1, "cpu")
    assert manager.blocks == {1: "cpu"}
"""
_SCHEDULER = """\
class Scheduler:
    def __init__(self, config):
        self.config = config
"""


def test_a_series_step_that_only_adds_new_modules_is_groundwork(tmp_path: Path) -> None:
    repo = Repo(tmp_path, {"engine/scheduler.py": _SCHEDULER})
    files = {"engine/offloading/manager.py": _OFFLOADING, "tests/offloading/test_manager.py": _OFFLOADING_TEST}
    analysis = analyse(repo.change("[KV offload][2/N] Introduce LRU-based CPU offloading management", files))
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)
    assert not analysis.flags.user_facing
    assert "`engine/offloading/manager.py`" in analysis.importance_reason


def test_the_last_step_of_a_series_is_no_groundwork_whatever_files_it_adds(tmp_path: Path) -> None:
    repo = Repo(tmp_path, {"engine/scheduler.py": _SCHEDULER})
    files = {"engine/offloading/manager.py": _OFFLOADING, "tests/offloading/test_manager.py": _OFFLOADING_TEST}
    for marker in ("[2/2]", "[last/N]"):
        analysis = analyse(repo.change(f"[KV offload]{marker} Introduce LRU-based CPU offloading management", files))
        assert analysis.importance == Importance.medium, marker
        repo.change("Start over", {}, removed=tuple(files))


def test_the_series_step_that_wires_new_modules_in_is_what_users_get(tmp_path: Path) -> None:
    repo = Repo(tmp_path, {"engine/scheduler.py": _SCHEDULER})
    wired = _SCHEDULER.replace(
        "        self.config = config\n",
        "        self.config = config\n        self.offloading = OffloadingManager(config.cpu_blocks)\n",
    )
    files = {"engine/offloading/manager.py": _OFFLOADING, "engine/scheduler.py": wired}
    analysis = analyse(repo.change("[KV offload][4/N] Add CPU offloading to the scheduler", files))
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.medium)
