"""Bounded waits, one credential check and true accounting, against a real misbehaving HTTP server.

Each test runs the real CLI (`repodaily report` or `repodaily doctor`) on a real
git repository against an OpenAI-compatible endpoint on 127.0.0.1 that answers
as the test scripts it: a completion dripped a byte at a time, a body of tens
of megabytes, a refused key, server errors, silence. The endpoint records every
request it received, so the assertions count what really went over the wire.
"""

from __future__ import annotations

import asyncio
import json
import socket
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from endpoint_simulator import (
    SIMULATED_MODEL,
    EndpointSimulator,
    HttpRequest,
    openai_error,
    prompt_text,
    retry_after_headers,
    write_json,
    write_response,
)
from llm_fakes import INFO_PATHS

from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import DailyReport, HighlightKind

SHANGHAI = ZoneInfo("Asia/Shanghai")
DAY = "2026-03-02"
KEY_ENV = "REPODAILY_TEST_LLM_KEY"
# A deadline small enough to keep each test to seconds, and what the client may add to it:
# the backoff before the one retry is drawn from [0, 1) s; process work (git, rendering) is the slack.
DEADLINE_S = 1.0
ATTEMPTS = 2
BACKOFF_CEILING_S = 1.0
SLACK_S = 1.5
HIGHLIGHTS_MARK = "key points"  # in the system prompt of the day's highlights call (English)

VERDICT = {
    "type": "fix",
    "secondary_types": [],
    "importance": "high",
    "importance_reason": "Fixes a crash users hit.",
    "flags": {"security": False, "breaking": False, "user_facing": True},
    "summary": ["Returns None for a missing key."],
    "one_line": "Fix a crash on a missing cache key.",
    "impact_scope": ["cache"],
    "insights": [{"aspect": "maintainability", "text": "Removes a KeyError path."}],
    "risks": ["Callers that relied on the exception change behaviour."],
    "recommendations": [{"audience": "users", "text": "Upgrade if you read missing keys."}],
}

