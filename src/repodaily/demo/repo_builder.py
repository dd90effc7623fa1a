"""Build real git repositories with pinned dates, for the demo and for tests.

Every commit is made by the ``git`` executable itself, so what the source stage
reads is exactly what it would read from any clone.
"""

from __future__ import annotations

import os
import subprocess
from datetime import datetime
from pathlib import Path

_BASE_ENV = {
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_TERMINAL_PROMPT": "0",
    "LC_ALL": "C",
}


class RepoBuilder:
    """A git work tree where each :meth:`commit` has the author and dates you give it."""

    def __init__(self, path: Path, branch: str = "main") -> None:
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        self.git("init", "-q", "-b", branch)
        self.git("config", "user.name", "Repo Builder")
        self.git("config", "user.email", "builder@example.invalid")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str, env: dict[str, str] | None = None, input: bytes | None = None) -> str:
        result = subprocess.run(
            ["git", *args],
            cwd=self.path,
            env={**os.environ, **_BASE_ENV, **(env or {})},
            input=input,
            capture_output=True,
            check=True,
        )
        return result.stdout.decode("utf-8", "replace").strip()

    def write(self, relpath: str, content: str | bytes) -> None:
        target = self.path / relpath
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")

    def remove(self, relpath: str) -> None:
        self.git("rm", "-q", relpath)

    def move(self, old: str, new: str) -> None:
        (self.path / new).parent.mkdir(parents=True, exist_ok=True)
        self.git("mv", old, new)

    def commit(
        self,
        message: str | bytes,
        *,
        when: datetime,
        authored: datetime | None = None,
        author: str | bytes = "Ada Lovelace",
        email: str = "ada@example.invalid",
        files: dict[str, str | bytes] | None = None,
        committer: str = "GitHub",
    ) -> str:
        """Write ``files``, stage everything and commit; return the new SHA.

        ``when`` is the committer date (what a report day is cut by); ``authored``
        defaults to it. Both must be timezone-aware. A ``bytes`` message is stored
        verbatim (and so is a ``bytes`` author), which is how non-UTF-8 bytes get into history.
        """
        for relpath, content in (files or {}).items():
            self.write(relpath, content)
        self.git("add", "-A")
        if isinstance(message, bytes) or isinstance(author, bytes):
            return self._commit_verbatim(message, author, email, committer, when, authored or when)
        env = {
            "GIT_AUTHOR_NAME": author,
            "GIT_AUTHOR_EMAIL": email,
            "GIT_AUTHOR_DATE": (authored or when).isoformat(),
            "GIT_COMMITTER_NAME": committer,
            "GIT_COMMITTER_EMAIL": "noreply@example.invalid",
            "GIT_COMMITTER_DATE": when.isoformat(),
        }
        self.git(
            "commit", "-q", "--allow-empty", "--cleanup=verbatim", "-F", "-", env=env, input=message.encode("utf-8")
        )
        return self.git("rev-parse", "HEAD")

    def _commit_verbatim(
        self, message: str | bytes, author: str | bytes, email: str, committer: str, when: datetime, authored: datetime
    ) -> str:
        """Write the commit object by hand: ``git commit`` would transcode non-UTF-8 bytes as Latin-1."""

        def ident(name: str | bytes, mail: str, moment: datetime) -> bytes:
            raw_name = name if isinstance(name, bytes) else name.encode("utf-8")
            return raw_name + f" <{mail}> {int(moment.timestamp())} {moment.strftime('%z')}".encode()

        return self.write_commit(
            ident(author, email, authored),
            ident(committer, "noreply@example.invalid", when),
            message if isinstance(message, bytes) else message.encode("utf-8"),
        )

    def write_commit(self, author: bytes, committer: bytes, message: bytes) -> str:
        """Commit the index with ``author`` and ``committer`` lines exactly as given, and move HEAD to it.

        ``--literally`` skips git's own checks, so an ident git would refuse to write
        (an offset of ``+9999``, a missing ``>``) gets into history as other tools
        and old gits have put it there.
        """
        tree = self.git("write-tree")
        parent = self.git("rev-parse", "HEAD") if self._has_head() else ""
        raw = f"tree {tree}\n".encode() + (f"parent {parent}\n".encode() if parent else b"")
        raw += b"author " + author + b"\n" + b"committer " + committer + b"\n\n" + message
        sha = self.git("hash-object", "-t", "commit", "--literally", "-w", "--stdin", input=raw)
        self.git("update-ref", "HEAD", sha)
        return sha

    def _has_head(self) -> bool:
        try:
            self.git("rev-parse", "--verify", "-q", "HEAD")
        except subprocess.CalledProcessError:
            return False
        return True

    def merge(self, branch: str, message: str, *, when: datetime, author: str = "Ada Lovelace") -> str:
        """A true merge commit of ``branch`` into the current branch (no fast-forward)."""
        env = {
            "GIT_AUTHOR_NAME": author,
            "GIT_COMMITTER_NAME": "GitHub",
            "GIT_AUTHOR_DATE": when.isoformat(),
            "GIT_COMMITTER_DATE": when.isoformat(),
        }
        self.git("merge", "-q", "--no-ff", "-m", message, branch, env=env)
        return self.git("rev-parse", "HEAD")
