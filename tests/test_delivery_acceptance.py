"""Every target at once, against local receivers: each report once, a rerun sends nothing, one down costs itself.

``repodaily run`` in this process on the demo repository's day, with every
target configured — files, GitHub (a file and an issue), e-mail and every chat
platform — against real local receivers that check signatures, sizes, shapes
and credentials as the platforms do: a fake of GitHub's REST API, an aiosmtpd
server speaking STARTTLS with AUTH, and a receiver per chat platform.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from chat_receivers import DingTalkReceiver, FeishuReceiver, Receiver, SlackReceiver, WebhookReceiver, WeComReceiver
from click.testing import CliRunner, Result
from endpoint_simulator import HttpRequest
from github_fake import GitHubFake
from smtp_server import HOST, PASSWORD, USERNAME, RunningServer, make_ca, smtp_server

from repodaily.cli import main
from repodaily.demo.scenario import DEMO_DAY, DEMO_REPO_NAME, build_demo_repo

SECRET = "SEC9f8e7d6c5b4a39281706f5e4d3c2b1a0"
GITHUB_TOKEN = "ghp_Acceptance0123456789abcdefghijklmnop"
REPORTS = "acme/reports"
#: Each chat target: its receiver, and the variables its table names.
CHAT = {
    "feishu": (FeishuReceiver, "FEISHU_WEBHOOK_URL", "FEISHU_SECRET"),
    "dingtalk": (DingTalkReceiver, "DINGTALK_WEBHOOK_URL", "DINGTALK_SECRET"),
    "wecom": (WeComReceiver, "WECOM_WEBHOOK_URL", ""),
    "slack": (SlackReceiver, "SLACK_WEBHOOK_URL", ""),
    "webhook": (WebhookReceiver, "REPODAILY_WEBHOOK_URL", "REPODAILY_WEBHOOK_SECRET"),
}


@pytest.fixture(scope="module")
def demo_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "repo"
    build_demo_repo(path)
    return path


class Servers:
    """Every receiver of one test: the chat platforms', GitHub's and the mail server."""

    def __init__(self, chat: dict[str, Receiver], github: GitHubFake, smtp: RunningServer, ca_file: Path) -> None:
        self.chat, self.github, self.smtp, self.ca_file = chat, github, smtp, ca_file

    def delivered(self) -> dict[str, int]:
        """How many messages each target's receiver accepted."""
        return {
            **{name: len(receiver.delivered) for name, receiver in self.chat.items()},
            "github-file": len(self.github.commits),
            "github-issue": len(self.github.issues),
            "email": len(self.smtp.received),
        }


@pytest.fixture
def servers(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Servers]:
    with ExitStack() as stack:
        chat = {}
        for name, (kind, url_env, secret_env) in CHAT.items():
            chat[name] = stack.enter_context(kind(SECRET if secret_env else ""))
            monkeypatch.setenv(url_env, chat[name].url)
            if secret_env:
                monkeypatch.setenv(secret_env, SECRET)
        github = stack.enter_context(GitHubFake(GITHUB_TOKEN, REPORTS))
        monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
        (tmp_path / "ca").mkdir()
        ca = make_ca(tmp_path / "ca")
        smtp = stack.enter_context(smtp_server("starttls", ca))
        monkeypatch.setenv("SMTP_PASSWORD", PASSWORD)
        yield Servers(chat, github, smtp, ca.file)


def _config(tmp_path: Path, demo_repo: Path, servers: Servers) -> Path:
    chat = "".join(
        f'\n[[publish]]\ntype = "{name}"\nmax_attempts = 1\nreport_url = "https://reports.example/{{repo}}/{{date}}"\n'
        + (f'secret_env = "{secret_env}"\n' if secret_env else "")
        for name, (_, _, secret_env) in CHAT.items()
    )
    github = "".join(
        f'\n[[publish]]\ntype = "{kind}"\nrepository = "{REPORTS}"\napi_url = "{servers.github.api_url}"\n'
        for kind in ("github-file", "github-issue")
    )
    email = (
        f'\n[[publish]]\ntype = "email"\nhost = "{HOST}"\nport = {servers.smtp.port}\nusername = "{USERNAME}"\n'
        f'password_env = "SMTP_PASSWORD"\nsender = "reports@example.com"\nrecipients = ["team@example.com"]\n'
        f'ca_file = "{servers.ca_file}"\n'
    )
    path = tmp_path / "repodaily.toml"
    path.write_text(
        f'cache_dir = "{tmp_path / "cache"}"\ntimezone = "Asia/Shanghai"\n'
        f'[output]\nformats = ["md", "json"]\n'
        f'\n[[publish]]\ntype = "files"\ndir = "{tmp_path / "files"}"\n{chat}{github}{email}'
        f'\n[[repos]]\nname = "{DEMO_REPO_NAME}"\npath = "{demo_repo}"\n',
        encoding="utf-8",
    )
    return path


def _run(config: Path) -> Result:
    return CliRunner().invoke(main, ["run", "--config", str(config), "--date", DEMO_DAY.isoformat()])


