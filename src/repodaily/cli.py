"""The ``repodaily`` command line.

Commands only parse options and call the pipeline; this module alone turns
outcomes into exit codes:

  0  every report written, every commit analysed as configured
  1  written, but degraded: some analyses fell back, or some repositories failed
  2  usage or input error: bad option, date, config, repository or cache directory
  3  a report could not be rendered or delivered
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import shutil
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

import click
from pydantic import BaseModel
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from repodaily import __version__
from repodaily.config import Config, RepoConfig, find_config_file, load_config
from repodaily.credentials import redactor_for
from repodaily.errors import ConfigError, RepodailyError, SourceError, StoreError
from repodaily.evaluation import evaluate, load_labels, print_evaluation
from repodaily.models import DailyReport
from repodaily.pipeline import Pipeline, RunSummary
from repodaily.plan import resolve_days
from repodaily.redact import RedactingFormatter, Redactor
from repodaily.sources.git import is_url
from repodaily.store import Store

EXIT_OK, EXIT_DEGRADED, EXIT_USAGE, EXIT_FAILED = 0, 1, 2, 3
_INPUT_ERRORS = (ConfigError, SourceError, StoreError)

log = logging.getLogger("repodaily")
_stderr = Console(stderr=True)
# Every log line on stderr, and every line this module prints, passes through its redactor.
_log_format = RedactingFormatter("repodaily: %(levelname)s: %(message)s")
F = TypeVar("F", bound=Callable[..., Any])


def _echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    click.echo(_log_format.redactor(text), err=err, nl=nl)


def _guard(config: Config, *also: BaseModel) -> Redactor:
    """The redactor of every credential the run holds, from now on also applied to stderr and stdout."""
    _log_format.redactor = redactor_for(config, *also, environ=os.environ)
    return _log_format.redactor


def _fail(message: str, code: int) -> None:
    _echo(f"repodaily: error: {message}", err=True)
    sys.exit(code)


def _exits_cleanly(command: F) -> F:
    """Turn our errors into one line on stderr and the documented exit code."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return command(*args, **kwargs)
        except _INPUT_ERRORS as exc:
            _fail(str(exc), EXIT_USAGE)
        except RepodailyError as exc:
            _fail(str(exc), EXIT_FAILED)

    return wrapper  # type: ignore[return-value]


class _BarProgress:
    """A rich progress bar on stderr, shown only when stderr is a terminal."""

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
        self._task: Any = None

    def __enter__(self) -> _BarProgress:
        self._progress.start()
        return self

    def __exit__(self, *_exc: object) -> None:
        self._progress.stop()

    def begin(self, label: str, total: int) -> None:
        if self._task is not None:
            self._progress.remove_task(self._task)
        self._task = self._progress.add_task(label, total=total)

    def advance(self) -> None:
        if self._task is not None:
            self._progress.advance(self._task)


# --------------------------------------------------------------------------- shared options


def _report_options(command: F) -> F:
    """The options ``report`` and ``run`` share."""
    options = [
        click.option("--date", "day", metavar="YYYY-MM-DD", help="Report day (default: yesterday in the timezone)."),
        click.option("--since", metavar="YYYY-MM-DD", help="First day of a range (inclusive)."),
        click.option("--until", metavar="YYYY-MM-DD", help="Last day of a range (inclusive; default yesterday)."),
        click.option("--lang", type=click.Choice(["zh", "en"]), help="Report language (default from config: zh)."),
        click.option("--analyzer", metavar="NAME", help="Analyzer to use (default from config: heuristic)."),
        click.option("--timezone", "tz", metavar="IANA", help="Timezone that cuts the day (default Asia/Shanghai)."),
        click.option(
            "--format",
            "formats",
            type=click.Choice(["md", "json"]),
            multiple=True,
            help="Output format; repeat for both (default from config: md).",
        ),
        click.option("--output", type=click.Path(file_okay=False), help="Write files under this directory."),
        click.option("--dry-run", is_flag=True, help="Print what would be written instead of writing it."),
        click.option(
            "--config", "config_path", type=click.Path(dir_okay=False), help="Config file (default ./repodaily.toml)."
        ),
    ]
    for option in reversed(options):
        command = option(command)
    return command


def _load(config_path: str | None, **flags: Any) -> Config:
    overrides: dict[str, Any] = {}
    if flags.get("lang"):
        overrides["language"] = flags["lang"]
    if flags.get("tz"):
        overrides["timezone"] = flags["tz"]
    if flags.get("analyzer"):
        overrides["analyzer"] = {"name": flags["analyzer"]}
    output: dict[str, Any] = {}
    if flags.get("output"):
        output["dir"] = flags["output"]
    if flags.get("formats"):
        output["formats"] = list(dict.fromkeys(flags["formats"]))
    if output:
        overrides["output"] = output
    return load_config(find_config_file(config_path, os.environ), overrides=overrides)


