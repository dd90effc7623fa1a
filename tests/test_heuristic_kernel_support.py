"""The heuristic on kernel work that brings support or a new backend.

A `[Kernel]` tag reads as performance work, since a compute kernel is usually
written to make an operation faster. A title whose verb brings *support* or a
*backend* names a capability instead, however it phrases it. Every commit is
made by git in a temporary repository and read by the git source, as a report
reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType

_REGISTRY = '''\
"""Kernels that implement a mixed-precision linear layer, tried in order."""

from engine.kernels.marlin import MarlinKernel

KERNELS = [MarlinKernel]
'''
_MARLIN = '''\
class MarlinKernel:
    """Mixed-precision matrix multiply through the Marlin kernels."""

    def can_implement(self, config):
        return config.group_size in (-1, 128)

    def apply(self, layer, x):
        return layer.weight.dequantize() @ x
'''
_CONCH = _MARLIN.replace("MarlinKernel", "ConchKernel").replace("the Marlin kernels", "Triton kernels")
_ADDED = _REGISTRY.replace(
    "KERNELS = [MarlinKernel]",
    "from engine.kernels.conch import ConchKernel\n\nKERNELS = [MarlinKernel, ConchKernel]",
)


@pytest.mark.parametrize(
    "title",
    [
        "[Kernel] Add Conch backend for the mixed-precision linear layer",
        "[Kernel] Add FP8 KV cache support to the Triton decode attention",
        "[Kernel] Support grouped quantization for the mixed-precision linear layer",
    ],
)
def test_kernel_work_that_brings_support_or_a_backend_is_a_feature(tmp_path: Path, title: str) -> None:
    repo = Repo(tmp_path, {"engine/kernels/__init__.py": _REGISTRY, "engine/kernels/marlin.py": _MARLIN})
    files = {"engine/kernels/__init__.py": _ADDED, "engine/kernels/conch.py": _CONCH}
    assert analyse(repo.change(title, files)).type == ChangeType.feat


def test_kernel_work_that_supports_cuda_graphs_stays_performance(tmp_path: Path) -> None:
    # Capturing a kernel in CUDA graphs is a way to run it faster, not a capability.
    repo = Repo(tmp_path, {"engine/kernels/__init__.py": _REGISTRY, "engine/kernels/marlin.py": _MARLIN})
    files = {"engine/kernels/__init__.py": _ADDED, "engine/kernels/conch.py": _CONCH}
    title = "[Kernel] Support CUDA graphs in the mixed-precision linear kernel"
    assert analyse(repo.change(title, files)).type == ChangeType.perf
