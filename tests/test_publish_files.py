import asyncio
import os
import subprocess
import sys
from datetime import date, datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from repodaily.demo.repo_builder import RepoBuilder
from repodaily.errors import ConfigError, PublishError
from repodaily.models import DailyReport, RunInfo
from repodaily.publish.base import PublishContext
from repodaily.publish.files import FilesPublisher, FilesSettings, report_path, write_atomic
from repodaily.render.base import Artefact


def _report(repo: str = "vllm-project/vllm") -> DailyReport:
    return DailyReport(repo=repo, date=date(2026, 2, 9), timezone="UTC", run=RunInfo(analyzer="h"))


def test_path_template_fields(tmp_path):
    output = FilesSettings(dir=str(tmp_path), path="{year}/{owner}/{name}/{month}-{day}.{lang}.md")
    assert report_path(output, _report(), "json") == tmp_path / "2026/vllm-project/vllm/02-09.zh.json"


def test_default_path_is_reports_year_repo_date(tmp_path):
    assert report_path(FilesSettings(), _report(), "md").as_posix() == "reports/2026/vllm-project/vllm/2026-02-09.md"


def test_a_path_escaping_the_output_directory_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="leaves the output directory"):
        report_path(FilesSettings(dir=str(tmp_path), path="{repo}/{date}.md"), _report("../x"), "md")


def _artefacts(**texts: str) -> list[Artefact]:
    return [Artefact(format=name, suffix=name, media_type="text/plain", text=text) for name, text in texts.items()]


def _publish(settings: FilesSettings, artefacts: list[Artefact], **context: object):
    publisher = FilesPublisher(settings=settings, context=PublishContext(**context))  # type: ignore[arg-type]
    return asyncio.run(publisher.publish(_report(), artefacts))


def test_the_files_publisher_writes_each_artefact_and_a_dry_run_writes_nothing(tmp_path):
    settings = FilesSettings(dir=str(tmp_path / "out"))
    artefacts = _artefacts(md="# 报告\n", json="{}\n")
    planned = _publish(settings, artefacts, dry_run=True)
    assert planned.preview is not None and "# would write" in planned.preview and "# 报告" in planned.preview
    assert not (tmp_path / "out").exists()
    written = _publish(settings, artefacts)
    assert written.preview is None
    assert [Path(p).read_text(encoding="utf-8") for p in written.locations] == ["# 报告\n", "{}\n"]


def test_atomic_write_leaves_the_old_file_and_no_temp_file_on_failure(tmp_path):
    target = tmp_path / "r.md"
    target.write_text("old", encoding="utf-8")
    with pytest.raises(PublishError):
        write_atomic(target, "new \ud800 unencodable")
    assert target.read_text(encoding="utf-8") == "old"
    assert os.listdir(tmp_path) == ["r.md"]


def test_unwritable_destination_is_a_publish_error(tmp_path):
    (tmp_path / "blocker").write_text("file")
    with pytest.raises(PublishError, match="cannot write"):
        write_atomic(tmp_path / "blocker" / "r.md", "x")


# A writer in a process of its own that stops after its temporary file is complete and
# synced but before the rename (the moment a kill leaves the file behind) and goes on
# when told to.
_PAUSED_WRITER = """
import os, sys
from pathlib import Path
from repodaily.publish import files

fsync = os.fsync

def fsync_then_wait(fd):
    fsync(fd)
    print("written", flush=True)
    sys.stdin.readline()

files.os.fsync = fsync_then_wait
files.write_atomic(Path(sys.argv[1]), "# from the paused writer\\n")
"""


def _paused_writer(target: Path) -> subprocess.Popen[str]:
    writer = subprocess.Popen(
        [sys.executable, "-c", _PAUSED_WRITER, str(target)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert writer.stdout is not None and writer.stdout.readline() == "written\n"
    return writer


def _temp_files(directory: Path) -> list[str]:
    return sorted(p.name for p in directory.rglob(".*.tmp"))


def test_a_writer_killed_before_its_rename_leaves_nothing_after_the_next_write(tmp_path):
    target = tmp_path / "2026-03-02.md"
    target.write_text("old", encoding="utf-8")
    writer = _paused_writer(target)
    writer.kill()
    writer.wait()
    assert [name.startswith(".2026-03-02.md.") for name in _temp_files(tmp_path)] == [True]

    write_atomic(tmp_path / "2026-03-03.md", "# the next day\n")  # a later run writes another day beside it

    assert _temp_files(tmp_path) == []
    assert target.read_text(encoding="utf-8") == "old"


def test_a_live_writer_in_the_same_directory_keeps_its_temp_file(tmp_path):
    target = tmp_path / "2026-03-02.md"
    writer = _paused_writer(target)
    try:
        write_atomic(tmp_path / "2026-03-02.json", "{}\n")  # a concurrent run writing beside it
        assert len(_temp_files(tmp_path)) == 1
    finally:
        writer.communicate("go on\n", timeout=60)
    assert writer.returncode == 0
    assert target.read_text(encoding="utf-8") == "# from the paused writer\n"
    assert _temp_files(tmp_path) == []


def test_temp_files_of_an_older_release_are_removed_and_other_files_kept(tmp_path):
    (tmp_path / ".2026-03-02.md.k3j_x9a0.tmp").write_text("half a report")
    keep = [".notes.tmp", "2026-03-01.md", ".hidden"]
    for name in keep:
        (tmp_path / name).write_text("mine")
    write_atomic(tmp_path / "2026-03-02.md", "# whole\n")
    assert sorted(os.listdir(tmp_path)) == sorted([*keep, "2026-03-02.md"])


def test_a_killed_writer_leaves_no_temp_file_in_the_output_tree_after_the_next_run(tmp_path):
    repo = RepoBuilder(tmp_path / "repo")
    repo.commit("Initial import", when=datetime(2026, 3, 2, 9, tzinfo=ZoneInfo("Asia/Shanghai")))
    out = tmp_path / "out"
    args = [sys.executable, "-m", "repodaily", "report", str(repo.path), "--name", "o/r", "--output", str(out)]
    writer = _paused_writer(out / "2026" / "o" / "r" / "2026-03-02.md")
    writer.kill()
    writer.wait()
    assert len(_temp_files(out)) == 1

    subprocess.run([*args, "--date", "2026-03-02"], check=True, capture_output=True, timeout=120)

    assert _temp_files(out) == []
    assert (out / "2026" / "o" / "r" / "2026-03-02.md").read_text(encoding="utf-8").startswith("# ")


def test_a_temp_file_swept_by_another_run_before_its_writer_locked_it_is_made_again(tmp_path, monkeypatch):
    from repodaily.publish import files

    lock = files.fcntl.flock
    sweeps = []

    def sweep_first(fd, operation):
        if not sweeps:  # another run sweeps between the file's creation and its lock
            sweeps.append(_temp_files(tmp_path))
            files._remove_abandoned_temp_files(tmp_path)
        lock(fd, operation)

    monkeypatch.setattr(files.fcntl, "flock", sweep_first)
    write_atomic(tmp_path / "r.md", "# whole\n")
    assert len(sweeps[0]) == 1
    assert (tmp_path / "r.md").read_text(encoding="utf-8") == "# whole\n"
    assert _temp_files(tmp_path) == []