#: Each target once: a commit per format for github-file, one issue, one message everywhere else.
ONCE = {**dict.fromkeys(CHAT, 1), "github-file": 2, "github-issue": 1, "email": 1}


def test_each_report_reaches_every_target_once(tmp_path: Path, demo_repo: Path, servers: Servers) -> None:
    config = _config(tmp_path, demo_repo, servers)
    first = _run(config)
    assert first.exit_code == 0, first.stderr
    assert servers.delivered() == ONCE
    assert sorted(p.suffix for p in (tmp_path / "files").rglob("*.*")) == [".json", ".md"]

    before = len(servers.github.requests) + sum(len(r.received) for r in servers.chat.values())
    again = _run(config)
    assert again.exit_code == 0, again.stderr
    assert servers.delivered() == ONCE  # a rerun sends nothing
    after = len(servers.github.requests) + sum(len(r.received) for r in servers.chat.values())
    assert after == before  # not even an attempt


def test_a_target_down_costs_only_itself_and_is_the_only_one_redelivered(
    tmp_path: Path, demo_repo: Path, servers: Servers
) -> None:
    config = _config(tmp_path, demo_repo, servers)
    servers.chat["dingtalk"].throttle = 1_000  # down for this run: every answer a rate limit
    down = _run(config)
    assert down.exit_code == 1
    errors = [line for line in down.stderr.splitlines() if line.startswith("repodaily: error:")]
    assert len(errors) == 1 and f"{DEMO_REPO_NAME} {DEMO_DAY} → dingtalk:" in errors[0]
    for secret in (SECRET, servers.chat["dingtalk"].url, GITHUB_TOKEN, PASSWORD):
        assert secret not in down.stderr + down.stdout
    assert servers.delivered() == {**ONCE, "dingtalk": 0}
    assert (tmp_path / "files").exists()  # the report files are still written

    servers.chat["dingtalk"].throttle = 0
    recovered = _run(config)
    assert recovered.exit_code == 0, recovered.stderr
    assert servers.delivered() == ONCE  # only the missing one was sent


def test_bad_targets_each_cost_one_line_and_nothing_else(
    tmp_path: Path, demo_repo: Path, servers: Servers, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A webhook URL that is no URL, a wrong password, a wrong signing secret, a receiver that hangs."""
    monkeypatch.setenv("WECOM_WEBHOOK_URL", "not a url at all")
    monkeypatch.setenv("SMTP_PASSWORD", "wrong-password")
    monkeypatch.setenv("FEISHU_SECRET", "SECthisisnotthesecretthereceiverknows")
    servers.chat["slack"].stall = True
    config = _config(tmp_path, demo_repo, servers)
    config.write_text(config.read_text().replace('type = "slack"\n', 'type = "slack"\ntimeout_s = 1\n'))

    result = _run(config)
    assert result.exit_code == 1
    errors = [line for line in result.stderr.splitlines() if line.startswith("repodaily: error:")]
    assert sorted(line.split(" → ")[1].split(":")[0] for line in errors) == ["email", "feishu", "slack", "wecom"]
    for secret in ("wrong-password", "SECthisisnotthesecretthereceiverknows", SECRET, GITHUB_TOKEN):
        assert secret not in result.stderr + result.stdout
    assert servers.delivered() == {**ONCE, "feishu": 0, "wecom": 0, "slack": 0, "email": 0}
    assert sorted(p.suffix for p in (tmp_path / "files").rglob("*.*")) == [".json", ".md"]
    assert len(servers.chat["slack"].received) == 1  # a message that may have been posted is not sent again


class _SlowFeishu(FeishuReceiver):
    """Answers each message a while after it came, as a busy platform may: time for another run to look."""

    async def _respond(self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        await asyncio.sleep(3)
        await super()._respond(request, reader, writer)


def test_two_runs_at_once_on_one_cache_send_each_report_once(tmp_path: Path, demo_repo: Path) -> None:
    # A cron job still running when the next one starts: both find the ledger without the day.
    with _SlowFeishu() as receiver:
        config = tmp_path / "repodaily.toml"
        config.write_text(
            f'cache_dir = "{tmp_path / "cache"}"\n[[publish]]\ntype = "feishu"\nmax_attempts = 1\ntimeout_s = 20\n'
            f'[[repos]]\nname = "{DEMO_REPO_NAME}"\npath = "{demo_repo}"\n',
            encoding="utf-8",
        )
        command = [sys.executable, "-m", "repodaily", "run", "--config", str(config), "--date", DEMO_DAY.isoformat()]
        environment = {**os.environ, "FEISHU_WEBHOOK_URL": receiver.url}
        runs = [subprocess.Popen(command, env=environment, stderr=subprocess.PIPE, text=True) for _ in range(2)]
        logs = [run.communicate(timeout=120)[1] for run in runs]
    assert [run.returncode for run in runs] == [0, 0], logs
    assert len(receiver.delivered) == 1
    outcomes = sorted(
        line.split("→ feishu: ")[1].split(" · ")[0] for log in logs for line in log.splitlines() if "→" in line
    )
    assert outcomes == ["already delivered", "delivered"]
