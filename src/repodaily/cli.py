"""The ``repodaily`` command line.

Commands only parse options and call the pipeline; this module alone turns
outcomes into exit codes:

  0  every report written, every commit analysed as configured
  1  written, but degraded: some analyses fell back, some commits' file contents are missing
     from the repository, some repositories failed, or a delivery target failed
  2  usage or input error: bad option, date, config, repository or cache directory
  3  a report could not be rendered or written, a batch command's call to the provider failed, or an
     unexpected internal error
  130  interrupted (Ctrl-C)
  141  stdout was closed before the report was written (``| head``)
  143  terminated (SIGTERM: a cancelled job, a stopped container), cleaned up as after Ctrl-C

Every error is one line on stderr, click's own usage errors included.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import functools
import io
import json
import logging
import os
import shutil
import signal
import stat
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, NoReturn, ParamSpec, TypeVar

import click
from pydantic import BaseModel
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table
from rich.text import Text

from repodaily import __version__
from repodaily.batch.lines import MAX_BYTES, MAX_LINES
from repodaily.config import Config, RepoConfig, command_line_repo, find_config_file, load_config
from repodaily.credentials import redactor_for
from repodaily.delivery import TargetResult, deliver_week
from repodaily.errors import ConfigError, RepodailyError, SourceError, StoreError
from repodaily.home import expand_home
from repodaily.interrupts import GRACE_S, postponed, stop_all
from repodaily.models import DailyReport
from repodaily.pipeline import Pipeline, ReportRecord, RunSummary
from repodaily.plan import resolve_days, today_in
from repodaily.plugins import KINDS, Health, Kind, registry
from repodaily.publish.files import write_atomic
from repodaily.redact import RedactingFormatter, Redactor, single_line, terminal_text
from repodaily.render.text import shorten
from repodaily.render.weekly import WEEKLY_FORMATS, render_weekly, weekly_artefacts
from repodaily.shards import Shard
from repodaily.store import Store
from repodaily.user_files import kind_of, write_named
from repodaily.weekly import WeeklyDigest, stored_weeklies

EXIT_OK, EXIT_DEGRADED, EXIT_USAGE, EXIT_FAILED = 0, 1, 2, 3
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE, EXIT_TERMINATED = 130, 141, 143  # 128 + SIGINT, SIGPIPE, SIGTERM
_INPUT_ERRORS = (ConfigError, SourceError, StoreError)

log = logging.getLogger("repodaily")
_stderr = Console(stderr=True)
# Every log line on stderr, and every line this module prints, passes through its redactor.
_log_format = RedactingFormatter("repodaily: %(levelname)s: %(message)s")
F = TypeVar("F", bound=Callable[..., Any])
P = ParamSpec("P")
R = TypeVar("R")


class _Directory(click.Path):
    """A directory to write into. click's ``file_okay=False`` refuses a regular file only: a FIFO or a
    device (``--output /dev/null``) passed, and failed later as a delivery or an internal error."""

    def __init__(self) -> None:
        super().__init__(file_okay=False)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        path = super().convert(value, param, ctx)
        with contextlib.suppress(OSError):  # one that does not exist yet is made
            if not stat.S_ISDIR(mode := os.stat(path).st_mode):
                self.fail(f"{os.fsdecode(path)!r} is not a directory but {kind_of(mode)}", param, ctx)
        return path


#: The most of one line for people on stderr: a reason quoting a server's body or a hostile name ends there.
_ERROR_LINE_CHARS = 2000


def _echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    # A line for people on stderr carries servers' and commits' words (an error's reason) as the log
    # does, so it is one line and shows their controls as the log does, cut where it would fill the
    # screen (after redaction, so no cut can leave part of a secret unmatched); stdout carries
    # reports, whose bytes are theirs.
    text = _log_format.redactor(text)
    click.echo(shorten(terminal_text(single_line(text)), _ERROR_LINE_CHARS) if err else text, err=err, nl=nl)


def _guard(config: Config, *also: BaseModel) -> Redactor:
    """The redactor of every credential the run holds, from now on also applied to stderr and stdout."""
    _log_format.redactor = redactor_for(config, *also, environ=os.environ)
    return _log_format.redactor


def _error(message: str) -> None:
    """One line on stderr whatever the message holds: scripts and log scrapers read it line by line."""
    _echo(f"repodaily: error: {message}", err=True)


def _fail(message: str, code: int) -> NoReturn:
    _error(message)
    sys.exit(code)


def _describe(error: Exception) -> str:
    """Our errors speak for themselves; anything else is named, since its message may not say much."""
    if isinstance(error, RepodailyError):
        return str(error)
    return f"unexpected {type(error).__name__}: {error} (rerun with -vv for the traceback)"


def _exits_cleanly(command: Callable[P, R]) -> Callable[P, R]:
    """Turn our errors into one line on stderr and the documented exit code."""

    @functools.wraps(command)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return command(*args, **kwargs)
        except _INPUT_ERRORS as exc:
            _fail(str(exc), EXIT_USAGE)
        except RepodailyError as exc:
            _fail(str(exc), EXIT_FAILED)

    return wrapper


# click >= 8.2 raises "show the help" for a bare `repodaily` as a usage error; it stays the help.
_SHOW_HELP = getattr(click.exceptions, "NoArgsIsHelpError", ())


class _Terminated(KeyboardInterrupt):
    """SIGTERM, raised where the run is: a scheduler stopping a job gets Ctrl-C's cleanup, not a sudden death.

    Python's default for SIGTERM ends the process at once: no ``finally`` runs, a
    temporary file stays behind and the log says nothing. As an interrupt, every
    cleanup runs and stderr says why the run stopped.
    """


def _terminate(signum: int, frame: object) -> None:
    if not _waits_for_delivery(signum):
        stop_all()
        raise _Terminated


def _interrupt(signum: int, frame: object) -> None:
    if not _waits_for_delivery(signum):
        stop_all()
        raise KeyboardInterrupt


def _waits_for_delivery(signum: int) -> bool:
    """Whether the interrupt waits for a delivery under way to be recorded (:func:`postponed`), saying so."""
    if not postponed(signum):
        return False
    _echo(
        f"repodaily: stopping once the delivery under way is recorded (at most {GRACE_S:.0f} s; again to stop now)",
        err=True,
    )
    return True


@contextlib.contextmanager
def _terminates_cleanly() -> Iterator[None]:
    """SIGTERM as :class:`_Terminated`, Ctrl-C as ever, while a command runs; the handlers before them afterwards.

    Both first stop the work running outside the main thread (:mod:`repodaily.interrupts`),
    which would otherwise keep the process alive after the signal.
    """
    try:
        previous = {number: signal.signal(number, handler) for number, handler in _HANDLERS.items()}
    except ValueError:  # not the main thread: the embedding program owns its signals
        yield
        return
    try:
        yield
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


_HANDLERS = {signal.SIGTERM: _terminate, signal.SIGINT: _interrupt}


class _Repodaily(click.Group):
    """The top-level group: every way a command ends is one line on stderr and a documented exit code.

    In standalone mode click prints a usage block for a bad option, "Aborted!" with
    exit 1 for Ctrl-C, exits 1 on a closed stdout, and lets any other exception out
    as a traceback. Exit code 1 means "degraded" here, so the group runs click
    without its standalone handling and maps each outcome itself.
    """

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        try:
            with _terminates_cleanly():
                code = super().main(args, prog_name, complete_var, standalone_mode=False, **extra)
        except _SHOW_HELP as exc:
            exc.show()
            sys.exit(exc.exit_code)
        except click.ClickException as exc:
            context = getattr(exc, "ctx", None)
            hint = f" (see '{context.command_path} --help')" if context is not None else ""
            _fail(exc.format_message() + hint, EXIT_USAGE)
        except click.Abort:  # click's form of KeyboardInterrupt
            _fail("interrupted", EXIT_INTERRUPTED)
        except Exception as exc:
            # A last resort: every failure we foresee is one of our errors, with its own code.
            log.debug("unexpected error", exc_info=exc)
            _fail(_describe(exc), EXIT_FAILED)
        # Commands exit themselves; what returns here is --help, --version or a command with nothing to report.
        sys.exit(code if isinstance(code, int) else EXIT_OK)

    def invoke(self, ctx: click.Context) -> Any:
        # Here rather than in main(): click turns a broken pipe into exit 1 before main() sees it.
        try:
            return super().invoke(ctx)
        except _Terminated:
            _fail("terminated", EXIT_TERMINATED)
        except KeyboardInterrupt:
            # Before click sees it: click writes a blank line first, to close a terminal's "^C"
            # echo, and a log of a job without a terminal would get it as a line of its own.
            if sys.stderr.isatty():
                _echo("", err=True)
            _fail("interrupted", EXIT_INTERRUPTED)
        except BrokenPipeError:
            # The reader of stdout went away (`| head -1`): nobody is left to tell, and the
            # interpreter must not fail again flushing what is still buffered for it.
            if sys.stdout is not None:  # None: started with stdout closed, nothing buffered for it
                os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(EXIT_BROKEN_PIPE)


class _BarProgress:
    """Rich progress bars on stderr, one per piece of work under way, shown only when stderr is a terminal.

    A bar goes when its work is done; a run's repositories each keep theirs
    while they work side by side.
    """

    def __init__(self) -> None:
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=_stderr,
            transient=True,
            disable=not _stderr.is_terminal,
        )
        self._tasks: dict[str, Any] = {}

    def __enter__(self) -> _BarProgress:
        self._progress.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._progress.stop()

    def begin(self, label: str, total: int) -> None:
        self._end(label)
        if total:
            self._tasks[label] = self._progress.add_task(label, total=total)

    def advance(self, label: str) -> None:
        task = self._tasks.get(label)
        if task is not None:
            self._progress.advance(task)
            if self._progress.tasks[self._progress.task_ids.index(task)].finished:
                self._end(label)  # a hundred repositories must not leave a hundred full bars

    def _end(self, label: str) -> None:
        if label in self._tasks:
            self._progress.remove_task(self._tasks.pop(label))


# --------------------------------------------------------------------------- shared options


_DAYS = [
    click.option("--date", "day", metavar="YYYY-MM-DD", help="Report day (default: yesterday in the timezone)."),
    click.option("--since", metavar="YYYY-MM-DD", help="First day of a range (inclusive)."),
    click.option("--until", metavar="YYYY-MM-DD", help="Last day of a range (inclusive; default yesterday)."),
    click.option("--lang", type=click.Choice(["zh", "en"]), help="Report language (default from config: zh)."),
    click.option(
        "--analyzer",
        metavar="NAME",
        help="Analyzer to use (default from config: auto, the LLM if an endpoint is configured, else heuristic).",
    ),
    click.option("--timezone", "tz", metavar="IANA", help="Timezone that cuts the day (default Asia/Shanghai)."),
]
_CONFIG = click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), help="Config file (default ./repodaily.toml)."
)
_OUTPUT = [
    click.option(
        "--format",
        "formats",
        metavar="NAME",
        multiple=True,
        help="Output format, a renderer: md, html or json, or a plugin's; repeat for several with --output "
        "(default from config: md; stdout takes one, else the config's first).",
    ),
    click.option(
        "--output",
        type=_Directory(),
        help="Write files under this directory, instead of delivering to the [[publish]] targets.",
    ),
    click.option("--dry-run", is_flag=True, help="Print what would be sent to each target instead of sending it."),
    click.option("--force", is_flag=True, help="Deliver again what the targets already have (the ledger says so)."),
]


_SHARD = click.option(
    "--shard",
    metavar="I/N",
    help="Only the repositories of shard I (0-based) of N, by a stable hash of their names: N jobs cover all.",
)


def _with(options: Sequence[Callable[[F], F]], command: F) -> F:
    """``command`` with ``options``, shown in --help in the order given."""
    for option in reversed(options):
        command = option(command)
    return command


def _report_options(command: F) -> F:
    """The options ``report`` and ``run`` share."""
    return _with([*_DAYS, *_OUTPUT, _CONFIG], command)


def _repo_options(command: F) -> F:
    """How a command names one repository by its location, as ``report`` does."""
    options = [
        click.option(
            "--name", metavar="OWNER/REPO", help="Repository name (default: taken from the URL or the clone's origin)."
        ),
        click.option("--branch", metavar="BRANCH", help="Branch to read (default: the default branch)."),
        click.option("--source", default="git", show_default=True, metavar="NAME", help="Source plugin that reads it."),
    ]
    return _with(options, command)


def _load(config_path: str | None, **flags: Any) -> Config:
    # ``is not None``: an empty value (``--timezone "$UNSET"``) is refused by validation, not ignored.
    overrides: dict[str, Any] = {}
    if flags.get("lang") is not None:
        overrides["language"] = flags["lang"]
    if flags.get("tz") is not None:
        overrides["timezone"] = flags["tz"]
    if flags.get("analyzer") is not None:
        overrides["analyzer"] = {"name": flags["analyzer"]}
    output: dict[str, Any] = {}
    if flags.get("output") is not None:
        output["dir"] = flags["output"]
        # Asked for files in a directory, and nowhere else: no e-mail or chat post behind the user's back.
        overrides["publish"] = []
    if flags.get("formats"):
        output["formats"] = list(dict.fromkeys(flags["formats"]))
    if output:
        overrides["output"] = output
    if flags.get("stdout"):
        overrides["publish"] = [{"type": "stdout"}]
    config = load_config(find_config_file(config_path, os.environ), overrides=overrides)
    if flags.get("stdout") and len(config.output.formats) > 1:
        # The config's formats are for files; without --format, stdout shows the first of them.
        output_section = config.output.model_copy(update={"formats": config.output.formats[:1]})
        config = config.model_copy(update={"output": output_section})
    return config


def _exit_code(summary: RunSummary) -> int:
    degraded = (
        summary.degraded_commits or summary.incomplete_commits or summary.failed_repos or summary.failed_deliveries
    )
    return EXIT_DEGRADED if degraded else EXIT_OK


def _echo_delivery(result: TargetResult, record: ReportRecord | None) -> None:
    """Say where a report went the moment it did, or show what a dry run would send."""
    delivery = result.delivery
    if delivery is None:
        return
    if delivery.preview is not None:
        if not delivery.preview.startswith("# "):  # a preview that does not say where it would go
            where = ", ".join(delivery.locations)
            _echo(f"# would send to {result.target}" + (f" ({where})" if where else ""))
        _echo(delivery.preview)
    for location in delivery.locations if delivery.preview is None else []:
        _echo(location)


def _log_delivery(result: TargetResult, record: ReportRecord) -> None:
    """One line per repository, day and target, for a log without a terminal (cron, GitHub Actions)."""
    _echo_delivery(result, record)
    stats = record.stats
    outcome = f"failed: {result.error}" if result.status == "failed" else result.status
    _echo(
        f"repodaily: {result.repo} {result.day} → {result.target}: {outcome} · {stats.total} commits "
        f"(high {stats.high}, medium {stats.medium}, low {stats.low}), degraded {stats.degraded} "
        f"· {record.run.seconds:.1f} s",
        err=True,
    )


def _log_summary(summary: RunSummary, seconds: float) -> None:
    """The last line of an unattended run: what it covered and how the deliveries went."""
    reports = [r for o in summary.outcomes for r in o.reports]
    statuses = Counter(result.status for o in summary.outcomes for result in o.results)
    deliveries = ", ".join(f"{n} {status}" for status, n in statuses.items()) or "none"
    _echo(
        f"repodaily: done: {len(summary.outcomes)} repositories ({len(summary.failed_repos)} failed), "
        f"{len(reports)} reports, {sum(r.stats.total for r in reports)} commits "
        f"(degraded {summary.degraded_commits}); deliveries: {deliveries} · {seconds:.1f} s",
        err=True,
    )


def _print_summary(summary: RunSummary) -> None:
    for outcome in summary.outcomes:
        if outcome.error is not None:
            _error(f"{outcome.repo}: {_describe(outcome.error)}")
        for failed in outcome.failed_deliveries:
            _error(f"{failed.repo} {failed.day} → {failed.target}: {failed.error}")
    if summary.degraded_commits:
        _echo(f"repodaily: {summary.degraded_commits} commit(s) degraded; see the reports' banner", err=True)
    if summary.incomplete_commits:
        _echo(
            f"repodaily: {summary.incomplete_commits} commit(s) with file contents missing from the repository;"
            " see the reports' banner",
            err=True,
        )


# --------------------------------------------------------------------------- commands


@click.group(cls=_Repodaily, context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="repodaily")
@click.option("-v", "--verbose", count=True, help="More logging on stderr (-vv for debug).")
def main(verbose: int) -> None:
    """Daily reports of what changed in the repositories you depend on.

    For each repository and calendar day, repodaily reads the commits that landed
    on the default branch, judges each one (type, importance, risks) and writes a
    report grouped by importance, in Chinese (default) or English.

    Start with `repodaily demo`. Exit codes: 0 ok, 1 degraded (some analyses
    fell back, a repository or a delivery target failed), 2 usage/input error,
    3 a report could not be rendered or written (or an internal error), 130
    interrupted, 141 stdout closed early (`| head`), 143 terminated (SIGTERM).
    """
    _utf8_stdout()
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose, 2)]
    # Until a command has read its config, the credentials known are the environment's.
    _log_format.redactor = redactor_for(environ=os.environ)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_log_format)
    logging.basicConfig(level=level, handlers=[handler], force=True)


def _utf8_stdout() -> None:
    """Write standard output in UTF-8, whatever the locale's encoding.

    Reports are UTF-8 text, as their files are: in ASCII or Latin-1 (``PYTHONIOENCODING``,
    a redirect on a system whose locale is cp1252) a report's first Chinese character or
    emoji would lose the whole report. stderr keeps its encoding: Python escapes there
    what the terminal cannot show.
    """
    stream = sys.stdout
    if isinstance(stream, io.TextIOWrapper) and codecs.lookup(stream.encoding).name != "utf-8":
        stream.reconfigure(encoding="utf-8")


def _located(location: str, source: str, **fields: Any) -> RepoConfig:
    """The repository a command names by its location, as the ``source`` plugin reads locations."""
    if not location:
        raise ConfigError("PATH_OR_URL is empty")
    spec = registry().get("source", source)
    if spec.locate is None:
        raise ConfigError(f"source {source!r} takes no location on the command line; configure it in [[repos]]")
    return command_line_repo(source=source, **fields, **spec.locate(location))


@main.command()
@click.argument("location", metavar="PATH_OR_URL")
@_repo_options
@_report_options
@_exits_cleanly
def report(
    location: str,
    name: str | None,
    branch: str | None,
    source: str,
    config_path: str | None,
    dry_run: bool,
    **flags: Any,
) -> None:
    """Report on one repository for one day or a range.

    PATH_OR_URL is a local clone or a git URL (mirrored under the cache
    directory and fetched incrementally). Without --output the report goes to
    stdout; with --output it is written at the configured path template, not
    to the [[publish]] targets.

    \b
    Examples:
      repodaily report ~/src/vllm --name vllm-project/vllm --date 2026-02-09
      repodaily report https://github.com/vllm-project/vllm.git --since 2026-02-01 --until 2026-02-07 --output reports
    """
    to_stdout = flags["output"] is None
    if to_stdout and len(set(flags["formats"])) > 1:
        raise ConfigError("stdout takes one --format; give --output DIR to write several")
    config = _load(config_path, stdout=to_stdout, **flags)
    days = resolve_days(day=flags["day"], since=flags["since"], until=flags["until"], tz=config.tz)
    repo = _located(location, source, name=name, **({"branch": branch} if branch else {}))
    sys.exit(_generate(config, [repo], days, dry_run=dry_run, force=flags["force"]))


@main.command()
@click.option(
    "--repo", "only", metavar="OWNER/REPO", multiple=True, help="Only this configured repository (repeatable)."
)
@_SHARD
@_report_options
@_exits_cleanly
def run(only: tuple[str, ...], shard: str | None, config_path: str | None, dry_run: bool, **flags: Any) -> None:
    """Report on every configured repository (the daily job).

    Reads [[repos]] from the config, reports on yesterday in the configured
    timezone (or --date / --since --until) and delivers each report to the
    [[publish]] targets (without any, or with --output, files at the path
    template under the output directory). A repository that fails is reported
    and skipped; the others are still delivered (exit code 1). With --shard I/N, N jobs
    (a CI matrix, a Kubernetes Indexed Job) split the repositories between them;
    a shard that holds none exits 0.
    """
    config = _load(config_path, **flags)
    days = resolve_days(day=flags["day"], since=flags["since"], until=flags["until"], tz=config.tz)
    repos = _sharded(_configured_repos(config, only), shard)
    if not repos:
        return
    # Without a terminal (cron, GitHub Actions) the log is all a reader has: a line per delivery and a total.
    unattended = not _stderr.is_terminal
    sys.exit(_generate(config, repos, days, dry_run=dry_run, force=flags["force"], log_lines=unattended))


def _sharded(repos: list[RepoConfig], shard: str | None) -> list[RepoConfig]:
    """The repositories of shard ``shard`` (all without one); a shard holding none says so and gives none."""
    if shard is None:
        return repos
    part = Shard.parse(shard)
    held = [r for r in repos if part.holds(r.label)]  # its name, else its URL or path: as configured
    if not held:
        _echo(f"repodaily: shard {part} holds none of the {len(repos)} repositories; nothing to do", err=True)
    return held


def _configured_repos(config: Config, only: Sequence[str]) -> list[RepoConfig]:
    """The config's [[repos]], only those named by ``--repo`` when any is."""
    repos = config.repos
    if only:
        unknown = sorted(set(only) - {r.name for r in repos})
        if unknown:
            raise ConfigError(f"--repo {', '.join(unknown)} is not in the config's [[repos]]")
        repos = [r for r in repos if r.name in only]
    if not repos:
        raise ConfigError("no repositories configured: add [[repos]] entries to repodaily.toml")
    return repos


