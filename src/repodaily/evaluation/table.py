"""Print an evaluation as rich tables: the figures, the confusion matrices, the disagreements.

Each share is printed with the counts it was computed over ("0.750  3/4"), so a
figure over four commits does not read like one over four hundred, and an
empty denominator prints "n/a" with the reason.
"""

from __future__ import annotations

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from repodaily.evaluation.metrics import ConfusionMatrix, FlagScores
from repodaily.evaluation.runner import EvalRun

__all__ = ["print_evaluation"]

_TITLE_WIDTH = 60
# Piped or redirected output is not wrapped at a terminal's width: the type
# matrix (eleven columns of type names) stays one row per line in a file.
_PIPE_WIDTH = 160


def _figure(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.3f}"


def _flag_rows(name: str, flag: FlagScores) -> list[tuple[str, str, str]]:
    recall_detail = (
        f"{flag.true_positives}/{flag.gold_positives} gold positives found"
        if flag.gold_positives
        else "no gold positives"
    )
    precision_detail = (
        f"{flag.true_positives}/{flag.predicted_positives} predicted positives right"
        if flag.predicted_positives
        else "nothing predicted positive"
    )
    return [
        (f"{name} recall", _figure(flag.recall), recall_detail),
        (f"{name} precision", _figure(flag.precision), precision_detail),
    ]


def _summary_table(run: EvalRun) -> Table:
    s = run.scores
    n = s.scored
    cov = s.coverage
    rows = [
        ("n scored", str(n), f"of {run.labelled} labelled, {len(run.missing)} missing"),
        ("type accuracy", _figure(s.type.accuracy), f"{s.type.correct}/{n}"),
        ("type macro-F1", _figure(s.type.macro_f1), f"over the {len(s.type.f1_by_type)} types in the gold labels"),
        ("importance accuracy", _figure(s.importance.accuracy), f"{s.importance.correct}/{n}"),
        ("importance off by two", _figure(s.importance.off_by_two_share), f"{s.importance.off_by_two}/{n} high↔low"),
        *_flag_rows("security", s.security),
        *_flag_rows("breaking", s.breaking),
        ("user_facing accuracy", _figure(s.user_facing_accuracy), f"{s.user_facing_correct}/{n}"),
        (
            "key paths read",
            _figure(cov.read_share),
            (
                f"{cov.full + cov.clipped}/{cov.key_paths} full or clipped "
                f"(full {cov.full}, clipped {cov.clipped}, stats only {cov.stats_only}, absent {cov.absent})"
            ),
        ),
    ]
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("metric")
    table.add_column("value", justify="right")
    table.add_column("over")
    for row in rows:
        table.add_row(*row)
    return table


def _confusion_table(matrix: ConfusionMatrix, f1: dict[str, float] | None = None) -> Table:
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("gold")
    for label in matrix.labels:
        table.add_column(label, justify="right")
    table.add_column("n", justify="right")
    if f1 is not None:
        table.add_column("F1", justify="right")
    for i, (gold, counts) in enumerate(zip(matrix.labels, matrix.counts)):
        cells = [Text(str(c), style="bold" if i == j else ("dim" if c == 0 else "")) for j, c in enumerate(counts)]
        extra = [_figure(f1.get(gold))] if f1 is not None else []
        table.add_row(gold, *cells, str(sum(counts)), *extra)
    return table


def _diff_table(run: EvalRun) -> Table:
    table = Table(box=box.SIMPLE_HEAD)
    table.add_column("sha")
    table.add_column("title", max_width=_TITLE_WIDTH)
    table.add_column("gold → predicted")
    table.add_column("label confidence")
    for item in run.disagreements:
        differences = "\n".join(f"{d.field}: {d.gold} → {d.predicted}" for d in item.differences)
        table.add_row(item.sha[:7], Text(item.title), differences, item.confidence or "")
    return table


def _console() -> Console:
    console = Console()
    return console if console.is_terminal else Console(width=_PIPE_WIDTH)


def print_evaluation(run: EvalRun, *, show_diff: bool, console: Console | None = None) -> None:
    """The whole evaluation on ``console`` (stdout by default); the disagreements too when ``show_diff``."""
    out = console or _console()
    out.print(
        f"Evaluation of [bold]{escape(run.analyzer)}[/] on {escape(run.repo)} ({escape(run.branch)}), "
        f"{run.first_day}..{run.last_day} in {run.timezone}; labels: {escape(run.labels_file)}",
        highlight=False,
    )
    if run.missing:
        out.print(
            f"[yellow]{len(run.missing)} labelled SHA(s) not found on {escape(run.branch)} (first parent) "
            f"between {run.first_day} and {run.last_day}, not scored:[/] {', '.join(run.missing)}",
            highlight=False,
        )
    if run.degraded:
        out.print(
            f"[yellow]{run.degraded} analysis(es) fell back or failed: those figures are not the analyzer's own.[/]",
            highlight=False,
        )
    sections = [
        ("Scores", _summary_table(run)),
        (
            "Type confusion (rows: gold, columns: predicted)",
            _confusion_table(run.scores.type.confusion, run.scores.type.f1_by_type),
        ),
        ("Importance confusion (rows: gold, columns: predicted)", _confusion_table(run.scores.importance.confusion)),
    ]
    if show_diff:
        sections.append((f"Disagreements ({len(run.disagreements)})", _diff_table(run)))
    for title, table in sections:
        out.print(Text(f"\n{title}", style="bold"))
        out.print(table)