def _echo_report_stdout(reports: Sequence[DailyReport], rendered: Sequence[dict[str, str]], fmt: str) -> None:
    if fmt == "json" and len(reports) > 1:
        _echo("[\n" + ",\n".join(r[fmt].rstrip("\n") for r in rendered) + "\n]")
        return
    _echo("\n".join(r[fmt] for r in rendered), nl=False)


def _exit_code(summary: RunSummary) -> int:
    return EXIT_DEGRADED if summary.degraded_commits or summary.failed_repos else EXIT_OK


def _print_summary(summary: RunSummary) -> None:
    for outcome in summary.outcomes:
        if outcome.error is not None:
            _echo(f"repodaily: error: {outcome.repo}: {outcome.error}", err=True)
        for file in outcome.files:
            if file.written:
                _echo(str(file.path))
            else:
                _echo(f"# would write {file.path}\n{file.content}")
    if summary.degraded_commits:
        _echo(f"repodaily: {summary.degraded_commits} commit(s) degraded; see the reports' banner", err=True)


# --------------------------------------------------------------------------- commands


@click.group(context_settings={"help_option_names": ["-h", "--help"], "max_content_width": 100})
@click.version_option(__version__, prog_name="repodaily")
@click.option("-v", "--verbose", count=True, help="More logging on stderr (-vv for debug).")
def main(verbose: int) -> None:
    """Daily reports of what changed in the repositories you depend on.

    For each repository and calendar day, repodaily reads the commits that landed
    on the default branch, judges each one (type, importance, risks) and writes a
    report grouped by importance, in Chinese (default) or English.

    Start with `repodaily demo`. Exit codes: 0 ok, 1 degraded (some analyses
    fell back or a repository failed), 2 usage/input error, 3 delivery failed.
    """
    level = (logging.WARNING, logging.INFO, logging.DEBUG)[min(verbose, 2)]
    # Until a command has read its config, the credentials known are the environment's.
    _log_format.redactor = redactor_for(environ=os.environ)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(_log_format)
    logging.basicConfig(level=level, handlers=[handler], force=True)


@main.command()
@click.argument("location", metavar="PATH_OR_URL")
@click.option(
    "--name", metavar="OWNER/REPO", help="Repository name (default: taken from the URL or the clone's origin)."
)
@click.option("--branch", metavar="BRANCH", help="Branch to read (default: the default branch).")
@_report_options
@_exits_cleanly
def report(
    location: str, name: str | None, branch: str | None, config_path: str | None, dry_run: bool, **flags: Any
) -> None:
    """Report on one repository for one day or a range.

    PATH_OR_URL is a local clone or a git URL (mirrored under the cache
    directory and fetched incrementally). Without --output the report goes to
    stdout; with --output it is written at the configured path template.

    \b
    Examples:
      repodaily report ~/src/vllm --name vllm-project/vllm --date 2026-02-09
      repodaily report https://github.com/vllm-project/vllm.git --since 2026-02-01 --until 2026-02-07 --output reports
    """
    config = _load(config_path, **flags)
    days = resolve_days(day=flags["day"], since=flags["since"], until=flags["until"], tz=config.tz)
    where = {"url": location} if is_url(location) else {"path": location}
    repo = RepoConfig(name=name, branch=branch, **where)
    code = _generate(config, [repo], days, to_stdout=not flags["output"], dry_run=dry_run)
    sys.exit(code)


@main.command()
@click.option(
    "--repo", "only", metavar="OWNER/REPO", multiple=True, help="Only this configured repository (repeatable)."
)
@_report_options
@_exits_cleanly
def run(only: tuple[str, ...], config_path: str | None, dry_run: bool, **flags: Any) -> None:
    """Report on every configured repository (the daily job).

    Reads [[repos]] from the config, reports on yesterday in the configured
    timezone (or --date / --since --until) and writes each report at the path
    template under the output directory. A repository that fails is reported and
    skipped; the others are still written (exit code 1).
    """
    config = _load(config_path, **flags)
    days = resolve_days(day=flags["day"], since=flags["since"], until=flags["until"], tz=config.tz)
    repos = config.repos
    if only:
        unknown = sorted(set(only) - {r.name for r in repos})
        if unknown:
            raise ConfigError(f"--repo {', '.join(unknown)} is not in the config's [[repos]]")
        repos = [r for r in repos if r.name in only]
    if not repos:
        raise ConfigError("no repositories configured: add [[repos]] entries to repodaily.toml")
    sys.exit(_generate(config, repos, days, to_stdout=False, dry_run=dry_run))


