import os
from datetime import date

import pytest

from repodaily.config import OutputConfig
from repodaily.errors import ConfigError, PublishError
from repodaily.models import DailyReport, RunInfo
from repodaily.publish.files import report_path, write_atomic, write_reports


def _report(repo: str = "vllm-project/vllm") -> DailyReport:
    return DailyReport(repo=repo, date=date(2026, 2, 9), timezone="UTC", run=RunInfo(analyzer="h"))


def test_path_template_fields(tmp_path):
    output = OutputConfig(dir=str(tmp_path), path="{year}/{owner}/{name}/{month}-{day}.{lang}.md")
    assert report_path(output, _report(), "json") == tmp_path / "2026/vllm-project/vllm/02-09.zh.json"


def test_default_path_is_reports_year_repo_date(tmp_path):
    assert report_path(OutputConfig(), _report(), "md").as_posix() == "reports/2026/vllm-project/vllm/2026-02-09.md"


def test_a_path_escaping_the_output_directory_is_refused(tmp_path):
    with pytest.raises(ConfigError, match="leaves the output directory"):
        report_path(OutputConfig(dir=str(tmp_path), path="{repo}/{date}.md"), _report("../x"), "md")


def test_write_reports_writes_each_format_and_dry_run_writes_nothing(tmp_path):
    output = OutputConfig(dir=str(tmp_path / "out"), formats=["md", "json"])
    rendered = {"md": "# 报告\n", "json": "{}\n"}
    planned = write_reports(_report(), rendered, output, dry_run=True)
    assert [f.written for f in planned] == [False, False]
    assert not (tmp_path / "out").exists()
    written = write_reports(_report(), rendered, output)
    assert [f.path.read_text(encoding="utf-8") for f in written] == ["# 报告\n", "{}\n"]


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
