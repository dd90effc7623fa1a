"""Writing a site: each file atomically, only when its bytes change, and nothing removed that we did not write.

A manifest (``.repodaily-site.json`` in the site's root) records every file a
build wrote, with the key of what it was made from and the hash of its bytes.
The next build skips rendering a page whose key is unchanged and whose file
still holds those bytes; it writes a file only when its bytes differ; and it
removes only files the manifest says an earlier build wrote and this one no
longer makes (a repository no longer watched). Files it never wrote are left
alone. The manifest is a file in the site, which anyone who can write there can
edit (a deployed branch checked out, a cache restored): a path it names is
trusted only inside the site — relative, without ``..``, and not through a link
leading out of it — so no edit can make a build remove a file elsewhere; nor is
a page written through such a link (a deployed branch may hold links). A
directory that cannot be made is the user's to fix (exit code 2); a file that
cannot be written or removed is a failed write (exit code 3).
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from repodaily.errors import ConfigError, PublishError

MANIFEST = ".repodaily-site.json"


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


@dataclass
class WriteSummary:
    """What a build did to the files of the site."""

    written: list[str] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)


class SiteWriter:
    """The files of one site under ``root``, written through :meth:`write` and settled by :meth:`finish`."""

    def __init__(self, root: Path) -> None:
        self.root = root
        try:
            root.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise ConfigError(f"site directory {root} is not usable: {exc.strerror or exc}") from exc
        self._before: dict[str, dict[str, str]] = self._read_manifest()
        self._now: dict[str, dict[str, str]] = {}
        self.summary = WriteSummary()

    def _read_manifest(self) -> dict[str, dict[str, str]]:
        try:
            files = json.loads((self.root / MANIFEST).read_text(encoding="utf-8"))["files"]
        except (OSError, ValueError, KeyError, TypeError):
            return {}  # a first build, or a manifest no longer readable: every page is made again
        if not isinstance(files, dict):
            return {}
        return {path: entry for path, entry in files.items() if isinstance(entry, dict) and self._inside(path)}

    def _inside(self, path: str) -> bool:
        """Whether ``path`` names a file inside the site, as every path a build writes does."""
        named = PurePosixPath(path)
        if named.is_absolute() or ".." in named.parts or not named.parts:
            return False
        try:
            return (self.root / named).resolve().is_relative_to(self.root.resolve())
        except (OSError, RuntimeError):  # a loop of links
            return False

    def _holds(self, path: str, digest: str) -> bool:
        try:
            return _digest((self.root / path).read_bytes()) == digest
        except OSError:
            return False

    def fresh(self, path: str, key: str) -> bool:
        """Whether ``path`` was made from ``key`` by an earlier build and still holds what it wrote: then it is kept."""
        entry = self._before.get(path)
        if not entry or entry.get("key") != key or not self._holds(path, entry.get("hash", "")):
            return False
        self._now[path] = entry
        self.summary.unchanged += 1
        return True

    def write(self, path: str, content: str | bytes, key: str) -> None:
        """Make ``path`` hold ``content`` (made from ``key``): replaced atomically, and only if its bytes differ."""
        data = content.encode("utf-8") if isinstance(content, str) else content
        digest = _digest(data)
        self._now[path] = {"key": key, "hash": digest}
        if self._put(path, data, digest):
            self.summary.written.append(path)
        else:
            self.summary.unchanged += 1

    def _put(self, path: str, data: bytes, digest: str) -> bool:
        """Replace ``path`` with ``data`` unless it holds them already; whether it was written."""
        if self._holds(path, digest):
            return False
        target = self.root / path
        if not self._inside(path):
            raise PublishError(f"cannot write {target}: a link leads it out of the site directory {self.root}")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-", suffix=target.suffix)
        except OSError as exc:
            raise PublishError(f"cannot write {target}: {exc.strerror or exc}") from exc
        try:
            with os.fdopen(handle, "wb") as stream:
                stream.write(data)
            os.chmod(temporary, 0o644)
            os.replace(temporary, target)
        except BaseException as exc:
            # A full disk, a directory in the page's place, Ctrl-C: the half-written page, which no
            # manifest names and no later build would remove, must not be published with the site.
            Path(temporary).unlink(missing_ok=True)
            if isinstance(exc, OSError):
                raise PublishError(f"cannot write {target}: {exc.strerror or exc}") from exc
            raise
        return True

    def finish(self) -> WriteSummary:
        """Remove what earlier builds wrote and this one did not, and record this build's files."""
        for path in sorted(set(self._before) - set(self._now)):
            try:
                (self.root / path).unlink()
                self.summary.removed.append(path)
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise PublishError(f"cannot remove {self.root / path}: {exc.strerror or exc}") from exc
        manifest = (json.dumps({"files": self._now}, indent=0, sort_keys=True) + "\n").encode()
        self._put(MANIFEST, manifest, _digest(manifest))
        return self.summary