def _generate(
    config: Config, repos: list[RepoConfig], days: list[Any], *, dry_run: bool, force: bool, log_lines: bool = False
) -> int:
    redact = _guard(config, *repos)
    started = time.monotonic()
    with Store(config.cache_path, redact=redact) as store, _BarProgress() as progress:
        pipeline = Pipeline(config, store, progress=progress, redact=redact)
        on_result = _log_delivery if log_lines else _echo_delivery
        summary = asyncio.run(pipeline.run(repos, days, dry_run=dry_run, force=force, on_delivery=on_result))
    if len(repos) == 1 and summary.failed_repos:
        error = summary.failed_repos[0].error
        assert error is not None  # failed_repos holds only the outcomes with an error
        raise error
    _print_summary(summary)
    if log_lines:
        _log_summary(summary, time.monotonic() - started)
    return _exit_code(summary)


@main.command("digest")
@click.option("--week", required=True, metavar="YYYY-Www", help="The ISO week, Monday to Sunday (e.g. 2026-W06).")
@click.option("--repo", metavar="OWNER/REPO", help="Only this repository (default: every one with stored reports).")
@click.option(
    "--format",
    "formats",
    type=click.Choice(sorted(WEEKLY_FORMATS)),
    multiple=True,
    help="Markdown, HTML or JSON (default md); repeat for several with --output (stdout takes one).",
)
@click.option("--output", type=_Directory(), help="Write DIR/OWNER/REPO/YYYY-Www.EXT for each one.")
@click.option("--lang", type=click.Choice(["zh", "en"]), help="Language of the stored reports (default from config).")
@click.option(
    "--deliver",
    is_flag=True,
    help="Deliver to the configured targets that take a week (files, email, chat), in the [output] formats.",
)
@click.option("--dry-run", is_flag=True, help="With --deliver: print what each target would be sent.")
@click.option("--force", is_flag=True, help="With --deliver: deliver again what the targets already have.")
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), help="Config file (default ./repodaily.toml)."
)
@_exits_cleanly
def weekly_digest(
    week: str,
    repo: str | None,
    formats: tuple[str, ...],
    output: str | None,
    lang: str | None,
    deliver: bool,
    dry_run: bool,
    force: bool,
    config_path: str | None,
) -> None:
    """A week at a glance: what a lead reads on Monday.

    Gathers the stored daily reports of one ISO week (`report` and `run` store
    every report they make): its breaking changes, security fixes, new models,
    APIs and backends, changed defaults, releases and other high-importance
    changes, and each day's commits by importance and type. No git, no analyzer.
    Without --output the digest goes to stdout (one repository: give --repo when
    the store holds several).

    \b
    Example:
      repodaily digest --week 2026-W06 --repo vllm-project/vllm --format html --output weekly
    """
    chosen = list(dict.fromkeys(formats)) or ["md"]
    if output is None and len(chosen) > 1:
        raise ConfigError("stdout takes one --format; give --output DIR to write several")
    config = _load(config_path, lang=lang)
    redact = _guard(config)
    templates = expand_home(config.templates_dir) if config.templates_dir else None
    with Store(config.cache_path, redact=redact) as store:
        digests = stored_weeklies(store, week, today_in(config.tz), config.language, repo)
        if deliver:
            sys.exit(
                asyncio.run(_deliver_weeks(Pipeline(config, store, redact=redact), digests, templates, dry_run, force))
            )
    if output is None:
        if len(digests) > 1:
            names = ", ".join(d.repo for d in digests)
            raise ConfigError(f"{week} has reports of several repositories ({names}); give --repo, or --output DIR")
        _echo(render_weekly(digests[0], chosen[0], templates_dir=templates), nl=False)
        return
    for digest in digests:
        for fmt in chosen:
            path = Path(output, *digest.repo.split("/"), f"{week}.{WEEKLY_FORMATS[fmt]}")
            write_atomic(path, render_weekly(digest, fmt, templates_dir=templates))  # the old file or the whole new one
            _echo(str(path))


