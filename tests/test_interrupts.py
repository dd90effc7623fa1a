"""A run stopped while its work waits outside the main thread ends at once; a silent remote ends by itself.

Each case runs the real CLI as a child process against a real server on
127.0.0.1 that takes the connection and never answers: the git source cloning
a URL (git and its ``git-remote-http`` helper wait on it), and the github
source reading the API (its requests run on an event loop of their own).
SIGTERM and Ctrl-C must end the run with their one line and exit code, leave
no git process and no half-made mirror behind; without a signal, a clone from
a remote that never sends a byte fails the repository in one line.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from chat_receivers import WebhookReceiver
from github_fake import GitHubFake

from repodaily.demo.scenario import DEMO_DAY, DEMO_REPO_NAME, build_demo_repo
from repodaily.errors import SourceError
from repodaily.sources.git import deadlines
from repodaily.sources.git.repository import open_repository

ROOT = Path(__file__).resolve().parents[1]
TOKEN = "ghp_Int3rrupt3dRunT0k3nQw3Er4Ty5Ui6Op7"


class SilentServer:
    """Accepts every connection and never answers; counts the connections it was given."""

    def __init__(self) -> None:
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.port = self._socket.getsockname()[1]
        self.connections: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self.connections.append(connection)

    def close(self) -> None:
        self._socket.close()
        for connection in self.connections:
            connection.close()


@pytest.fixture
def silent() -> Iterator[SilentServer]:
    server = SilentServer()
    yield server
    server.close()


def _start(tmp_path: Path, repos: str) -> subprocess.Popen[bytes]:
    config = tmp_path / "repodaily.toml"
    config.write_text(f'cache_dir = "{tmp_path / "cache"}"\n{repos}', encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "GITHUB_TOKEN": TOKEN}
    env.pop("GIT_HTTP_LOW_SPEED_TIME", None)
    command = [sys.executable, "-m", "repodaily", "run", "--date", "2026-03-02", "--analyzer", "heuristic"]
    return subprocess.Popen(
        [*command, "--config", str(config)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )


def _when(condition: object, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition() and time.monotonic() < deadline:  # type: ignore[operator]
        time.sleep(0.05)


def _signal_when(
    run: subprocess.Popen[bytes], ready: Callable[[], object], sent: int, never: str, timeout: float = 15
) -> bytes:
    """Sends ``sent`` to ``run`` once ``ready`` holds (``never`` says why it did not) and returns its stderr."""
    try:
        _when(ready)
        assert ready(), never
        run.send_signal(sent)
        return run.communicate(timeout=timeout)[1]
    finally:
        run.kill()


def _git_helpers_of(port: int) -> list[str]:
    """Command lines of git processes still talking to the server on ``port``."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            line = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "git" in line and f"127.0.0.1:{port}/" in line:
            found.append(line)
    return found


@pytest.mark.parametrize(
    ("sent", "code", "word"), [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")]
)
def test_a_signal_ends_a_run_waiting_on_a_clone_that_never_answers(tmp_path, silent, sent, code, word):
    run = _start(tmp_path, f'[[repos]]\nname = "acme/app"\nurl = "http://127.0.0.1:{silent.port}/app.git"\n')
    err = _signal_when(run, lambda: silent.connections, sent, "git never reached the server")
    assert run.returncode == code
    assert err.decode() == f"repodaily: error: {word}\n"
    _when(lambda: not _git_helpers_of(silent.port), 5)
    assert _git_helpers_of(silent.port) == []
    assert [p.name for p in (tmp_path / "cache" / "repos").iterdir()] == [], "no half-made mirror is left"


def test_sigterm_ends_a_run_waiting_on_github_for_the_github_source(tmp_path):
    with GitHubFake(TOKEN, "acme/app") as fake:
        fake.hang = True
        run = _start(
            tmp_path,
            f'[[repos]]\nsource = "github"\nrepository = "acme/app"\napi_url = "{fake.api_url}"\ntimeout_s = 600\n',
        )
        err = _signal_when(run, lambda: fake.requests, signal.SIGTERM, "the source never asked")
    assert run.returncode == 143
    assert err.decode() == "repodaily: error: terminated\n"


def _start_delivery(tmp_path: Path, receiver: WebhookReceiver) -> subprocess.Popen[bytes]:
    repo = tmp_path / "demo"
    if not repo.exists():
        build_demo_repo(repo)
    config = tmp_path / "repodaily.toml"
    config.write_text(
        f'cache_dir = "{tmp_path / "cache"}"\ntimezone = "Asia/Shanghai"\n'
        '[[publish]]\ntype = "webhook"\nmax_attempts = 1\n'
        f'[[repos]]\nname = "{DEMO_REPO_NAME}"\npath = "{repo}"\n',
        encoding="utf-8",
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src"), "REPODAILY_WEBHOOK_URL": receiver.url}
    command = [sys.executable, "-m", "repodaily", "run", "--date", DEMO_DAY.isoformat(), "--config", str(config)]
    return subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


@pytest.mark.parametrize(
    ("sent", "code", "word"), [(signal.SIGTERM, 143, "terminated"), (signal.SIGINT, 130, "interrupted")]
)
def test_a_signal_during_a_delivery_waits_for_it_to_be_recorded_so_the_rerun_sends_nothing(tmp_path, sent, code, word):
    with WebhookReceiver() as receiver:
        receiver.delay_s = 2.0
        run = _start_delivery(tmp_path, receiver)
        err = _signal_when(run, lambda: receiver.received, sent, "the run never posted", timeout=30)
        assert run.returncode == code
        receiver.delay_s = 0.0
        again = _start_delivery(tmp_path, receiver)
        _, rerun = again.communicate(timeout=60)
        assert again.returncode == 0, rerun
        assert len(receiver.received) == 1, "the message the platform took went again"
        lines = err.decode().splitlines()
        assert lines[-1] == f"repodaily: error: {word}" and "delivery under way" in lines[0], err


def test_a_second_signal_stops_a_delivery_at_once(tmp_path):
    with WebhookReceiver() as receiver:
        receiver.delay_s = 20.0
        run = _start_delivery(tmp_path, receiver)
        try:
            _when(lambda: receiver.received)
            run.send_signal(signal.SIGTERM)
            time.sleep(0.5)
            started = time.monotonic()
            run.send_signal(signal.SIGTERM)
            _, err = run.communicate(timeout=15)
        finally:
            run.kill()
        assert run.returncode == 143 and time.monotonic() - started < 10
        assert err.decode().splitlines()[-1] == "repodaily: error: terminated"


@pytest.mark.parametrize(("scheme", "reason"), [("http", "too slow"), ("ssh", "")])
def test_a_remote_that_never_sends_a_byte_fails_the_clone_in_one_line(tmp_path, silent, monkeypatch, scheme, reason):
    for name in ("GIT_HTTP_LOW_SPEED_TIME", "GIT_SSH_COMMAND", "GIT_SSH"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(deadlines, "STALL_S", 2)  # the default is a minute
    url = (
        f"{scheme}://git@127.0.0.1:{silent.port}/app.git"
        if scheme == "ssh"
        else f"http://127.0.0.1:{silent.port}/app.git"
    )
    started = time.monotonic()
    with pytest.raises(SourceError) as failed:
        open_repository(url, cache_dir=tmp_path / "cache")
    assert time.monotonic() - started < 20
    message = str(failed.value)
    assert message.startswith("cannot clone ") and reason in message and "\n" not in message
