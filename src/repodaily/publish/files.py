"""Write reports as files at the configured path template, atomically.

A reader (a static site, a sync job, a person) never sees half a report: each
file is written to a temporary sibling (``.NAME.XXXXXXXX.tmp``) and renamed into place.
Nor does it see a credential: the content passes through the run's redactor
first, dry runs too.

A writer killed between the two (``kill -9``, OOM, power loss) leaves its
temporary file behind. Each successful write therefore removes the abandoned
ones beside it. A temporary file is abandoned when no process holds the lock
its writer takes on it for as long as it lives: the kernel drops a dead
process's locks, and a concurrent run writing into the same directory keeps
its own file locked until it has been renamed. The age of a file decides
nothing: a slow disk can keep a live writer busy for minutes, and a rerun a
second after a crash should already clean up.
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # not POSIX: no advisory locks, so a live writer's file cannot be told apart; none is removed
    fcntl = None  # type: ignore[assignment]  # a module or None; every use checks for None first

from pydantic import BaseModel, ConfigDict, Field, field_validator

from repodaily.errors import ConfigError, PublishError
from repodaily.home import expand_home
from repodaily.hookspecs import Register, hookimpl
from repodaily.models import DailyReport
from repodaily.plugins import PluginSpec
from repodaily.publish.base import Delivery, PublishContext, check_template, fill_template
from repodaily.render.base import Artefact
from repodaily.weekly import WeeklyDigest

# What tempfile names the temporary siblings: a dot, the target's name, eight random characters.
_TEMP_NAME = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")


def _no_nul(value: str) -> str:
    # TOML can spell a NUL ("\u0000"); no file system takes one, so refuse it here, not at the first write.
    if "\x00" in value:
        raise ValueError("a path cannot contain a NUL character")
    return value


class FilesSettings(BaseModel):
    """Where reports are written: ``path``, a template, under ``dir``; the artefact's suffix ends the name."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    dir: str = Field(default="reports", min_length=1)
    path: str = "{year}/{repo}/{date}.md"

    @field_validator("dir", "path")
    @classmethod
    def _no_nul_character(cls, value: str) -> str:
        return _no_nul(value)

    @field_validator("path")
    @classmethod
    def _known_fields(cls, value: str) -> str:
        filled = Path(check_template(value, "path template"))
        if not filled.name:
            raise ValueError("the path template must end in a file name")
        if filled.is_absolute() or ".." in filled.parts:
            # Said when the config is read, not at the first report's write: no field can bring it back in.
            raise ValueError("the path template leaves the output directory (an absolute path, or '..')")
        return value


def report_path(output: FilesSettings, report: DailyReport, suffix: str) -> Path:
    """Where ``report`` goes with file suffix ``suffix``: the path template under the output dir."""
    relative = Path(fill_template(output.path, report))
    if relative.is_absolute() or ".." in relative.parts:
        raise ConfigError(f"output.path {output.path!r} leaves the output directory for {report.repo}")
    return expand_home(output.dir) / relative.with_suffix(f".{suffix}")


def write_atomic(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that the file is either the old one or the whole new one."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise PublishError(f"cannot write {path}: the report is not valid Unicode ({exc.reason})") from exc
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        handle = _locked_temp_file(path)
    except OSError as exc:
        raise PublishError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with handle:  # the lock lasts until the file is closed, after its rename
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
            os.chmod(handle.name, 0o644)
            os.replace(handle.name, path)
    except OSError as exc:
        Path(handle.name).unlink(missing_ok=True)
        raise PublishError(f"cannot write {path}: {exc.strerror or exc}") from exc
    _remove_abandoned_temp_files(path.parent)


def _locked_temp_file(path: Path) -> IO[bytes]:
    """A new temporary sibling of ``path``, locked so that no other run takes it for abandoned."""
    while True:
        handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False)
        if fcntl is None:
            return handle
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        except OSError:  # a file system without locks (some NFS): no run can lock to sweep there either
            return handle
        # Another run may have swept the file between its creation and the lock; then make another.
        if os.fstat(handle.fileno()).st_nlink:
            return handle
        handle.close()


def _remove_abandoned_temp_files(directory: Path) -> None:
    """Remove the temporary files in ``directory`` whose writers died before renaming them.

    Best effort: a file that cannot be opened or removed is left for a later run.
    """
    if fcntl is None:
        return
    try:
        names = [name for name in os.listdir(directory) if _TEMP_NAME.fullmatch(name)]
    except OSError:
        return
    for name in names:
        try:
            fd = os.open(directory / name, os.O_RDONLY)
        except OSError:
            continue  # renamed into place meanwhile, or another run removed it
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # Removed while locked, so a writer that created it a moment ago sees it gone and makes another.
            (directory / name).unlink(missing_ok=True)
        except OSError:
            pass  # locked (its writer is alive), or a file system without locks
        finally:
            os.close(fd)


class FilesPublisher:
    """:class:`~repodaily.publish.base.Publisher` into a directory: each artefact at the path template, atomically.

    A rerun writes the same paths again, so a report is never delivered twice.
    """

    #: Writing the same bytes again changes nothing, and a deleted file should come back: the ledger lets it repeat.
    repeatable = True

    def __init__(self, *, settings: FilesSettings, context: PublishContext) -> None:
        self.settings = settings
        self.context = context

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        return self._write([(report_path(self.settings, report, a.suffix), a) for a in artefacts])

    async def publish_week(self, digest: WeeklyDigest, artefacts: Sequence[Artefact]) -> Delivery:
        """A week's digest beside the days: ``{dir}/{ISO year}/{repo}/{YYYY-Www}.{suffix}``."""
        folder = expand_home(self.settings.dir) / digest.week.partition("-")[0]
        placed = []
        for artefact in artefacts:
            relative = Path(*digest.repo.split("/"), f"{digest.week}.{artefact.suffix}")
            if relative.is_absolute() or ".." in relative.parts:
                raise ConfigError(f"repository name {digest.repo!r} leaves the output directory")
            placed.append((folder / relative, artefact))
        return self._write(placed)

    def _write(self, placed: Sequence[tuple[Path, Artefact]]) -> Delivery:
        """Each artefact at its path, redacted; a dry run says what it would write instead."""
        paths, previews = [], []
        for path, artefact in placed:
            content = self.context.redact(artefact.text)
            if self.context.dry_run:
                previews.append(f"# would write {path}\n{content}")
            else:
                write_atomic(path, content)
            paths.append(str(path))
        return Delivery("files", locations=paths, preview="".join(previews) if self.context.dry_run else None)

    async def aclose(self) -> None:
        pass


@hookimpl
def register_publishers(register: Register) -> None:
    register(PluginSpec("files", FilesPublisher, settings=FilesSettings, description="files under a directory"))