async def _deliver_weeks(
    pipeline: Pipeline, digests: Sequence[WeeklyDigest], templates: Path | None, dry_run: bool, force: bool
) -> int:
    """Each digest to every target that takes a week, in the configured formats a week has; the exit code."""
    formats = [name for name in pipeline.config.output.formats if name in WEEKLY_FORMATS] or ["md"]
    targets = pipeline.targets(dry_run=dry_run)
    failed = False
    try:
        for digest in digests:
            artefacts = weekly_artefacts(digest, formats, templates_dir=templates)
            delivered = await deliver_week(digest, artefacts, targets, pipeline.store, dry_run=dry_run, force=force)
            for result in delivered:
                failed = failed or result.status == "failed"
                _echo_delivery(result, None)
                outcome = f"failed: {result.error}" if result.status == "failed" else result.status
                extra = f" ({result.error})" if result.status == "skipped" else ""
                _echo(f"repodaily: {digest.repo} {digest.week} → {result.target}: {outcome}{extra}", err=True)
    finally:
        for target in targets:
            await target.publisher.aclose()
    return EXIT_DEGRADED if failed else EXIT_OK


@main.command("site")
@click.argument("outdir", metavar="OUTDIR", type=_Directory())
@click.option(
    "--repo", "only", metavar="OWNER/REPO", multiple=True, help="Only this repository (repeatable; default: all)."
)
@click.option("--lang", type=click.Choice(["zh", "en"]), help="Language of the stored reports (default from config).")
@click.option(
    "--base-url",
    metavar="URL",
    help="The site's public address (https://ORG.github.io/REPO/): feeds need it and are written only with it.",
)
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), help="Config file (default ./repodaily.toml)."
)
@_exits_cleanly
def site(outdir: str, only: tuple[str, ...], lang: str | None, base_url: str | None, config_path: str | None) -> None:
    """Build a static site of the stored reports under OUTDIR (for GitHub Pages, or file://).

    Pages: the watched repositories with their last days' counts, a calendar of
    each repository's days, each day's report (the html renderer: the Markdown's
    sections and anchors), each ISO week's digest, search and filters over every
    commit, and RSS and Atom feeds. It reads only the store, which `report` and
    `run` fill: no git, no analyzer. A rebuild writes only the files whose bytes
    changed and removes only files an earlier build wrote.

    \b
    Example:
      repodaily run && repodaily site public --base-url https://acme.github.io/reports/
    """
    from repodaily.site.builder import build_site

    config = _load(config_path, lang=lang)
    redact = _guard(config)
    started = time.monotonic()
    with Store(config.cache_path, redact=redact) as store:
        stored = store.reported_repos(config.language)
        watched = [repo.name for repo in config.repos if repo.name] or stored
        if only:
            # A name neither watched nor reported is a typo: an empty site for it would hide that.
            unknown = [name for name in only if name not in {*watched, *stored}]
            if unknown:
                raise ConfigError(
                    f"--repo {unknown[0]}: not in [[repos]] and no stored {config.language} report; "
                    "`repodaily run` and `repodaily report` store them"
                )
            watched = list(dict.fromkeys(only))
        templates = expand_home(config.templates_dir) if config.templates_dir else None
        built = build_site(store, watched, config.language, Path(outdir), templates_dir=templates, base_url=base_url)
    files = built.files
    _echo(
        f"{Path(outdir) / 'index.html'}: {built.repos} repositories, {built.days} days, {built.weeks} weeks; "
        f"{len(files.written)} files written, {files.unchanged} unchanged, {len(files.removed)} removed "
        f"· {time.monotonic() - started:.2f} s",
        err=True,
    )


