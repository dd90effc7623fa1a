"""Batch APIs end to end: export → submit → status → collect against a local fake of OpenAI's endpoints.

A fixture builds a real git repository over several days; the fake
(:mod:`batch_fakes`) is a real HTTP server on 127.0.0.1 whose model answers
each request from its text (:mod:`fake_model`), so the synchronous path and a
batch get the same answers and their reports can be compared byte for byte.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest
from batch_fakes import KEY, FakeOpenAI
from click.testing import CliRunner, Result

from repodaily.batch.collect import replies_from_files
from repodaily.batch.lines import MAX_REPLY_LINE_BYTES
from repodaily.batch.manifest import read_requests
from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder

ROOT = Path(__file__).resolve().parents[1]
KEY_ENV = "REPODAILY_TEST_BATCH_KEY"
SINCE, UNTIL = "2026-03-02", "2026-03-04"
NAME = "acme/engine"


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Three days of two or three commits each, with small diffs of their own."""
    builder = RepoBuilder(tmp_path_factory.mktemp("batch") / "repo")
    builder.commit("Initial import", when=datetime(2026, 3, 1, 9, tzinfo=UTC), files={"engine/core.py": "x = 0\n"})
    for day in (2, 3, 4):
        for hour in range(9, 9 + 2 + day % 2):
            builder.commit(
                f"Tune the engine: step {day}.{hour} (#{day * 100 + hour})",
                when=datetime(2026, 3, day, hour, tzinfo=UTC),
                author="Mei Chen",
                files={f"engine/step_{day}_{hour}.py": f"def step():\n    return {day * hour}\n"},
            )
    return builder.path


