"""Every target at once, against local receivers: each report once, a rerun sends nothing, one down costs itself.

``repodaily run`` in this process on the demo repository's day, with the files
target and every chat platform configured against real local receivers that
check signatures, sizes and shapes as the platforms do.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import ExitStack
from pathlib import Path

import pytest
from chat_receivers import DingTalkReceiver, FeishuReceiver, Receiver, SlackReceiver, WebhookReceiver, WeComReceiver
from click.testing import CliRunner, Result

from repodaily.cli import main
from repodaily.demo.scenario import DEMO_DAY, DEMO_REPO_NAME, build_demo_repo

SECRET = "SEC9f8e7d6c5b4a39281706f5e4d3c2b1a0"
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


@pytest.fixture
def receivers(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Receiver]]:
    with ExitStack() as stack:
        running = {}
        for name, (kind, url_env, secret_env) in CHAT.items():
            running[name] = stack.enter_context(kind(SECRET if secret_env else ""))
            monkeypatch.setenv(url_env, running[name].url)
            if secret_env:
                monkeypatch.setenv(secret_env, SECRET)
        yield running


def _config(tmp_path: Path, demo_repo: Path) -> Path:
    chat = "".join(
        f'\n[[publish]]\ntype = "{name}"\nmax_attempts = 1\nreport_url = "https://reports.example/{{repo}}/{{date}}"\n'
        + (f'secret_env = "{secret_env}"\n' if secret_env else "")
        for name, (_, _, secret_env) in CHAT.items()
    )
    path = tmp_path / "repodaily.toml"
    path.write_text(
        f'cache_dir = "{tmp_path / "cache"}"\ntimezone = "Asia/Shanghai"\n'
        f'[output]\nformats = ["md", "json"]\n'
        f'\n[[publish]]\ntype = "files"\ndir = "{tmp_path / "files"}"\n{chat}'
        f'\n[[repos]]\nname = "{DEMO_REPO_NAME}"\npath = "{demo_repo}"\n',
        encoding="utf-8",
    )
    return path


def _run(config: Path) -> Result:
    return CliRunner().invoke(main, ["run", "--config", str(config), "--date", DEMO_DAY.isoformat()])


def _delivered(receivers: dict[str, Receiver]) -> dict[str, int]:
    return {name: len(receiver.delivered) for name, receiver in receivers.items()}


def test_each_report_reaches_every_target_once(tmp_path: Path, demo_repo: Path, receivers: dict[str, Receiver]) -> None:
    config = _config(tmp_path, demo_repo)
    first = _run(config)
    assert first.exit_code == 0, first.stderr
    assert _delivered(receivers) == dict.fromkeys(CHAT, 1)
    assert sorted(p.suffix for p in (tmp_path / "files").rglob("*.*")) == [".json", ".md"]

    again = _run(config)
    assert again.exit_code == 0, again.stderr
    assert _delivered(receivers) == dict.fromkeys(CHAT, 1)  # a rerun sends nothing
    assert sum(len(r.received) for r in receivers.values()) == len(CHAT)  # not even an attempt


def test_a_target_down_costs_only_itself_and_is_the_only_one_redelivered(
    tmp_path: Path, demo_repo: Path, receivers: dict[str, Receiver]
) -> None:
    config = _config(tmp_path, demo_repo)
    receivers["dingtalk"].throttle = 1_000  # down for this run: every answer a rate limit
    down = _run(config)
    assert down.exit_code == 1
    errors = [line for line in down.stderr.splitlines() if line.startswith("repodaily: error:")]
    assert len(errors) == 1 and f"{DEMO_REPO_NAME} {DEMO_DAY} → dingtalk:" in errors[0]
    assert SECRET not in down.stderr and receivers["dingtalk"].url not in down.stderr
    assert _delivered(receivers) == {**dict.fromkeys(CHAT, 1), "dingtalk": 0}
    assert (tmp_path / "files").exists()  # the report files are still written

    receivers["dingtalk"].throttle = 0
    recovered = _run(config)
    assert recovered.exit_code == 0, recovered.stderr
    assert _delivered(receivers) == dict.fromkeys(CHAT, 1)  # only the missing one was sent