@main.command("eval")
@click.argument("labels", metavar="LABELS")
@click.option(
    "--repo",
    "location",
    required=True,
    metavar="PATH_OR_URL",
    help="The labelled repository: a local clone or a git URL.",
)
@click.option(
    "--name", metavar="OWNER/REPO", help="Repository name (default: taken from the URL or the clone's origin)."
)
@click.option(
    "--analyzer",
    metavar="NAME",
    help="Analyzer to score (default from config: auto, the LLM if an endpoint is configured, else heuristic).",
)
@click.option(
    "--lang", type=click.Choice(["zh", "en"]), help="Language the analyses are written in (part of the cache key)."
)
@click.option("--timezone", "tz", metavar="IANA", help="Timezone of the labels' dates (default Asia/Shanghai).")
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), help="Config file (default ./repodaily.toml)."
)
@click.option(
    "--json", "json_out", type=click.Path(dir_okay=False), help="Also write every figure as JSON to this file."
)
@click.option("--diff", "show_diff", is_flag=True, help="List every commit where the analyzer and the label disagree.")
@_exits_cleanly
def evaluate_labels(
    labels: str,
    location: str,
    name: str | None,
    config_path: str | None,
    json_out: str | None,
    show_diff: bool,
    **flags: Any,
) -> None:
    """Score an analyzer against a labelled set of commits.

    LABELS is a JSON array or JSON Lines of objects with `sha`, `date`
    (YYYY-MM-DD in the timezone), `type`, `importance`, `security`,
    `breaking`, `user_facing` and optionally `key_paths`, `title`,
    `confidence` and `pull_request` (the commit's pull request: `number`,
    `labels`, `title`, `body`, `linked_issues`; the analyzer reads it). The
    commits are read and analysed exactly as reports do (same analyzer,
    context budget and cache). Labelled SHAs not found in the history are
    listed and left out of the figures. Exit code 0 whatever the scores; 1
    when some analyses fell back, so the figures are not all the analyzer's
    own.

    \b
    Example:
      repodaily eval vllm-dev.json --repo ~/src/vllm --name vllm-project/vllm --diff
    """
    from repodaily.evaluation import evaluate, load_labels, print_evaluation  # scoring is this command's alone

    gold = load_labels(Path(labels))
    config = _load(config_path, **flags)
    redact = _guard(config)
    with Store(config.cache_path, redact=redact) as store, _BarProgress() as progress:
        pipeline = Pipeline(config, store, progress=progress, redact=redact)
        repository = _located(location, "git", name=name)
        result = asyncio.run(evaluate(pipeline, repository, gold, labels_file=labels))
    print_evaluation(result, show_diff=show_diff)
    if json_out:
        try:
            write_named(json_out, (result.model_dump_json(indent=2) + "\n").encode("utf-8"))
        except OSError as exc:
            raise ConfigError(f"--json {json_out}: cannot write: {exc.strerror or exc}") from exc
    sys.exit(EXIT_DEGRADED if result.degraded else EXIT_OK)


