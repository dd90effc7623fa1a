"""Write reports as files at the configured path template, atomically.

A reader (a static site, a sync job, a person) never sees half a report: each
file is written to a temporary sibling and renamed into place. Nor does it see a
credential: the content passes through the run's redactor first, dry runs too.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from repodaily.config import OutputConfig
from repodaily.errors import ConfigError, PublishError
from repodaily.models import DailyReport
from repodaily.redact import NO_SECRETS, Redactor


@dataclass(frozen=True)
class ReportFile:
    path: Path
    format: str
    content: str
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
        handle = tempfile.NamedTemporaryFile(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp", delete=False)
    except OSError as exc:
        raise PublishError(f"cannot write {path}: {exc.strerror or exc}") from exc
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(handle.name, 0o644)
        os.replace(handle.name, path)
    except OSError as exc:
        Path(handle.name).unlink(missing_ok=True)
        raise PublishError(f"cannot write {path}: {exc.strerror or exc}") from exc


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
        files.append(ReportFile(path=path, format=fmt, content=content, written=not dry_run))
    return files
