"""Example plugins written against repodaily's public protocols only, the way a third party would.

- source ``fixed-day``: a repository that always has the same commits on one day;
- analyzer ``by-size``: high importance for commits that change many lines;
- renderer ``txt``: one line per commit;
- publisher ``drop``: writes each artefact into a directory, ``{owner}-{name}-{date}.{suffix}``.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from repodaily.analyzers.base import Analyzer
from repodaily.hookspecs import hookimpl
from repodaily.models import (
    Analysis,
    AnalysisInput,
    ChangeType,
    Commit,
    DailyReport,
    FileChange,
    FileStatus,
    Importance,
    Provenance,
    Verdict,
)
from repodaily.plugins import Health, NoSettings, PluginSpec
from repodaily.publish.base import Delivery, PublishContext
from repodaily.render.base import Artefact
from repodaily.sources.base import Opened, SourceContext, Window
from repodaily.sources.message import parse_message


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- source


class FixedDaySettings(_Strict):
    day: date
    commits: int = 3


class FixedDaySource:
    def __init__(self, *, settings: FixedDaySettings, context: SourceContext) -> None:
        self.settings = settings

    def open(self) -> Opened:
        return Opened(name="example/fixed", branch="main")

    def collect_days(self, windows: Sequence[Window]) -> Iterator[tuple[int, list[Commit]]]:
        noon = datetime.combine(self.settings.day, time(12), tzinfo=UTC)
        commits = [self._commit(noon - timedelta(minutes=n), n) for n in range(self.settings.commits)]
        for index, (start, end) in enumerate(windows):
            yield index, [c for c in commits if start <= c.committed_at <= end]

    @staticmethod
    def _commit(when: datetime, n: int) -> Commit:
        lines = 10 ** (n + 1)
        return Commit(
            **parse_message(f"Change number {n}\n\nTouches {lines} lines.").message_parts(),
            sha=f"{n:x}" * 40,
            parents=["f" * 40],
            author_name="Example",
            authored_at=when,
            committed_at=when,
            files=[FileChange(path=f"src/part_{n}.py", status=FileStatus.modified, additions=lines)],
        )


# --------------------------------------------------------------------------- analyzer


class BySizeSettings(_Strict):
    high_from_lines: int = 100


class BySizeAnalyzer(Analyzer):
    name = "by-size"

    def __init__(self, *, settings: BySizeSettings, **_context: object) -> None:
        self.settings = settings

    @property
    def fingerprint(self) -> str:
        return f"by-size/{self.settings.high_from_lines}"

    async def analyze(self, item: AnalysisInput) -> Analysis:
        big = item.total_additions + item.total_deletions >= self.settings.high_from_lines
        verdict = Verdict(
            type=ChangeType.feat,
            importance=Importance.high if big else Importance.low,
            importance_reason=f"{item.total_additions} lines added",
            one_line=f"by-size: {item.title}",
            summary=[f"{item.total_additions} lines"],
        )
        return Analysis.of(verdict, Provenance(coverage=item.receipt, analyzer=self.fingerprint))


# --------------------------------------------------------------------------- renderer


class TextRenderer:
    def __init__(self, **_context: object) -> None:
        pass

    def render(self, report: DailyReport) -> list[Artefact]:
        lines = [f"{report.repo} {report.date}: {report.stats.total} commits, {report.stats.high} high"]
        lines += [f"{c.short_sha} {c.analysis.importance} {c.analysis.one_line}" for c in report.commits]
        return [Artefact(format="txt", suffix="txt", media_type="text/plain", text="\n".join(lines) + "\n")]


# --------------------------------------------------------------------------- publisher


class DropSettings(_Strict):
    dir: Path


class DropPublisher:
    def __init__(self, *, settings: DropSettings, context: PublishContext) -> None:
        self.settings = settings
        self.context = context

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        owner, _, name = report.repo.partition("/")
        paths = []
        for artefact in artefacts:
            path = self.settings.dir / f"{owner}-{name}-{report.date}.{artefact.suffix}"
            if not self.context.dry_run:
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(self.context.redact(artefact.text), encoding="utf-8")
            paths.append(str(path))
        return Delivery("drop", locations=paths)

    async def aclose(self) -> None:
        pass


async def drop_health(settings: DropSettings, environ: Mapping[str, str]) -> list[Health]:
    writable = settings.dir.is_dir() or not settings.dir.exists()
    return [Health(target=str(settings.dir), ok=writable, checks={"kind": "directory"})]


# --------------------------------------------------------------------------- the hooks


@hookimpl
def register_sources(register):
    register(PluginSpec("fixed-day", FixedDaySource, settings=FixedDaySettings))


@hookimpl
def register_analyzers(register):
    register(PluginSpec("by-size", BySizeAnalyzer, settings=BySizeSettings))


@hookimpl
def register_renderers(register):
    register(PluginSpec("txt", TextRenderer, settings=NoSettings))


@hookimpl
def register_publishers(register):
    register(PluginSpec("drop", DropPublisher, settings=DropSettings, health=drop_health))