@main.command()
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), help="Config file (default ./repodaily.toml)."
)
@_exits_cleanly
def doctor(config_path: str | None) -> None:
    """Check what the configured plugins depend on.

    Every configured plugin is asked for its health. The llm analyzer checks
    each endpoint of [[llm.endpoints]] (or LLM_BASE_URL / LLM_MODEL): is it
    reachable, are the credentials accepted, is the model listed, which
    structured-output mode works, and how long one small call takes. Exit code 0
    when every check passes, 1 when one fails, 2 when nothing needs checking.
    """
    config = _load(config_path)
    redact = _guard(config)
    checked = asyncio.run(_health_of_configured_plugins(config))
    if not any(rows for _, rows in checked):
        names = ", ".join(label for label, _ in checked)
        raise ConfigError(
            f"nothing to check: the configured plugins ({names}) depend on no endpoint or service; "
            "an LLM endpoint would be checked ([[llm.endpoints]] or LLM_MODEL)"
        )
    console = Console(width=max(_stderr.width, 120))
    for label, rows in checked:
        if rows:
            console.print(_health_table(label, rows, redact))
            # Whole lines, not folded cells: a problem quotes a server, and is read, copied, searched for.
            for row in rows:
                if row.problem:
                    # Most problems already name their target (they are also run-time errors): once is enough.
                    named = row.problem.startswith(f"{row.target}:")
                    line = row.problem if named else f"{row.target}: {row.problem}"
                    # A server's words, as on every line for people: one line, its controls inert.
                    console.print(Text(terminal_text(single_line(redact(line)))), soft_wrap=True)
    healthy = all(row.ok is not False for _, rows in checked for row in rows)
    sys.exit(EXIT_OK if healthy else EXIT_DEGRADED)