def _generate(config: Config, repos: list[RepoConfig], days: list[Any], *, to_stdout: bool, dry_run: bool) -> int:
    redact = _guard(config, *repos)
    with Store(config.cache_path, redact=redact) as store, _BarProgress() as progress:
        pipeline = Pipeline(config, store, progress=progress, redact=redact)
        if to_stdout:
            reports = asyncio.run(_reports_only(pipeline, repos[0], days))
            rendered = [pipeline.render(r) for r in reports]
            _echo_report_stdout(reports, rendered, config.output.formats[0])
            degraded = sum(r.stats.degraded for r in reports)
            return EXIT_DEGRADED if degraded else EXIT_OK
        summary = asyncio.run(pipeline.run(repos, days, dry_run=dry_run))
    if len(repos) == 1 and summary.failed_repos:
        raise summary.failed_repos[0].error  # type: ignore[misc]
    _print_summary(summary)
    return _exit_code(summary)


async def _reports_only(pipeline: Pipeline, repo: RepoConfig, days: list[Any]) -> list[DailyReport]:
    try:
        return await pipeline.reports_for(repo, days)
    finally:
        await pipeline.aclose()


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
@click.option("--analyzer", metavar="NAME", help="Analyzer to score (default from config: heuristic).")
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
    `confidence`. The commits are read and analysed exactly as reports do
    (same analyzer, context budget and cache). Labelled SHAs not found in the
    history are listed and left out of the figures. Exit code 0 whatever the
    scores; 1 when some analyses fell back, so the figures are not all the
    analyzer's own.

    \b
    Example:
      repodaily eval vllm-dev.json --repo ~/src/vllm --name vllm-project/vllm --diff
    """
    gold = load_labels(Path(labels))
    config = _load(config_path, **flags)
    redact = _guard(config)
    with Store(config.cache_path, redact=redact) as store, _BarProgress() as progress:
        pipeline = Pipeline(config, store, progress=progress, redact=redact)
        result = asyncio.run(evaluate(pipeline, location, gold, name=name, labels_file=labels))
    print_evaluation(result, show_diff=show_diff)
    if json_out:
        try:
            Path(json_out).write_text(result.model_dump_json(indent=2) + "\n", encoding="utf-8")
        except OSError as exc:
            raise ConfigError(f"--json {json_out}: cannot write: {exc.strerror or exc}") from exc
    sys.exit(EXIT_DEGRADED if result.degraded else EXIT_OK)


@main.command()
@click.option(
    "--config", "config_path", type=click.Path(dir_okay=False), help="Config file (default ./repodaily.toml)."
)
@_exits_cleanly
def doctor(config_path: str | None) -> None:
    """Check the configured LLM endpoints.

    For each endpoint of [[llm.endpoints]] (or LLM_BASE_URL / LLM_MODEL): is it
    reachable, are the credentials accepted, is the model listed, which
    structured-output mode works, and how long one small call takes. Exit code 0
    when every endpoint passes, 1 when one fails, 2 when none is configured.
    """
    from rich.table import Table
    from rich.text import Text

    from repodaily.analyzers.llm.doctor import check_endpoint

    config = _load(config_path)
    redact = _guard(config)
    if not config.llm.endpoints:
        raise ConfigError("no LLM endpoint configured: add [[llm.endpoints]] to repodaily.toml or set LLM_MODEL")

    async def check_all() -> list[Any]:
        return [await check_endpoint(endpoint, environ=os.environ) for endpoint in config.llm.endpoints]

    results = asyncio.run(check_all())
    table = Table("endpoint", "model", "reachable", "auth", "model listed", "output mode", "latency", "problem")
    for health in results:
        mark = {True: "yes", False: "NO", None: "?"}
        cells = [
            health.name,
            health.model,
            mark[health.reachable],
            mark[health.authenticated],
            mark[health.model_listed],
            health.output_mode or "-",
            f"{health.latency_s:.2f} s" if health.latency_s is not None else "-",
            health.problem or "ok",
        ]
        # Plain text, not console markup: the problem quotes a server, and a mask is in brackets.
        table.add_row(*(Text(redact(cell)) for cell in cells))
    Console(width=max(_stderr.width, 120)).print(table)
    sys.exit(EXIT_OK if all(h.ok for h in results) else EXIT_DEGRADED)


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
    type=click.Path(file_okay=False),
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
    if repo_dir.exists():
        shutil.rmtree(repo_dir)
    build_demo_repo(repo_dir)
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
        raise summary.failed_repos[0].error  # type: ignore[misc]
    report_file = next(f for o in summary.outcomes for f in o.files if f.format == "md")
    stats = summary.outcomes[0].reports[0].stats
    click.echo(f"Demo repository: {repo_dir}")
    counts = f"high {stats.high}, medium {stats.medium}, low {stats.low}"
    click.echo(f"{DEMO_REPO_NAME} on {DEMO_DAY}: {stats.total} commits ({counts})")
    click.echo(f"Report: {report_file.path}")
    sys.exit(_exit_code(summary))