Answer = Callable[["ScriptedEndpoint", HttpRequest, asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]
Script = Callable[[HttpRequest, int], Answer | None]


def _reply_to(body: dict[str, Any]) -> dict[str, Any]:
    """A valid answer to whichever structured call this is: the day's highlights, or a commit's verdict."""
    if HIGHLIGHTS_MARK in prompt_text(body):
        return {"highlights": [{"text": "A cache fix lands.", "shas": ["0000000"]}]}
    return VERDICT


class ScriptedEndpoint(EndpointSimulator):
    """The endpoint simulator, with each request answered as `script(request, chat_index)` says.

    `script` returns an answer for the request, or None for the simulator's own
    (a valid completion; `GET /v1/models` lists `simulator`). `chat_index` counts
    the chat requests before this one.
    """

    def __init__(self, script: Script) -> None:
        super().__init__(concurrency=64, verdict=_reply_to)
        self._script = script
        self.received: list[HttpRequest] = []
        #: Body bytes a flooding answer handed to the socket before the client hung up.
        self.flooded = 0

    @property
    def chat(self) -> list[HttpRequest]:
        return [r for r in self.received if r.path.endswith("/chat/completions")]

    def prompts(self) -> list[str]:
        return [prompt_text(r.json()) for r in self.chat]

    async def _respond(self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        answer = self._script(request, len(self.chat))
        self.received.append(request)
        if answer is None:
            await super()._respond(request, reader, writer)
        else:
            await answer(self, request, reader, writer)


def on_chat(answer: Answer, *, first: int | None = None) -> Script:
    """`answer` for chat requests (only the first `first` of them, when given); the simulator for the rest."""

    def script(request: HttpRequest, chat_index: int) -> Answer | None:
        is_chat = request.path.endswith("/chat/completions")
        return answer if is_chat and (first is None or chat_index < first) else None

    return script


def on_path(suffix: str, answer: Answer) -> Script:
    return lambda request, _: answer if request.path.endswith(suffix) else None


def status(code: int) -> Answer:
    """An OpenAI-style error; a retried status says `Retry-After: 0`, so retries cost no wall time."""

    async def answer(_: ScriptedEndpoint, __: HttpRequest, ___: asyncio.StreamReader, writer: asyncio.StreamWriter):
        headers = retry_after_headers(0) if code >= 500 else []
        await write_json(writer, code, openai_error(code, f"scripted HTTP {code}"), headers)

    return answer


def drip(interval_s: float, *, longest_s: float = 12.0) -> Answer:
    """A valid completion (or model list), headers at once, then its body one byte per `interval_s`.

    A byte a second against a 30 s deadline, scaled down: every byte comes well
    inside a per-read timeout of `DEADLINE_S`, so only a deadline on the whole
    answer ends the wait. The drip stops after `longest_s` (a client without such
    a deadline has shown it by then) or when the client hangs up.
    """

    async def answer(server: ScriptedEndpoint, request: HttpRequest, reader: asyncio.StreamReader, writer):
        if request.method == "GET":
            payload: Any = {"object": "list", "data": [{"id": SIMULATED_MODEL, "object": "model"}]}
        else:
            payload = server._completion(request.json())
        body = json.dumps(payload).encode()
        head = f"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n"
        writer.write(head.encode("latin-1"))
        await writer.drain()
        stop = time.monotonic() + longest_s
        for index in range(len(body)):
            if reader.at_eof() or time.monotonic() > stop:
                return
            writer.write(body[index : index + 1])
            await writer.drain()
            await asyncio.sleep(interval_s)

    return answer


def flood(total_bytes: int) -> Answer:
    """A 200 whose body is `total_bytes` of JSON whitespace, streamed without a Content-Length."""

    async def answer(server: ScriptedEndpoint, _: HttpRequest, __: asyncio.StreamReader, writer):
        # A small send buffer, so `flooded` is close to what the client actually took in.
        writer.get_extra_info("socket").setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 * 1024)
        writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n")
        chunk = b" " * (64 * 1024)
        while server.flooded < total_bytes:
            writer.write(chunk)
            await writer.drain()
            server.flooded += len(chunk)

    return answer


async def silence(_: ScriptedEndpoint, __: HttpRequest, reader: asyncio.StreamReader, ___: asyncio.StreamWriter):
    """Read the request, then say nothing (no status line) until the client hangs up."""
    await reader.read(1)


def completion_with(content: str) -> Answer:
    """A well-formed completion carrying `content` as the model's text."""

    async def answer(server: ScriptedEndpoint, request: HttpRequest, _: asyncio.StreamReader, writer):
        payload = server._completion(request.json())
        payload["choices"][0]["message"]["content"] = content
        await write_json(writer, 200, payload)

    return answer


@pytest.fixture
def serve() -> Iterator[Callable[[Script], ScriptedEndpoint]]:
    running: list[ScriptedEndpoint] = []

    def start(script: Script) -> ScriptedEndpoint:
        running.append(ScriptedEndpoint(script).start())
        return running[-1]

    yield start
    for endpoint in running:
        endpoint.stop()


def _day_repo(root: Path, commits: int) -> Path:
    """`commits` small fixes on DAY, after an initial import the day before."""
    builder = RepoBuilder(root / "repo")
    builder.commit(
        "Initial import",
        when=datetime(2026, 3, 1, 9, tzinfo=SHANGHAI),
        files={"app/cache.py": "def get(key, store):\n    return store[key]\n"},
    )
    start = datetime(2026, 3, 2, 9, tzinfo=SHANGHAI)
    for n in range(commits):
        builder.commit(
            f"[Bugfix] Fix a crash in cache lookup {n} (#{n + 10})",
            when=start + timedelta(minutes=10 * n),
            files={f"app/part_{n}.py": f"def get_{n}(key, store):\n    return store.get(key)\n"},
        )
    return builder.path


def _config(tmp_path: Path, endpoint: ScriptedEndpoint, **settings: object) -> Path:
    values = {
        "timeout_s": DEADLINE_S,
        "timeout_per_1k_prompt_tokens_s": 0,
        "max_retries": ATTEMPTS - 1,
        "concurrency": 8,
        "max_tokens": 400,
        **settings,
    }
    lines = [
        f'cache_dir = "{tmp_path / "cache"}"',
        "[analyzer]",
        'name = "llm"',
        "concurrency = 8",
        "[[llm.endpoints]]",
        'name = "scripted"',
        f'base_url = "{endpoint.base_url}"',
        f'model = "{SIMULATED_MODEL}"',
        f'api_key_env = "{KEY_ENV}"',
        *(f"{key} = {json.dumps(value)}" for key, value in values.items()),
    ]
    path = tmp_path / "repodaily.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _report(repo: Path, config: Path) -> tuple[int, DailyReport, str, float]:
    """One `repodaily report` run: exit code, the JSON report, stderr and the wall time."""
    out = config.parent / "out"
    args = ["report", str(repo), "--name", "acme/app", "--date", DAY, "--lang", "en", "--config", str(config)]
    started = time.monotonic()
    result = CliRunner().invoke(main, [*args, "--output", str(out), "--format", "json"], catch_exceptions=False)
    elapsed = time.monotonic() - started
    written = out / "2026" / "acme" / "app" / f"{DAY}.json"
    return (
        result.exit_code,
        DailyReport.model_validate_json(written.read_text(encoding="utf-8")),
        result.stderr,
        elapsed,
    )


def _cost_without_waits(repo: Path, tmp_path: Path) -> float:
    """Wall time of the same report with no model to wait for: what the pipeline itself costs on this machine now.

    A bound on waiting is checked on top of it, so a loaded machine does not fail the check.
    """
    config = tmp_path / "heuristic" / "repodaily.toml"
    config.parent.mkdir()
    config.write_text(f'cache_dir = "{tmp_path / "heuristic" / "cache"}"\n[analyzer]\nname = "heuristic"\n')
    return _report(repo, config)[3]


def _doctor(config: Path) -> tuple[int, str, float]:
    started = time.monotonic()
    result = CliRunner().invoke(main, ["doctor", "--config", str(config)], catch_exceptions=False)
    return result.exit_code, result.stdout + result.stderr, time.monotonic() - started


# --------------------------------------------------------------------------- every wait is bounded


def test_a_dripping_answer_ends_at_the_deadline_and_the_commits_fall_back(tmp_path, serve):
    endpoint = serve(on_chat(drip(0.2)))
    repo = _day_repo(tmp_path, commits=3)
    own = _cost_without_waits(repo, tmp_path)
    code, report, err, elapsed = _report(repo, _config(tmp_path, endpoint))
    bound = own + DEADLINE_S * ATTEMPTS + BACKOFF_CEILING_S + SLACK_S
    print(f"dripping endpoint: report took {elapsed:.2f} s (bound {bound:.2f} s)")
    assert elapsed < bound, err
    assert code == 1
    assert {c.analysis.status for c in report.commits} == {"fallback"}
    assert "within 1 s" in report.commits[0].analysis.note
    # Three requests without an answer open the circuit: the retries still to come are not sent.
    assert len(endpoint.chat) == report.run.calls < 3 * ATTEMPTS


def test_an_endpoint_that_never_answers_costs_one_round_of_deadlines_not_one_per_commit(tmp_path, serve):
    """No answer says nothing about the key: requests then go out together rather than one by one."""
    endpoint = serve(on_chat(silence))
    repo = _day_repo(tmp_path, commits=6)
    own = _cost_without_waits(repo, tmp_path)
    code, report, err, elapsed = _report(repo, _config(tmp_path, endpoint))
    # The first request goes alone until it ends; then all six commits' attempts run side by side.
    bound = own + DEADLINE_S * (ATTEMPTS + 1) + BACKOFF_CEILING_S + SLACK_S
    print(f"silent endpoint: report of 6 commits took {elapsed:.2f} s (bound {bound:.2f} s)")
    assert elapsed < bound, err
    assert code == 1 and report.stats.degraded == 6
    assert len(endpoint.chat) == report.run.calls <= 6 + ATTEMPTS


@pytest.mark.parametrize("path", ["/models", "/chat/completions"])
def test_doctor_ends_at_the_deadline_when_the_endpoint_drips(tmp_path, serve, path):
    endpoint = serve(on_path(path, drip(0.2)))
    code, out, elapsed = _doctor(_config(tmp_path, endpoint, max_retries=4))
    bound = DEADLINE_S + SLACK_S  # doctor asks once, without the retry ladder, and stops at the first failure
    print(f"doctor, {path} dripping: {elapsed:.2f} s (bound {bound:.2f} s)")
    assert elapsed < bound, out
    assert code == 1 and "no complete answer within" in out
    asked = [r for r in endpoint.received if not r.path.endswith(INFO_PATHS)]
    assert len(asked) == (1 if path == "/models" else 2)


def test_a_huge_body_is_not_read_past_the_cap_and_never_sent_back(tmp_path, serve):
    body_bytes, cap = 50 * 1024 * 1024, 1024 * 1024
    endpoint = serve(on_chat(flood(body_bytes)))
    repo = _day_repo(tmp_path, commits=1)
    code, report, err, _ = _report(repo, _config(tmp_path, endpoint, max_response_bytes=cap))
    mib = 2**20
    print(f"flooding endpoint: {endpoint.flooded / mib:.1f} MiB handed to the socket, of {body_bytes / mib:.0f} MiB")
    assert code == 1
    (commit,) = report.commits
    assert commit.analysis.status == "fallback" and "max_response_bytes" in commit.analysis.note
    # What the client took in is the cap plus the two sockets' buffers, far from the whole body.
    assert endpoint.flooded < body_bytes / 4
    # An oversized body is a broken server, not a bad answer: neither retried nor repaired.
    assert len(endpoint.chat) == 1 == report.run.calls


def test_a_reply_far_longer_than_max_tokens_is_not_echoed_in_the_repair_round(tmp_path, serve):
    """JSON of the wrong shape gets a repair round, which restates the errors without the 300 kB reply."""
    garbage = json.dumps({"type": "fix", "notes": "x" * 300_000})
    endpoint = serve(on_chat(completion_with(garbage), first=1))
    repo = _day_repo(tmp_path, commits=1)
    code, report, err, _ = _report(repo, _config(tmp_path, endpoint, max_tokens=400))
    assert code == 0, err
    assert max(len(r.body) for r in endpoint.chat) < len(garbage)
    first, repair, *_ = endpoint.prompts()
    assert "does not match the schema" in repair and "x" * 1000 not in repair
    assert len(repair) < len(first) + 2000


# --------------------------------------------------------------------------- refused credentials


def test_a_refused_key_costs_one_request_per_run_at_concurrency_8(tmp_path, serve, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-test-refused-key")
    endpoint = serve(on_chat(status(401)))
    repo = _day_repo(tmp_path, commits=10)
    config = _config(tmp_path, endpoint, max_retries=4)
    for run in (1, 2):
        code, report, err, _ = _report(repo, config)
        print(f"refused key, run {run}: {len(endpoint.chat)} request(s) received in all")
        assert len(endpoint.chat) == run  # one per run, whatever the concurrency; no highlights call
        assert code == 1 and report.stats.degraded == 10
        assert report.run.calls == 1
        assert "refused" in err and "sk-test-refused-key" not in err + report.model_dump_json()


def test_a_refusal_when_the_key_variable_is_unset_names_the_variable(tmp_path, serve, monkeypatch):
    """No key was sent: the line says which variable to set, not that a key was refused."""
    monkeypatch.delenv(KEY_ENV, raising=False)
    endpoint = serve(on_chat(status(401)))
    repo = _day_repo(tmp_path, commits=3)
    code, report, err, _ = _report(repo, _config(tmp_path, endpoint))
    assert code == 1 and report.stats.degraded == 3
    assert "authorization" not in endpoint.chat[0].headers
    refusals = [line for line in err.splitlines() if "401" in line]
    assert refusals and all(f"{KEY_ENV} (api_key_env) is not set" in line for line in refusals), err


def nested(depth: int) -> Answer:
    """A 200 whose JSON body nests `depth` arrays: deeper than any parser recurses."""
    body = b"[" * depth + b"]" * depth

    async def answer(_: ScriptedEndpoint, __: HttpRequest, ___: asyncio.StreamReader, writer: asyncio.StreamWriter):
        await write_response(writer, 200, body, [("Content-Type", "application/json")])

    return answer


def test_an_answer_nested_past_the_parser_is_a_failed_analysis_not_an_internal_error(tmp_path, serve):
    """Every path answers so: completions, the slot count asked aside, and doctor's model list."""
    endpoint = serve(lambda _, __: nested(100_000))
    repo = _day_repo(tmp_path, commits=3)
    config = _config(tmp_path, endpoint)
    code, report, err, _ = _report(repo, config)
    assert code == 1 and report.stats.degraded == 3
    assert "not JSON" in err and "RecursionError" not in err and "internal error" not in err, err
    doctor = CliRunner().invoke(main, ["doctor", "--config", str(config)])
    assert doctor.exit_code == 1 and "RecursionError" not in doctor.output, doctor.output


def test_an_error_body_sent_with_http_200_is_quoted_in_the_failure(tmp_path, serve, monkeypatch):
    """A gateway that answers 200 with an OpenAI-style error: the line says what it said, the key masked."""
    monkeypatch.setenv(KEY_ENV, "sk-test-echoed-key-0123")
    body = {"error": {"message": "upstream overloaded\n\x1b[2J for sk-test-echoed-key-0123", "code": 503}}

    async def answer(_: ScriptedEndpoint, __: HttpRequest, ___: asyncio.StreamReader, writer: asyncio.StreamWriter):
        await write_json(writer, 200, body)

    endpoint = serve(on_chat(answer))
    repo = _day_repo(tmp_path, commits=2)
    code, report, err, _ = _report(repo, _config(tmp_path, endpoint))
    assert code == 1 and report.stats.degraded == 2
    failures = [line for line in err.splitlines() if "not a chat completion" in line]
    assert failures and all("it says: upstream overloaded" in line for line in failures), err
    assert "sk-test-echoed-key-0123" not in err and "\x1b" not in err


def exhausted_limit(reset: str) -> Answer:
    """A valid completion whose headers say the request limit is used up until ``reset`` (OpenAI's headers)."""

    async def answer(server: ScriptedEndpoint, request: HttpRequest, _: asyncio.StreamReader, writer):
        headers = [("x-ratelimit-remaining-requests", "0"), ("x-ratelimit-reset-requests", reset)]
        await write_json(writer, 200, server._completion(request.json()), headers)

    return answer


@pytest.mark.timeout(60)
@pytest.mark.parametrize("reset", ["100000", "1e400", "inf", "nan", "27h46m40s"])
def test_a_limit_said_to_reset_past_any_wait_worth_taking_holds_no_request(tmp_path, serve, reset):
    """An answer may say the limit refills in a day, or never: the next request goes, and its own answer decides.

    Waiting as told would hold the run for as long as the server names. A wait
    that long is not taken after a refusal either (the commit falls back); after
    an answer nothing was refused yet, so the next request is simply sent.
    """
    endpoint = serve(on_chat(exhausted_limit(reset), first=1))
    repo = _day_repo(tmp_path, commits=3)
    own = _cost_without_waits(repo, tmp_path)
    code, report, err, elapsed = _report(repo, _config(tmp_path, endpoint, concurrency=1))
    assert elapsed < own + SLACK_S + 5, err
    assert code == 0 and {c.analysis.status for c in report.commits} == {"ok"}, err


# --------------------------------------------------------------------------- what stderr says


@pytest.mark.parametrize("code", [404, 500])
def test_a_failed_commit_is_one_line_and_an_endpoint_given_up_on_is_said_once(tmp_path, serve, code):
    """404 fails each commit on its own: a line each. 500s open the circuit: the commits after it are that news."""
    endpoint = serve(on_chat(status(code)))
    repo = _day_repo(tmp_path, commits=6)
    exit_code, report, err, _ = _report(repo, _config(tmp_path, endpoint))
    assert exit_code == 1 and report.stats.degraded == 6
    lines = err.splitlines()
    said = [commit.sha[:7] for commit in report.commits for line in lines if commit.sha[:7] in line]
    assert len(said) == len(set(said)), err
    if code == 404:
        assert len(said) == 6, err
    else:
        assert len(said) < 6 and sum("in a row" in line for line in lines) == 1, err


def error_page(status_code: int) -> Answer:
    """A gateway's HTML error page: many lines, and a terminal escape sequence among them."""
    page = b"<html>\n<body>\n<h1>Bad Gateway</h1>\n\x1b]0;owned\x07\x1b[2J\n</body>\n</html>\n" * 3

    async def answer(_: ScriptedEndpoint, __: HttpRequest, ___: asyncio.StreamReader, writer: asyncio.StreamWriter):
        await write_response(writer, status_code, page, [("Content-Type", "text/html")])

    return answer


def test_an_error_page_is_quoted_on_one_line_without_its_escapes_by_doctor_and_in_the_report(tmp_path, serve):
    endpoint = serve(on_chat(error_page(404)))
    code, out, _ = _doctor(_config(tmp_path, endpoint))
    assert code == 1
    problem = out.splitlines()[-1]
    assert problem.startswith("scripted: HTTP 404: <html> <body> <h1>Bad Gateway</h1>"), out
    assert "\x1b" not in out and "\x07" not in out
    code, report, err, _ = _report(_day_repo(tmp_path, commits=1), _config(tmp_path, endpoint))
    (commit,) = report.commits
    assert code == 1 and "HTTP 404: <html> <body> <h1>Bad Gateway</h1>" in commit.analysis.note
    assert "\n" not in commit.analysis.note


def redirect_to(location: str) -> Answer:
    async def answer(_: ScriptedEndpoint, __: HttpRequest, ___: asyncio.StreamReader, writer: asyncio.StreamWriter):
        await write_response(writer, 307, b"", [("Location", location)])

    return answer


def test_a_redirect_is_not_followed_and_says_where_it_pointed(tmp_path, serve, monkeypatch):
    monkeypatch.setenv(KEY_ENV, "sk-Zq8Vw3Lx7Nr2Tb6Yk4Pm9Hc5")
    elsewhere = serve(lambda request, _: None)
    endpoint = serve(on_chat(redirect_to(f"{elsewhere.base_url}/chat/completions?token=abc")))
    code, report, err, _ = _report(_day_repo(tmp_path, commits=1), _config(tmp_path, endpoint))
    (commit,) = report.commits
    assert code == 1 and commit.analysis.status == "fallback"
    assert (
        "HTTP 307: redirected to http://127.0.0.1, not followed; set base_url to the endpoint" in commit.analysis.note
    )
    assert elsewhere.received == [] and "token=abc" not in err + commit.analysis.note


# --------------------------------------------------------------------------- true accounting


def test_run_calls_count_every_request_including_the_failed_ones(tmp_path, serve):
    """Commit 0's requests all fail, commit 1's first one fails; the rest and the highlights are answered."""
    commit_1_failed = False

    def script(request: HttpRequest, _: int) -> Answer | None:
        nonlocal commit_1_failed
        prompt = prompt_text(request.json())
        if HIGHLIGHTS_MARK in prompt:  # it lists every commit of the day
            return None
        if "cache lookup 0 (#" in prompt:
            return status(500)
        if "cache lookup 1 (#" in prompt and not commit_1_failed:
            commit_1_failed = True
            return status(500)
        return None

    endpoint = serve(script)
    repo = _day_repo(tmp_path, commits=4)
    code, report, err, _ = _report(repo, _config(tmp_path, endpoint))
    assert code == 1 and report.stats.degraded == 1
    assert any(HIGHLIGHTS_MARK in prompt for prompt in endpoint.prompts())
    print(f"one commit failing, one retried: run.calls {report.run.calls}, requests received {len(endpoint.chat)}")
    assert report.run.calls == len(endpoint.chat) == ATTEMPTS + 2 + 1 + 1 + 1
    assert report.run.prompt_tokens > 0 and report.run.completion_tokens > 0


def test_a_day_whose_analyses_all_failed_is_counted_and_asks_no_highlights(tmp_path, serve):
    endpoint = serve(on_chat(status(500)))
    repo = _day_repo(tmp_path, commits=4)
    code, report, err, _ = _report(repo, _config(tmp_path, endpoint))
    assert code == 1 and report.stats.degraded == 4
    assert all(h.kind != HighlightKind.summary for h in report.highlights)  # only the ones picked by rule
    assert not any(HIGHLIGHTS_MARK in prompt for prompt in endpoint.prompts())
    print(f"endpoint always failing: run.calls {report.run.calls}, requests received {len(endpoint.chat)}")
    # Three failing requests open the circuit: the retries still to come are not sent.
    assert report.run.calls == len(endpoint.chat) < 4 * ATTEMPTS


# --------------------------------------------------------------------------- a server's queue and a server gone


def _defaults_config(tmp_path: Path, base_url: str, **settings: object) -> Path:
    """The LLM analyzer on one endpoint with every setting at its default but those given."""
    lines = [
        f'cache_dir = "{tmp_path / "cache"}"',
        "[analyzer]",
        'name = "llm"',
        "[[llm.endpoints]]",
        'name = "local"',
        f'base_url = "{base_url}"',
        f'model = "{SIMULATED_MODEL}"',
        *(f"{key} = {json.dumps(value)}" for key, value in settings.items()),
    ]
    path = tmp_path / "repodaily.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_a_four_slot_server_is_kept_busy_without_a_queue_at_default_settings(tmp_path):
    """Eight requests at once would queue four behind four; the limit learns the server's four from the answers."""
    latency, commits, slots = 0.4, 40, 4
    repo = _day_repo(tmp_path, commits=commits)
    with EndpointSimulator(latency=latency, concurrency=slots) as simulator:
        code, report, err, _ = _report(repo, _defaults_config(tmp_path, simulator.base_url))
        waits = sorted(simulator.queue_waits)
    assert code == 0 and report.stats.degraded == 0, err
    assert len(simulator.requests) == commits  # one call per commit: nothing timed out or was sent again
    assert simulator.max_in_flight_seen >= slots  # every slot was used (the time it takes is bench/llm_bench.py's)
    # At eight in flight half the requests would wait a whole latency in the server's queue (in all,
    # commits * latency / 2), and so would the median one. While the limit learns the server's four, the
    # first two rounds queue four each (8 * latency), and each later probe above four queues one. On an
    # idle machine that comes to 10 * latency; a loaded one adds probes whose wait is too short to read
    # as queueing, so the bound on the whole is the no-learning cost less a fifth, and the median says
    # most requests never queued.
    unlearnt = commits * latency / 2
    shown = [round(wait, 2) for wait in simulator.queue_waits]
    assert waits[len(waits) // 2] < latency / 4 and sum(waits) < unlearnt * 0.8, f"waits in order sent: {shown}"


@pytest.mark.parametrize(("configured", "expected"), [(None, 16), (3, 3)])
def test_the_slots_a_server_reports_set_the_limit_unless_the_user_capped_it(tmp_path, configured, expected):
    repo = _day_repo(tmp_path, commits=24)
    settings = {} if configured is None else {"concurrency": configured}
    with EndpointSimulator(latency=0.3, concurrency=16, advertise_slots=True) as simulator:
        code, report, err, _ = _report(repo, _defaults_config(tmp_path, simulator.base_url, **settings))
    assert code == 0 and report.stats.degraded == 0, err
    assert simulator.max_in_flight_seen == expected


def test_a_request_that_timed_out_in_a_busy_queue_goes_again_without_spending_an_attempt(tmp_path):
    """One slot, no retries, a deadline of two answers: the fourth request waits three and times out, once."""
    repo = _day_repo(tmp_path, commits=5)
    with EndpointSimulator(latency=0.5, concurrency=1) as simulator:
        config = _defaults_config(
            tmp_path, simulator.base_url, timeout_s=1.2, timeout_per_1k_prompt_tokens_s=0, max_retries=0
        )
        code, report, err, _ = _report(repo, config)
    assert code == 0 and report.stats.degraded == 0, err
    assert len(simulator.requests) > 5  # some were sent again, and none of them fell back


def test_a_server_that_goes_down_costs_a_handful_of_calls_and_a_rerun_asks_only_what_fell_back(tmp_path):
    repo = _day_repo(tmp_path, commits=16)
    with EndpointSimulator(latency=0.1, concurrency=4, down_after=5) as simulator:
        config = _defaults_config(tmp_path, simulator.base_url)
        code, report, err, _ = _report(repo, config)
        failed = simulator.dropped
        print(f"server down after 5 answers: {failed} calls failed, {report.stats.degraded} commits fell back")
        assert code == 1 and report.stats.degraded == 16 - 5, err
        assert err.count("not asked for") == 1  # one line says the endpoint is given up on
        # The requests in flight when it went down (at most the default 8), then at most two new ones and a
        # retry before three different requests have failed and the circuit opens.
        assert failed <= 8 + 3
        simulator.come_back()
        asked = len(simulator.requests)
        code, healed, err, _ = _report(repo, config)
    assert code == 0 and healed.stats.degraded == 0, err
    assert len(simulator.requests) - asked == 16 - 5


@pytest.mark.parametrize(("advertised", "shown"), [(True, "6"), (False, "-")])
def test_doctor_prints_the_slots_the_server_reports(tmp_path, advertised, shown):
    pong = {"ok": True}  # what doctor's check asks the model for
    with EndpointSimulator(0, 6, advertise_slots=advertised, verdict=lambda _: pong) as simulator:
        code, out, _ = _doctor(_defaults_config(tmp_path, simulator.base_url))
    assert code == 0, out
    header = next(line for line in out.splitlines() if "server slots" in line)
    row = next(line for line in out.splitlines() if line.startswith("│ local"))
    column = [cell.strip() for cell in header.split("┃")].index("server slots")
    assert [cell.strip() for cell in row.split("│")][column] == shown, out


def test_a_valid_answer_with_every_field_flooded_is_cut_near_its_hints_in_the_report(tmp_path, serve):
    """Hints bound what a model writes only when it heeds them: a reason of 800 kB and hundreds of risks stay out."""
    flooded = {
        **VERDICT,
        "importance_reason": "Because " * 100_000,
        "summary": ["Returns None. " * 1_000] * 20,
        "one_line": "Fix a crash. " * 10_000,
        "impact_scope": ["cache"] * 10_000,
        "insights": [{"aspect": "maintainability", "text": "Removes a path. " * 100}] * 200,
        "risks": ["Callers change. " * 100] * 200,
        "recommendations": [{"audience": "users", "text": "Upgrade. " * 100}] * 200,
    }
    endpoint = serve(on_chat(completion_with(json.dumps(flooded)), first=1))
    code, report, err, _ = _report(_day_repo(tmp_path, commits=1), _config(tmp_path, endpoint, timeout_s=30))
    assert code == 0, err
    analysis = report.commits[0].analysis
    assert analysis.status == "ok"
    assert len(analysis.model_dump_json()) < 50_000
    assert analysis.one_line.startswith("Fix a crash.") and analysis.one_line.endswith("…")
    assert 1 <= len(analysis.risks) <= 9 and all(len(risk) <= 900 for risk in analysis.risks)
    assert 1 <= len(analysis.insights) <= 9 and all(len(i.text) <= 900 for i in analysis.insights)


@pytest.mark.parametrize("lie", [10**30, 10**18, True])
def test_a_usage_past_any_model_window_is_not_counted(tmp_path, serve, lie):
    async def answer(server: ScriptedEndpoint, request: HttpRequest, _: asyncio.StreamReader, writer):
        payload = server._completion(request.json())
        payload["usage"] = {"prompt_tokens": lie, "completion_tokens": lie, "total_tokens": lie}
        await write_json(writer, 200, payload)

    endpoint = serve(on_chat(answer))
    code, report, err, _ = _report(_day_repo(tmp_path, commits=2), _config(tmp_path, endpoint))
    assert code == 0, err
    assert report.run.calls == len(endpoint.chat) >= 2
    assert report.run.prompt_tokens == report.run.completion_tokens == 0
    assert all(c.analysis.usage.prompt_tokens == 0 for c in report.commits)