async def _health_of_configured_plugins(config: Config) -> list[tuple[str, list[Health]]]:
    """Each configured plugin and its checks: analyzers in use or with a table, sources, context sources, publishers."""
    plugins = registry()
    tables = sorted(name for name in config.model_extra or {} if name in plugins.names("analyzer"))
    analyzers = [config.analyzer_name, config.analyzer.fallback, *tables]
    configured: list[tuple[Kind, str, dict[str, Any]]] = [
        ("analyzer", name, config.plugin_table(name)) for name in dict.fromkeys(analyzers)
    ]
    configured += [("source", repo.source, repo.source_settings) for repo in config.repos]
    configured += [("context", name, config.plugin_table(name)) for name in plugins.names("context")]
    configured += [("publisher", target.type, target.settings) for target in config.publishers]
    checked = []
    for kind, name, table in configured:
        spec = plugins.get(kind, name)
        rows = await spec.health(plugins.settings(kind, name, table, "config"), os.environ) if spec.health else []
        checked.append((f"{kind} {name}", rows))
    return checked


def _health_table(label: str, rows: Sequence[Health], redact: Redactor) -> Table:
    """One row per checked target, a column per finding, and whether it is healthy; problems follow the table."""
    columns = list(dict.fromkeys(key for row in rows for key in row.checks))
    table = Table(label, *columns, "health")
    for row in rows:
        health = {True: "ok", False: "FAILED", None: "?"}[row.ok]
        cells = [row.target, *(row.checks.get(column, "-") for column in columns), health]
        # Plain text, not console markup: a finding may quote a server, and a mask is in brackets.
        table.add_row(*(Text(redact(cell)) for cell in cells))
    return table


