"""Which repositories one of n parallel jobs reports on: a stable hash of each name picks its shard.

Fanning out is the scheduler's job — a GitHub Actions matrix, a Kubernetes
Indexed Job, a Slurm array, cron on several machines: each job runs
``repodaily run --shard I/N`` with the same config, and the N jobs together
report on every repository exactly once. The hash is SHA-256 of the name, not
Python's ``hash()`` (salted per process), so every job, machine and version
agrees on where a repository belongs, and adding a repository moves no other.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass

from repodaily.errors import ConfigError

__all__ = ["Shard"]

_SPEC = re.compile(r"^\s*(\d+)\s*/\s*(\d+)\s*$", re.ASCII)


@dataclass(frozen=True)
class Shard:
    """Shard ``index`` (0-based, as Kubernetes' ``JOB_COMPLETION_INDEX``) of ``count``."""

    index: int
    count: int

    @classmethod
    def parse(cls, text: str) -> Shard:
        """``I/N`` with 0 ≤ I < N; anything else is a ConfigError saying what is expected."""
        spec = _SPEC.match(text)
        if spec is None or not 0 <= int(spec.group(1)) < int(spec.group(2)):
            raise ConfigError(f"--shard {text!r}: expected I/N with 0 <= I < N, e.g. 0/4 for the first of four jobs")
        return cls(int(spec.group(1)), int(spec.group(2)))

    def holds(self, name: str) -> bool:
        """Whether the repository called ``name`` (``owner/repo``, else its URL or path) is this shard's."""
        digest = hashlib.sha256(name.encode("utf-8")).digest()
        return int.from_bytes(digest[:8], "big") % self.count == self.index

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"
