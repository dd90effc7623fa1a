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
from dataclasses import dataclass
from pathlib import Path
from typing import IO

try:
    import fcntl
except ImportError:  # not POSIX: no advisory locks, so a live writer's file cannot be told apart; none is removed
    fcntl = None  # type: ignore[assignment]

from repodaily.config import OutputConfig
from repodaily.errors import ConfigError, PublishError
from repodaily.models import DailyReport
from repodaily.redact import NO_SECRETS, Redactor

# What tempfile names the temporary siblings: a dot, the target's name, eight random characters.
_TEMP_NAME = re.compile(r"\..+\.[a-z0-9_]{8}\.tmp")


@dataclass(frozen=True)
class ReportFile:
    """One format of one report: where it went, and its text only when it was not written (a dry run).

    A written file's text lives on disk; keeping it here too would make a long
    backfill hold every report it wrote.
    """

    path: Path
    format: str
    content: str | None
    written: bool


def report_path(output: OutputConfig, report: DailyReport, fmt: str) -> Path:
    """Where ``report`` goes in format ``fmt``: the path template under the output dir."""
    owner, _, name = report.repo.partition("/")
    relative = Path(
        output.path.format(
            repo=report.repo,
            owner=owner,
            name=name,
            date=report.date.isoformat(),
            year=f"{report.date.year:04d}",
            month=f"{report.date.month:02d}",
            day=f"{report.date.day:02d}",
            lang=report.language,
        )
    )
    if relative.is_absolute() or ".." in relative.parts:
        raise ConfigError(f"output.path {output.path!r} leaves the output directory for {report.repo}")
    return Path(output.dir).expanduser() / relative.with_suffix(f".{fmt}")


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


def write_reports(
    report: DailyReport,
    rendered: dict[str, str],
    output: OutputConfig,
    *,
    dry_run: bool = False,
    redact: Redactor = NO_SECRETS,
) -> list[ReportFile]:
    """Write each rendered format of ``report``, redacted; with ``dry_run`` only say where it would go."""
    files = []
    for fmt, text in rendered.items():
        path = report_path(output, report, fmt)
        content = redact(text)
        if not dry_run:
            write_atomic(path, content)
        files.append(ReportFile(path=path, format=fmt, content=content if dry_run else None, written=not dry_run))
    return files