@main.command("plugins")
@_exits_cleanly
def list_plugins() -> None:
    """List the installed plugins: every source, analyzer, renderer and publisher, and who provides it.

    Built-ins and third-party packages alike enter through the entry points of
    the `repodaily` group; a name here is what the config uses.
    """
    plugins = registry()
    table = Table("kind", "name", "provided by", "settings", "description")
    for kind in KINDS:
        for name in plugins.names(kind):
            spec = plugins.get(kind, name)
            fields = ", ".join(spec.settings.model_fields) or "-"
            table.add_row(*(Text(cell) for cell in (kind, name, plugins.owner(kind, name), fields, spec.description)))
    Console(width=max(_stderr.width, 120)).print(table)


@main.command()
def schema() -> None:
    """Print the JSON Schema of the report format (`--format json`).

    The format is versioned by its `schema_version` field; within a version,
    fields are only ever added.
    """
    click.echo(json.dumps(DailyReport.model_json_schema(), indent=2, ensure_ascii=False))


@main.command()
@click.option(
    "--dir",
    "directory",
    type=_Directory(),
    default="repodaily-demo",
    show_default=True,
    help="Where to build the demo repository and write its report.",
)
@click.option("--lang", type=click.Choice(["zh", "en"]), default="zh", show_default=True, help="Report language.")
@_exits_cleanly
def demo(directory: str, lang: str) -> None:
    """Build a small realistic repository and write its daily report (offline).

    The demo repository has vLLM-style [Tag] titles and Conventional Commits, a
    revert, a [k/N] series, a rename, a binary file, a huge generated file, a
    non-UTF-8 message, a merge, and commits a second either side of midnight.
    No network and no API key are needed.
    """
    from repodaily.demo.scenario import DEMO_DAY, DEMO_REPO_NAME, DEMO_TIMEZONE, build_demo_repo

    root = Path(directory).resolve()
    repo_dir = root / "repo"
    try:
        if repo_dir.exists():
            shutil.rmtree(repo_dir)
        build_demo_repo(repo_dir)
    except OSError as exc:
        raise ConfigError(f"--dir {directory}: cannot build the demo repository there: {exc.strerror or exc}") from exc
    config = load_config(
        None,
        environ={},
        overrides={
            "language": lang,
            "timezone": DEMO_TIMEZONE,
            "cache_dir": str(root / "cache"),
            "output": {"dir": str(root / "reports"), "formats": ["md", "json"]},
            "repos": [{"name": DEMO_REPO_NAME, "path": str(repo_dir), "web_url": ""}],
        },
    )
    with Store(config.cache_path) as store, _BarProgress() as progress:
        summary = asyncio.run(Pipeline(config, store, progress=progress).run(config.repos, [DEMO_DAY]))
    if summary.failed_repos:
        error = summary.failed_repos[0].error
        assert error is not None  # failed_repos holds only the outcomes with an error
        raise error
    report_file = next(p for o in summary.outcomes for d in o.deliveries for p in d.locations if p.endswith(".md"))
    stats = summary.outcomes[0].reports[0].stats
    click.echo(f"Demo repository: {repo_dir}")
    counts = f"high {stats.high}, medium {stats.medium}, low {stats.low}"
    click.echo(f"{DEMO_REPO_NAME} on {DEMO_DAY}: {stats.total} commits ({counts})")
    click.echo(f"Report: {report_file}")
    sys.exit(_exit_code(summary))


# --------------------------------------------------------------------------- batch APIs


@main.group()
def batch() -> None:
    """Analyse a backfill through a batch API: OpenAI's, another provider's, or `vllm run-batch` offline.

    \b
    1. export   the commits a report of the days would analyse, not yet cached, as JSONL files
    2. submit   upload each file and create its batch (each file once, whatever is rerun)
    3. status   how far each batch got
    4. collect  download the replies, validate them, store them in the analysis cache

    A `report` or `run` over the days then makes no analysis call. The endpoint
    and key are the first [[llm.endpoints]] entry's; the key is read from its
    api_key_env and never written anywhere.
    """


@contextlib.contextmanager
def _batch_store(
    directory: str, config_path: str | None, progress: _BarProgress | None = None
) -> Iterator[tuple[Path, Any, Pipeline]]:
    """The export in ``directory`` and a pipeline over the config read as it was for it (language, analyzer)."""
    from repodaily.batch.manifest import read_manifest

    root = Path(directory)
    manifest = read_manifest(root)
    config = _load(config_path, lang=manifest.language, analyzer=manifest.analyzer)
    redact = _guard(config)
    with Store(config.cache_path, redact=redact) as store:
        yield root, manifest, Pipeline(config, store, progress=progress, redact=redact)


def _batch_api(pipeline: Pipeline, manifest: Any) -> tuple[Any, str]:
    """The Files and Batches client of the export's endpoint, and the endpoint's base URL (its key in the store)."""
    from repodaily.batch.api import BatchAPI
    from repodaily.batch.export import batch_form

    if not manifest.conventions:
        raise ConfigError("the export holds no request: nothing to send or collect")
    repo, conventions = next(iter(manifest.conventions.items()))
    endpoint = batch_form(pipeline.analyzers_for(repo, conventions)[0]).batch_endpoint
    return BatchAPI(endpoint, os.environ), endpoint.base_url