@pytest.fixture
def fake(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    monkeypatch.setenv(KEY_ENV, KEY)
    with FakeOpenAI() as server:
        yield server


def _config(tmp_path: Path, server: FakeOpenAI, name: str = "config.toml", *more: str) -> Path:
    cache = tmp_path / name.replace(".toml", "-cache")
    lines = [
        f'cache_dir = "{cache}"',
        'language = "en"',
        'timezone = "UTC"',
        "[analyzer]",
        'name = "llm"',
        "concurrency = 1",
        "[llm]",
        "highlights = false",
        "[[llm.endpoints]]",
        'name = "fake"',
        f'base_url = "{server.base_url}"',
        'model = "fake-model"',
        f'api_key_env = "{KEY_ENV}"',
        "max_retries = 0",
        *more,
    ]
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cli(*args: object) -> Result:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def _report(repo: Path, config: Path, out: Path) -> dict[str, bytes]:
    result = _cli(
        "report", repo, "--name", NAME, "--since", SINCE, "--until", UNTIL, "--output", out, "--config", config
    )
    assert result.exit_code == 0, result.output
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.md"))}


def _export(repo: Path, config: Path, out: Path, *extra: object) -> Result:
    args = ("batch", "export", repo, "--name", NAME, "--since", SINCE, "--until", UNTIL, "--out", out)
    result = _cli(*args, "--config", config, *extra)
    assert result.exit_code == 0, result.output
    return result


def test_the_shards_of_an_export_hold_every_configured_repository_once(
    repo: Path, fake: FakeOpenAI, tmp_path: Path
) -> None:
    names = [f"acme/engine-{n}" for n in range(6)]
    repos = [line for name in names for line in ("[[repos]]", f'name = "{name}"', f'path = "{repo}"')]
    config = _config(tmp_path, fake, "config.toml", *repos)
    exported: list[set[str]] = []
    for index in range(3):
        out = tmp_path / f"shard-{index}"
        result = _cli("batch", "export", "--since", SINCE, "--until", UNTIL, "--shard", f"{index}/3", "--out", out,
                      "--config", config)  # fmt: skip
        assert result.exit_code == 0, result.output
        lines = (out / "requests.jsonl").read_text(encoding="utf-8").splitlines() if out.exists() else []
        exported.append({json.loads(line)["repo"] for line in lines})
    assert sorted(name for shard in exported for name in shard) == names
    assert (fake.uploads, fake.created, fake.chat) == (0, 0, 0)  # exporting asks the provider nothing


def _exported(repo: Path, server: FakeOpenAI, tmp_path: Path, *extra: object) -> tuple[Path, Path]:
    """A config over ``server`` and the export of the fixture's days under it."""
    config = _config(tmp_path, server)
    exported = tmp_path / "export"
    _export(repo, config, exported, *extra)
    return config, exported


def _rows(config: Path) -> int:
    with sqlite3.connect(config.with_name(config.name.replace(".toml", "-cache")) / "repodaily.db") as db:
        return int(db.execute("SELECT count(*) FROM analyses").fetchone()[0])


def _lines(directory: Path) -> list[dict]:
    return [
        json.loads(line) for path in sorted(directory.glob("batch-*.jsonl")) for line in path.read_text().splitlines()
    ]


def _until_finished(directory: Path, config: Path) -> None:
    for _ in range(3):  # the fake moves one state a read: validating → in_progress → completed
        result = _cli("batch", "status", directory, "--config", config)
        assert result.exit_code == 0, result.output
        if "in_progress" not in result.output and "validating" not in result.output:
            return


def test_a_batch_backfill_writes_the_reports_the_synchronous_path_writes(repo, fake, tmp_path):
    synchronous = _report(repo, _config(tmp_path, fake, "sync.toml"), tmp_path / "sync")
    commits = fake.chat
    assert commits == 7 and len(synchronous) == 3

    config = _config(tmp_path, fake, "batch.toml")
    exported = tmp_path / "export"
    _export(repo, config, exported)
    submitted = _cli("batch", "submit", exported, "--config", config)
    assert submitted.exit_code == 0, submitted.output
    assert "batch-0001.jsonl → batch_" in submitted.output and fake.uploads == 1 and fake.created == 1
    _until_finished(exported, config)
    status = _cli("batch", "status", exported, "--config", config).output
    assert "completed" in status and "7/7, failed 0" in status
    collected = _cli("batch", "collect", exported, "--config", config)
    assert collected.exit_code == 0, collected.output
    assert "stored 7, already stored 0, analysed one by one 0, failed 0" in collected.output
    assert fake.chat == commits  # the batch answered everything

    batched = _report(repo, config, tmp_path / "batched")
    assert fake.chat == commits  # and the report asked nothing
    assert batched == synchronous


def test_every_line_is_the_synchronous_request_with_a_short_deterministic_id(repo, fake, tmp_path):
    _report(repo, _config(tmp_path, fake, "sync.toml"), tmp_path / "sync")
    config = _config(tmp_path, fake, "batch.toml")
    _export(repo, config, tmp_path / "one")
    _export(repo, config, tmp_path / "two")
    lines = _lines(tmp_path / "one")
    assert [line["custom_id"] for line in lines] == [line["custom_id"] for line in _lines(tmp_path / "two")]
    assert len({line["custom_id"] for line in lines}) == len(lines) == 7
    assert all(len(line["custom_id"]) <= 64 for line in lines)
    assert {(line["method"], line["url"]) for line in lines} == {("POST", "/v1/chat/completions")}
    assert all(line["body"]["response_format"]["type"] == "json_schema" for line in lines)
    # The exact bodies the synchronous path posted, one per commit.
    posted = sorted(json.dumps(r.json(), sort_keys=True) for r in fake.chat_requests)
    assert sorted(json.dumps(line["body"], sort_keys=True) for line in lines) == posted


def test_export_cuts_files_by_lines_and_by_bytes(repo, fake, tmp_path):
    config = _config(tmp_path, fake)
    _export(repo, config, tmp_path / "by-lines", "--max-lines", 3)
    sizes = [len(p.read_text().splitlines()) for p in sorted((tmp_path / "by-lines").glob("batch-*.jsonl"))]
    assert sizes == [3, 3, 1]
    biggest = max(len(line) for line in (tmp_path / "by-lines" / "batch-0001.jsonl").read_bytes().splitlines(True))
    _export(repo, config, tmp_path / "by-bytes", "--max-bytes", biggest * 2)
    files = sorted((tmp_path / "by-bytes").glob("batch-*.jsonl"))
    assert len(files) >= 4 and all(p.stat().st_size <= biggest * 2 for p in files)
    assert sum(len(p.read_bytes().splitlines()) for p in files) == 7
    manifest = json.loads((tmp_path / "by-bytes" / "manifest.json").read_text())
    assert [c["file"] for c in manifest["chunks"]] == [p.name for p in files]


def test_export_skips_what_is_cached_and_holds_no_key(repo, fake, tmp_path):
    config = _config(tmp_path, fake)
    _cli("report", repo, "--name", NAME, "--date", SINCE, "--output", tmp_path / "out", "--config", config)
    result = _export(repo, config, tmp_path / "rest")
    assert result.output.startswith("5 requests in 1 file(s)")
    for path in (tmp_path / "rest").iterdir():
        assert KEY not in path.read_text(encoding="utf-8")


def test_a_second_submit_sends_nothing(repo, fake, tmp_path):
    config = _config(tmp_path, fake)
    exported = tmp_path / "export"
    _export(repo, config, exported, "--max-lines", 4)
    first = _cli("batch", "submit", exported, "--config", config)
    second = _cli("batch", "submit", exported, "--config", config)
    assert first.exit_code == second.exit_code == 0
    assert second.output.count("(already submitted)") == 2
    assert fake.uploads == fake.created == 2


def test_a_lost_creation_answer_is_found_again_not_created_twice(repo, fake, tmp_path):
    config, exported = _exported(repo, fake, tmp_path)
    fake.lose_create_answers = 1
    lost = _cli("batch", "submit", exported, "--config", config)
    assert lost.exit_code == 3 and lost.output.count("\n") == 1
    assert "POST /batches: HTTP 502" in lost.output
    again = _cli("batch", "submit", exported, "--config", config)
    assert again.exit_code == 0, again.output
    assert fake.uploads == 1 and fake.created == 1  # the file was not sent again, the batch not made again


def test_an_upload_answered_503_is_tried_again_and_reported_in_one_line_when_it_stays(repo, fake, tmp_path):
    config, exported = _exported(repo, fake, tmp_path)
    fake.fail_uploads = 10
    failed = _cli("batch", "submit", exported, "--config", config)
    assert failed.exit_code == 3
    assert failed.output == "repodaily: error: POST /files: HTTP 503: The server is overloaded. (after 4 attempts)\n"
    assert fake.fail_uploads == 6
    fake.fail_uploads = 2
    passed = _cli("batch", "submit", exported, "--config", config)
    assert passed.exit_code == 0, passed.output
    assert fake.uploads == 1 and fake.created == 1


def test_a_refused_key_is_one_line(repo, fake, tmp_path, monkeypatch):
    config, exported = _exported(repo, fake, tmp_path)
    monkeypatch.setenv(KEY_ENV, "sk-wrong-0000000000000000")
    refused = _cli("batch", "submit", exported, "--config", config)
    assert refused.exit_code == 3 and refused.output.count("\n") == 1
    assert "HTTP 401" in refused.output and "sk-wrong" not in refused.output
    assert fake.refused == 1 and fake.uploads == 0


def _submitted(repo: Path, server: FakeOpenAI, tmp_path: Path, errors: int = 0) -> tuple[Path, Path]:
    """An export whose batch is finished, the first ``errors`` of its lines answered in the error file."""
    config, exported = _exported(repo, server, tmp_path)
    server.error_ids = frozenset(line["custom_id"] for line in _lines(exported)[:errors])
    assert _cli("batch", "submit", exported, "--config", config).exit_code == 0
    _until_finished(exported, config)
    return config, exported


def test_an_expired_batch_keeps_its_results_and_the_rest_is_asked_one_by_one(repo, fake, tmp_path):
    fake.expire = True
    config, exported = _submitted(repo, fake, tmp_path)
    collected = _cli("batch", "collect", exported, "--config", config)
    assert collected.exit_code == 0, collected.output
    assert "stored 3, already stored 0, analysed one by one 4, failed 0" in collected.output
    assert fake.chat == 4 and _rows(config) == 7


_PEAK_SAID = """
import atexit, runpy, sys
where = sys.argv.pop(1)
def said():
    with open("/proc/self/status") as status:
        peak = next(line for line in status if line.startswith("VmHWM:"))
    with open(where, "w") as out:
        out.write(peak.split()[1])
atexit.register(said)
sys.argv[0] = "repodaily"
runpy.run_module("repodaily", run_name="__main__")
"""


def _peak_mib(tmp_path: Path, *args: object) -> tuple[str, float]:
    """What ``repodaily ARGS`` run as its own process printed, and its peak resident memory (its own, since exec)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    peak = tmp_path / "peak"
    command = [sys.executable, "-c", _PEAK_SAID, str(peak), *map(str, args)]
    printed = subprocess.run(command, env=env, capture_output=True, text=True, timeout=120)
    return printed.stdout + printed.stderr, int(peak.read_text()) / 1024


def test_a_large_output_file_is_read_as_it_arrives_not_held_whole(repo, fake, tmp_path):
    config, exported = _submitted(repo, fake, tmp_path)
    (output_id,) = [batch["output_file_id"] for batch in fake.batches.values()]
    name, answers = fake.files[output_id]
    padding = b"".join(b'{"not": "a reply", "n": %d, "pad": "%s"}\n' % (n, b"x" * 1000) for n in range(60_000))
    _, baseline = _peak_mib(tmp_path, "batch", "status", exported, "--config", config)
    fake.files[output_id] = (name, answers + padding)  # 60 MB
    said, peak = _peak_mib(tmp_path, "batch", "collect", exported, "--config", config)
    assert "stored 7, already stored 0, analysed one by one 0, failed 0" in said, said
    assert "60000 lines are no reply" in said
    assert peak - baseline < 30, f"{peak - baseline:.0f} MiB more than a status for a 60 MiB download"


def test_lines_of_the_error_file_are_asked_one_by_one(repo, fake, tmp_path):
    fake.error_message = f"The model failed.\nrepodaily: error: forged line\r\n{KEY}"
    config, exported = _submitted(repo, fake, tmp_path, errors=2)
    collected = _cli("batch", "collect", exported, "--config", config)
    assert "stored 5, already stored 0, analysed one by one 2, failed 0" in collected.output
    reasons = [line for line in collected.output.splitlines() if "not from the batch" in line]
    assert len(reasons) == 2 and all("The model failed. repodaily: error: forged line [redacted]" in r for r in reasons)
    assert KEY not in collected.output and "\nrepodaily: error" not in collected.output
    assert fake.chat == 2 and _rows(config) == 7


def test_a_line_that_also_fails_one_by_one_is_one_line_on_stderr(repo, fake, tmp_path):
    config, exported = _submitted(repo, fake, tmp_path, errors=2)
    fake.refuse_chat = True
    collected = _cli("batch", "collect", exported, "--config", config)
    assert "stored 5, already stored 0, analysed one by one 0, failed 2" in collected.output
    failures = [line for line in collected.output.splitlines() if "does not exist" in line]
    assert len(failures) == 2 and all(" failed: ProviderError: " in line for line in failures), collected.output
    assert fake.chat == 2 and _rows(config) == 5


def test_a_collect_killed_midway_stores_each_analysis_once_when_run_again(repo, fake, tmp_path):
    fake.hang_after = 1  # of the four to ask one by one, the second hangs
    config, exported = _submitted(repo, fake, tmp_path, errors=4)
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    command = [sys.executable, "-m", "repodaily", "batch", "collect", str(exported), "--config", str(config)]
    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + 60
        while fake.chat < 2 and time.monotonic() < deadline and process.poll() is None:
            time.sleep(0.05)
        assert fake.chat == 2, process.communicate(timeout=5)
    finally:
        process.kill()
        process.wait(timeout=10)
    assert _rows(config) == 3 + 1  # the batch's own replies, and the one answered before the hang
    fake.release.set()
    again = _cli("batch", "collect", exported, "--config", config)
    assert again.exit_code == 0, again.output
    assert "stored 0, already stored 4, analysed one by one 3, failed 0" in again.output
    assert fake.chat == 2 + 3 and _rows(config) == 7


def test_vllm_run_batch_output_is_collected_from_a_file(repo, fake, tmp_path):
    synchronous = _report(repo, _config(tmp_path, fake, "sync.toml"), tmp_path / "sync")
    asked = fake.chat
    config = _config(tmp_path, fake, "batch.toml")
    exported = tmp_path / "export"
    _export(repo, config, exported)
    outputs = []
    for number, chunk in enumerate(sorted(exported.glob("batch-*.jsonl"))):
        out = tmp_path / f"out-{number}.jsonl"
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT / "bench"), str(ROOT / "src")]),
        }
        run = [sys.executable, str(ROOT / "tests" / "fake_run_batch.py"), "-i", str(chunk), "-o", str(out)]
        subprocess.run([*run, "--model", "fake-model"], env=env, check=True, timeout=60)
        outputs += ["--from-file", out]
    collected = _cli("batch", "collect", exported, *outputs, "--config", config)
    assert "stored 7, already stored 0, analysed one by one 0, failed 0" in collected.output
    assert _report(repo, config, tmp_path / "batched") == synchronous
    assert fake.chat == asked and fake.uploads == 0


def test_a_hostile_output_file_stores_what_answers_and_says_what_it_left_out(repo, fake, tmp_path):
    """Out of order, a duplicate, a stranger, a line not UTF-8, one over the cap, one cut short at the end."""
    config = _config(tmp_path, fake)
    exported = tmp_path / "export"
    _export(repo, config, exported)
    chunk = next(exported.glob("batch-*.jsonl"))
    answered = tmp_path / "answered.jsonl"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "tests"), str(ROOT / "bench"), str(ROOT / "src")])}
    run = [sys.executable, str(ROOT / "tests" / "fake_run_batch.py"), "-i", str(chunk), "-o", str(answered)]
    subprocess.run([*run, "--model", "fake-model"], env=env, check=True, timeout=60)
    good = answered.read_bytes().splitlines()
    hostile = tmp_path / "hostile.jsonl"
    with hostile.open("wb") as out:
        for line in [*reversed(good[:4]), good[0], b"\xff\xfe not UTF-8 \xc3(", good[4]]:
            out.write(line + b"\n")
        out.write(b'{"custom_id": "' + b"x" * (MAX_REPLY_LINE_BYTES + 10) + b'"}\n')
        out.write(json.dumps({"id": "s", "custom_id": "rd-" + "0" * 40, "response": None}).encode() + b"\n")
        out.write(good[5][: len(good[5]) // 2])
    collected = _cli("batch", "collect", exported, "--from-file", hostile, "--config", config)
    assert collected.exit_code == 0, collected.output
    assert "stored 5, already stored 0, analysed one by one 2, failed 0" in collected.output
    assert (
        f"{hostile}: 3 lines are no reply (not a JSON object naming its custom_id, or over 16 MB)" in collected.output
    )
    assert "1 replies answer no request of this export" in collected.output
    assert _rows(config) == 7


@pytest.mark.parametrize("kind", ["a character device", "a FIFO"])
def test_an_output_file_that_is_no_regular_file_is_refused_before_anything_is_asked(repo, fake, tmp_path, kind):
    """A device never ends and a FIFO no one writes to never opens: either held collect for ever."""
    config = _config(tmp_path, fake)
    exported = tmp_path / "export"
    _export(repo, config, exported)
    named = Path("/dev/zero") if kind == "a character device" else tmp_path / "fifo"
    if kind == "a FIFO":
        os.mkfifo(named)
    asked = fake.chat
    refused = _cli("batch", "collect", exported, "--from-file", named, "--config", config)
    assert refused.exit_code == 2
    assert f"--from-file {named}: cannot read: not a regular file ({kind})" in refused.output
    assert fake.chat == asked and _rows(config) == 0


def test_another_exports_output_is_refused_before_anything_is_asked(repo, fake, tmp_path):
    config = _config(tmp_path, fake)
    exported = tmp_path / "export"
    _export(repo, config, exported)
    stranger = tmp_path / "stranger.jsonl"
    reply = {"id": "r1", "custom_id": "another-export-0001", "response": {"status_code": 200, "body": {}}}
    stranger.write_text(json.dumps(reply) + "\n")
    asked = fake.chat
    refused = _cli("batch", "collect", exported, "--from-file", stranger, "--config", config)
    assert refused.exit_code == 2 and "is it another export's output?" in refused.output
    assert fake.chat == asked and _rows(config) == 0


def test_replies_to_no_request_of_the_export_are_counted_not_kept(repo, fake, tmp_path):
    """An output file of another run's megabytes is read a line at a time, and what answers none of ours is let go."""
    _, exported = _exported(repo, fake, tmp_path)
    ours = _lines(exported)[0]["custom_id"]
    output = tmp_path / "mixed.jsonl"
    with output.open("w") as out:
        for number in range(60):
            body = {"pad": "x" * 1_000_000}
            out.write(json.dumps({"custom_id": f"another-{number}", "response": {"status_code": 200, "body": body}}))
            out.write("\n")
        out.write(json.dumps({"custom_id": ours, "response": {"status_code": 200, "body": {"choices": []}}}) + "\n")
    tracemalloc.start()
    try:
        replies = replies_from_files([str(output)], read_requests(exported))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert set(replies.by_id) == {ours}
    assert peak < 20 * 2**20, f"{peak / 2**20:.0f} MiB held for a 60 MB file of others' replies"


def test_the_slim_format_carries_custom_id_and_body_only_and_is_not_submitted_to_openai(repo, fake, tmp_path):
    config = _config(tmp_path, fake)
    exported = tmp_path / "slim"
    _export(repo, config, exported, "--line-format", "slim")
    lines = _lines(exported)
    assert len(lines) == 7 and all(set(line) == {"custom_id", "body"} for line in lines)
    refused = _cli("batch", "submit", exported, "--config", config)
    assert refused.exit_code == 2 and "--line-format openai" in refused.output
    assert fake.uploads == 0


def test_exporting_into_an_export_and_collecting_from_nothing_are_one_line_each(repo, fake, tmp_path):
    config = _config(tmp_path, fake)
    _export(repo, config, tmp_path / "export")
    again = _cli(
        "batch", "export", repo, "--name", NAME, "--date", SINCE, "--out", tmp_path / "export", "--config", config
    )
    assert again.exit_code == 2 and again.output.count("\n") == 1 and "already holds an export" in again.output
    nothing = _cli("batch", "collect", tmp_path / "nowhere", "--config", config)
    assert nothing.exit_code == 2 and "no batch export here" in nothing.output


def test_a_manifest_edited_to_name_a_file_outside_the_export_uploads_nothing(repo, fake, tmp_path):
    config = _config(tmp_path, fake)
    exported = tmp_path / "export"
    _export(repo, config, exported)
    outside = tmp_path / "private.txt"
    outside.write_bytes(b"not for the provider\n")
    manifest = json.loads((exported / "manifest.json").read_text())
    manifest["chunks"][0].update(file="../private.txt", sha256=hashlib.sha256(outside.read_bytes()).hexdigest())
    (exported / "manifest.json").write_text(json.dumps(manifest))
    refused = _cli("batch", "submit", exported, "--config", config)
    assert refused.exit_code == 2 and refused.output.count("\n") == 1, refused.output
    assert "not a batch manifest of this version" in refused.output
    assert fake.uploads == 0


BIG_DAY = "2026-03-05"


@pytest.fixture(scope="module")
def big_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A day with a commit too big for one prompt (three files of a prompt each) and a small one."""
    builder = RepoBuilder(tmp_path_factory.mktemp("batch-big") / "repo")
    builder.commit("Initial import", when=datetime(2026, 3, 4, 9, tzinfo=UTC), files={"engine/core.py": "x = 0\n"})
    modules = {
        f"engine/{name}.py": "".join(
            f"def {name}_{n}(value):\n    return value * {n} + {len(name)}\n\n" for n in range(12)
        )
        for name in ("planner", "scheduler", "executor")
    }
    builder.commit("Split the engine in three (#500)", when=datetime(2026, 3, 5, 9, tzinfo=UTC), files=modules)
    builder.commit("Fix a typo (#501)", when=datetime(2026, 3, 5, 10, tzinfo=UTC), files={"engine/core.py": "x = 1\n"})
    return builder.path


def _big_report(repo: Path, config: Path, out: Path) -> dict[str, bytes]:
    result = _cli("report", repo, "--name", NAME, "--date", BIG_DAY, "--output", out, "--config", config)
    assert result.exit_code == 0, result.output
    return {str(p.relative_to(out)): p.read_bytes() for p in sorted(out.rglob("*.md"))}


def _submit_and_collect(directory: Path, config: Path) -> Result:
    assert _cli("batch", "submit", directory, "--config", config).exit_code == 0
    _until_finished(directory, config)
    collected = _cli("batch", "collect", directory, "--config", config)
    assert collected.exit_code == 0, collected.output
    return collected


def test_a_commit_in_parts_takes_two_rounds_and_ends_as_the_synchronous_path_judged_it(big_repo, fake, tmp_path):
    small_budget = ("[context]", "budget_tokens = 200")
    synchronous = _big_report(big_repo, _config(tmp_path, fake, "sync.toml", *small_budget), tmp_path / "sync")
    asked = fake.chat
    parts = sum(1 for r in fake.chat_requests if r.json()["response_format"]["json_schema"]["name"] == "ChunkSummary")
    assert parts >= 2 and asked == parts + 2

    config = _config(tmp_path, fake, "batch.toml", *small_budget)
    exported = tmp_path / "export"
    args = ("batch", "export", big_repo, "--name", NAME, "--date", BIG_DAY, "--out", exported, "--config", config)
    assert _cli(*args).exit_code == 0
    ids = [line["custom_id"] for line in _lines(exported)]
    assert len(ids) == parts + 1 and sum(i.endswith(tuple(f"-p{n}" for n in range(1, 9))) for i in ids) == parts
    first = _submit_and_collect(exported, config)
    assert "stored 1, already stored 0, analysed one by one 0, failed 0" in first.output
    (follow_up,) = exported.glob("verdicts-*")
    assert f"1 commit(s) in parts were summarised: their verdict requests are in {follow_up}" in first.output
    assert _cli("batch", "collect", exported, "--config", config).output.count("verdicts-") == 1  # written once

    second = _submit_and_collect(follow_up, config)
    assert "stored 1, already stored 0, analysed one by one 0, failed 0" in second.output
    assert fake.chat == asked  # every request went through the batches
    assert _big_report(big_repo, config, tmp_path / "batched") == synchronous
    assert fake.chat == asked


def test_status_and_collect_before_submit_say_so_and_store_nothing(repo, fake, tmp_path):
    config, exported = _exported(repo, fake, tmp_path)
    status = _cli("batch", "status", exported, "--config", config)
    assert status.exit_code == 0 and "batch-0001.jsonl\t-\tnot submitted\t0/7, failed 0" in status.output
    collected = _cli("batch", "collect", exported, "--config", config)
    assert collected.exit_code == 0
    assert "stored 0, already stored 0, analysed one by one 0, failed 0" in collected.output
    assert "not finished: batch-0001.jsonl (not submitted); collect again once they are" in collected.output
    assert _rows(config) == 0 and fake.chat == 0