@batch.command("export")
@click.argument("location", metavar="[PATH_OR_URL]", required=False)
@click.option("--out", "directory", required=True, type=_Directory(), help="New directory to write.")
@_repo_options
@click.option("--repo", "only", metavar="OWNER/REPO", multiple=True, help="Only this configured repository.")
@_SHARD
@click.option(
    "--line-format",
    type=click.Choice(["openai", "slim"]),
    default="openai",
    show_default=True,
    help="openai: OpenAI's Batch API and vllm run-batch; slim: custom_id and body only, for other providers.",
)
@click.option(
    "--max-lines", type=click.IntRange(1, MAX_LINES), default=MAX_LINES, show_default=True, help="Lines per file."
)
@click.option(
    "--max-bytes", type=click.IntRange(1, MAX_BYTES), default=MAX_BYTES, show_default=True, help="Bytes per file."
)
@functools.partial(_with, [*_DAYS, _CONFIG])
@_exits_cleanly
def batch_export(
    location: str | None,
    directory: str,
    name: str | None,
    branch: str | None,
    source: str,
    only: tuple[str, ...],
    shard: str | None,
    line_format: str,
    max_lines: int,
    max_bytes: int,
    config_path: str | None,
    **flags: Any,
) -> None:
    """Write the requests of the commits a report of the days would analyse, not yet cached.

    The same selection as `report` (a PATH_OR_URL) or `run` (the configured
    repositories, --repo and --shard to pick). Writes JSONL files of at most --max-lines
    lines and --max-bytes bytes, requests.jsonl (each request's input) and
    manifest.json into --out. A commit too big for one request (a map-reduce)
    gets a line per part; `collect` then writes the second round.

    \b
    Example:
      repodaily batch export ~/src/vllm --name vllm-project/vllm --since 2026-01-01 --until 2026-01-31 --out jan
    """
    from repodaily.batch.export import export
    from repodaily.batch.lines import LineFormat

    config = _load(config_path, **flags)
    days = resolve_days(day=flags["day"], since=flags["since"], until=flags["until"], tz=config.tz)
    if location is not None:
        repos = [_located(location, source, name=name, **({"branch": branch} if branch else {}))]
    else:
        repos = _sharded(_configured_repos(config, only), shard)
        if not repos:
            return
    redact = _guard(config, *repos)
    with Store(config.cache_path, redact=redact) as store, _BarProgress() as progress:
        pipeline = Pipeline(config, store, progress=progress, redact=redact)

        async def write() -> Any:
            try:
                return await export(
                    pipeline,
                    repos,
                    days,
                    Path(directory),
                    line_format=LineFormat(line_format),
                    max_lines=max_lines,
                    max_bytes=max_bytes,
                )
            finally:
                await pipeline.aclose()

        manifest = asyncio.run(write())
    _echo(
        f"{manifest.requests} requests in {len(manifest.chunks)} file(s) under {directory}"
        + (f"; {manifest.unbatched} commit(s) left for collect to analyse one by one" if manifest.unbatched else "")
    )


@batch.command("submit")
@click.argument("directory", metavar="DIR")
@_CONFIG
@_exits_cleanly
def batch_submit(directory: str, config_path: str | None) -> None:
    """Upload each file of the export in DIR and create its batch (24 h window).

    Each file is sent once: the store keeps its hash with its file and batch ids,
    so a rerun, or one after a crash, sends nothing already sent.
    """
    from repodaily.batch.submit import submit

    with _batch_store(directory, config_path) as (root, manifest, pipeline):
        api, endpoint = _batch_api(pipeline, manifest)
        with api:
            for sent in submit(api, pipeline.store, endpoint, root, manifest):
                _echo(f"{sent.chunk.file} → {sent.batch_id}" + ("" if sent.new else " (already submitted)"))


@batch.command("status")
@click.argument("directory", metavar="DIR")
@_CONFIG
@_exits_cleanly
def batch_status(directory: str, config_path: str | None) -> None:
    """Show each batch of the export in DIR: its state and how many requests it answered."""
    from repodaily.batch.submit import status

    with _batch_store(directory, config_path) as (_, manifest, pipeline):
        api, endpoint = _batch_api(pipeline, manifest)
        with api:
            for chunk in status(api, pipeline.store, endpoint, manifest):
                batch_id = chunk.batch.get("id") if chunk.batch else "-"
                _echo(f"{chunk.chunk.file}\t{batch_id}\t{chunk.state}\t{chunk.counts()}")


@batch.command("collect")
@click.argument("directory", metavar="DIR")
@click.option(
    "--from-file",
    "from_files",
    multiple=True,
    type=click.Path(dir_okay=False, exists=True),
    help="Read replies from this output file (vllm run-batch's) instead of the Files API; repeatable.",
)
@_CONFIG
@_exits_cleanly
def batch_collect(directory: str, from_files: tuple[str, ...], config_path: str | None) -> None:
    """Store the replies of the export in DIR in the analysis cache.

    Replies are validated as the synchronous path validates its answers; a
    failed, invalid or missing one (an expired batch) is analysed the usual way.
    Rerun it freely: what is stored is skipped. A commit too big for one
    request takes two rounds: once its parts' summaries are in, collect writes
    the requests judging it into DIR/verdicts-…, to submit and collect next.
    Exit code 1 when some commits could not be analysed at all (the report
    will fall back for them).
    """
    from repodaily.batch.collect import collect, replies_from_api, replies_from_files
    from repodaily.batch.manifest import read_requests

    with _BarProgress() as progress, _batch_store(directory, config_path, progress) as (root, manifest, pipeline):
        if from_files:
            replies = replies_from_files(from_files, read_requests(root))
        else:
            api, endpoint = _batch_api(pipeline, manifest)
            with api:
                replies = replies_from_api(api, pipeline.store, endpoint, manifest)

        async def store_replies() -> Any:
            try:
                return await collect(pipeline, root, manifest, replies)
            finally:
                await pipeline.aclose()

        done = asyncio.run(store_replies())
    for reason in done.reasons:
        _echo(f"repodaily: not from the batch: {reason}", err=True)
    _echo(
        f"stored {done.stored}, already stored {done.cached}, analysed one by one {done.synchronous}, "
        f"failed {done.failed}"
    )
    if done.pending:
        _echo(f"repodaily: not finished: {', '.join(done.pending)}; collect again once they are", err=True)
    if done.follow_up is not None:
        _echo(
            f"{done.judged_next} commit(s) in parts were summarised: their verdict requests are in {done.follow_up};"
            " submit and collect that directory next"
        )
    sys.exit(EXIT_DEGRADED if done.failed else EXIT_OK)
