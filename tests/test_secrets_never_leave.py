"""Secrets never leave: a key given back in any form appears in no output of a real run.

A real HTTP server on 127.0.0.1 plays an OpenAI-compatible endpoint that hands
the caller's key back: in 401/403 bodies, JSON-escaped, URL-encoded, with a
character missing, base64-encoded, as HTML or hex, and inside successful completions
(a model made to repeat it), along with other credentials the process holds.
The real CLI runs against it on a real git repository at ``-v`` and ``-vv``,
writes Markdown and JSON, prints to stdout, and ``doctor`` checks the endpoint.
Then no piece of any secret, in any of those encodings, may be found in stdout,
stderr, the report files, the raw bytes of the SQLite files or their tables.
"""

from __future__ import annotations

import asyncio
import base64
import html
import json
import re
import sqlite3
from collections.abc import Callable, Iterator
from datetime import date, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, quote_plus
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from endpoint_simulator import HttpRequest, LoopbackHttpServer, openai_error, prompt_text, write_json, write_response

from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import Analysis, ChangeType, CoverageReceipt, DailyReport, Highlight, Importance, RunInfo
from repodaily.publish.base import PublishContext
from repodaily.publish.files import FilesPublisher, FilesSettings
from repodaily.redact import MASK, Redactor
from repodaily.render.base import Artefact
from repodaily.store import Store

SHANGHAI = ZoneInfo("Asia/Shanghai")
DAY = "2026-03-02"
MODEL = "echo-model"
# Realistic, and with the characters escaping changes: / + "
KEY = 'sk-test-N4r/Ux8"Qe2+Vb7Kd1Wm/Hs9"Lp3Zt6+Jc0Fy5Ga8'
# Held by the process (GitHub's variable, a repository URL) though never sent to the endpoint.
GITHUB_TOKEN = "ghp_Zq8Xw2Ev7Rt4Yu1Io6Pa3Sd9Fg5Hj0Kl2Mn"
URL_TOKEN = "ghs_urlToken5Tg8Yh1Uj4Ik7Ol0Pz3Xc6Vb9N"
SECRETS = (KEY, GITHUB_TOKEN, URL_TOKEN)
PIECE = 8


def _b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def _encodings(secret: str) -> list[str]:
    """The secret as a server or a model may give it back."""
    escaped = json.dumps(secret)[1:-1]
    percent = quote(secret, safe="")
    encoded = [
        secret,
        escaped,
        escaped.replace("/", "\\/"),
        percent,
        re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), percent),
        quote_plus(secret),
        "".join(f"\\u{ord(c):04x}" for c in secret),
        html.escape(secret),
        "".join(f"&#{ord(c)};" for c in secret),
    ]
    # Base64 at each byte alignment, without the characters the neighbouring bytes change.
    for prefix in ("", "u", "us"):
        core = _b64(prefix + secret)[4:-4]
        encoded += [core, core.translate(str.maketrans("+/", "-_"))]
    return encoded


def _pieces(secret: str) -> set[str]:
    """Every run of a piece's length from every encoding; hex takes two digits a character."""
    forms = [(form, PIECE) for form in _encodings(secret)]
    forms += [(secret.encode().hex(), 2 * PIECE), (secret.encode().hex().upper(), 2 * PIECE)]
    return {form[i : i + size] for form, size in forms for i in range(len(form) - size + 1)}


PIECES = {piece.lower() for secret in SECRETS for piece in _pieces(secret)}


def _leaks(text: str) -> list[str]:
    """The pieces of the secrets' encodings found in ``text``, in any letter case."""
    lowered = text.lower()
    return sorted(piece for piece in PIECES if piece in lowered)


# --------------------------------------------------------------------------- each sink on its own


def test_the_store_writes_no_secret(tmp_path):
    """Analyses, highlights, run summaries and report records: every text is redacted before SQLite sees it."""
    analysis = Analysis(
        type=ChangeType.fix,
        importance=Importance.high,
        importance_reason=f"the model repeated {KEY}",
        summary=[json.dumps(KEY), quote(KEY, safe="")],
        one_line=KEY[:30],
        coverage=CoverageReceipt(budget_tokens=10, tokens_sent=3),
        analyzer="llm/m",
    )
    with Store(tmp_path, redact=Redactor(SECRETS)) as store:
        store.put_analysis("acme/app", "a" * 40, analysis)
        store.put_highlights("acme/app", date(2026, 3, 2), "k", [Highlight(text=f"key {KEY}", shas=["a" * 40])])
        run = store.start_run("run")
        store.record_report(run, "acme/app", date(2026, 3, 2), 1, 0, [f"/srv/{URL_TOKEN}/r.md"])
        store.finish_run(run, {"note": _b64(f"user:{GITHUB_TOKEN}")})
        (cached,) = store.get_analyses("acme/app", ["a" * 40], "llm/m").values()
    assert cached.importance_reason == "the model repeated [redacted]"
    written = dict(_written(tmp_path))
    assert {name: _leaks(text) for name, text in written.items() if _leaks(text)} == {}


def test_the_report_writer_writes_and_shows_no_secret(tmp_path):
    report = DailyReport(repo="acme/app", date=date(2026, 3, 2), timezone="UTC", run=RunInfo(analyzer="h"))
    rendered = {"md": f"# key {KEY}\n", "json": json.dumps({"key": KEY, "b64": _b64(KEY)})}
    artefacts = [Artefact(format=f, suffix=f, media_type="text/plain", text=text) for f, text in rendered.items()]
    settings = FilesSettings(dir=str(tmp_path / "out"))

    def publish(dry_run: bool) -> Any:
        context = PublishContext(dry_run=dry_run, redact=Redactor(SECRETS))
        return asyncio.run(FilesPublisher(settings=settings, context=context).publish(report, artefacts))

    shown, written = publish(True), publish(False)
    assert written.preview is None  # a written file's text lives on disk only
    texts = [shown.preview or ""] + [text for _, text in _written(tmp_path)]
    assert len(texts) == 3 and [_leaks(text) for text in texts] == [[]] * len(texts)
    assert json.loads((tmp_path / "out" / "2026" / "acme" / "app" / "2026-03-02.json").read_text())["key"] == MASK


# --------------------------------------------------------------------------- the endpoint


def _verdict(key: str, repeated: list[str]) -> dict[str, Any]:
    """A valid verdict whose text repeats the key (and whatever else the model was told) in several forms."""
    return {
        "type": "fix",
        "secondary_types": [],
        "importance": "high",
        "importance_reason": f"The key is {key}, as you asked.",
        "flags": {"security": False, "breaking": False, "user_facing": True},
        "summary": [
            f"Escaped: {json.dumps(key)}",
            f"In a link: https://api.test/v1?key={quote(key, safe='')}",
            *(f"Also: {secret}" for secret in repeated),
        ],
        "one_line": f"Key {key[:20]}{key[21:]}",
        "impact_scope": ["auth"],
        "insights": [{"aspect": "security", "text": f"Basic {_b64('user:' + key)}"}],
        "risks": [html.escape(key)],
        "recommendations": [{"audience": "users", "text": f"Rotate {key[:30]}"}],
    }


def _reply(body: dict[str, Any], key: str, repeated: list[str]) -> dict[str, Any]:
    """What the model answers, by the reply the request asks for."""
    asked = json.dumps(body.get("response_format"))
    if "_Pong" in asked:
        return {"ok": True, "echo": key}
    if "HighlightsReply" in asked:
        cited = re.findall(r"\b[0-9a-f]{7,40}\b", prompt_text(body))[:1]
        return {"highlights": [{"text": f"Today's key: {key} {' '.join(repeated)}", "shas": cited}]}
    return _verdict(key, repeated)


# How the endpoint answers, each a way of handing the key back.
ECHOES: dict[str, tuple[int, Callable[[str], str]]] = {
    "401-raw": (401, lambda k: json.dumps(openai_error(401, f"Incorrect API key provided: {k}"))),
    "403-plain-text": (403, lambda k: f"forbidden: Authorization: Bearer {k}"),
    "403-upper-case": (403, lambda k: f"FORBIDDEN KEY {k.upper()}"),
    "400-json-escaped": (400, lambda k: json.dumps(openai_error(400, f"bad key {k}")).replace("/", "\\/")),
    "500-url-encoded": (500, lambda k: f"upstream https://api.test/v1?api_key={quote(k, safe='')} failed"),
    "500-one-char-missing": (500, lambda k: f"unknown key {k[:25]}{k[26:]}"),
    "500-base64": (500, lambda k: f"rejected Basic {_b64('user:' + k)} (key {_b64(k)})"),
    "400-unicode-escaped": (400, lambda k: '{"error": {"message": "' + "".join(f"\\u{ord(c):04x}" for c in k) + '"}}'),
    "400-html": (400, lambda k: f"<p>key {html.escape(k)} or {''.join(f'&#{ord(c)};' for c in k)}</p>"),
    "502-hex-dump": (502, lambda k: f"proxy debug: header bytes {('Bearer ' + k).encode().hex()}"),
    "200-completion": (200, lambda k: ""),
}


class EchoingEndpoint(LoopbackHttpServer):
    """An OpenAI-compatible endpoint that gives the caller's key back the way :attr:`echo` says.

    Paths outside ``/v1/`` play a git host that asks for credentials and echoes them.
    """

    def __init__(self) -> None:
        super().__init__()
        self.echo = "200-completion"
        #: Other secrets the model repeats in its answers, as if told to.
        self.repeated: list[str] = []
        self.keys: list[str] = []

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    async def _respond(self, request: HttpRequest, reader: Any, writer: Any) -> None:
        auth = request.headers.get("authorization", "")
        path = request.path.split("?", 1)[0]
        if not path.startswith("/v1/"):
            if not auth:
                await write_response(writer, 401, b"who are you?", [("WWW-Authenticate", 'Basic realm="git"')])
            else:
                await write_response(writer, 403, f"denied: {auth}".encode())
            return
        key = auth.removeprefix("Bearer ")
        self.keys.append(key)
        status, body = ECHOES[self.echo]
        if status != 200:
            await write_response(writer, status, body(key).encode(), [("Content-Type", "application/json")])
        elif path == "/v1/models":
            await write_json(writer, 200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
        else:
            content = json.dumps(_reply(request.json() or {}, key, self.repeated))
            choice = {"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}
            usage = {"prompt_tokens": 10, "completion_tokens": 10}
            await write_json(writer, 200, {"object": "chat.completion", "choices": [choice], "usage": usage})


@pytest.fixture
def endpoint(monkeypatch: pytest.MonkeyPatch) -> Iterator[EchoingEndpoint]:
    monkeypatch.setenv("LLM_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_TOKEN", GITHUB_TOKEN)
    with EchoingEndpoint() as server:
        yield server


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    builder = RepoBuilder(tmp_path_factory.mktemp("secrets") / "repo")
    builder.commit("Initial import", when=datetime(2026, 3, 1, 9, tzinfo=SHANGHAI), files={"app/auth.py": "K = 1\n"})
    builder.commit(
        "[Bugfix] Read the API key from the environment (#7)",
        when=datetime(2026, 3, 2, 10, tzinfo=SHANGHAI),
        files={"app/auth.py": "import os\nK = os.environ['KEY']\n"},
    )
    builder.commit(
        "[Doc] Explain key rotation (#8)",
        when=datetime(2026, 3, 2, 15, tzinfo=SHANGHAI),
        files={"README.md": "Rotate keys monthly.\n"},
    )
    return builder.path


def _config(directory: Path, endpoint: EchoingEndpoint, *repos: str) -> Path:
    """A config pointing the llm analyzer at ``endpoint``; its cache under ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    lines = [
        f'cache_dir = "{directory / "cache"}"',
        "[analyzer]",
        'name = "llm"',
        "[[llm.endpoints]]",
        'name = "echo"',
        f'base_url = "{endpoint.base_url}"',
        f'model = "{MODEL}"',
        "max_retries = 0",
        "timeout_s = 20",
        *repos,
    ]
    path = directory / "repodaily.toml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _cli(*args: str) -> tuple[int, str]:
    """Run the command line; its exit code, and stdout and stderr together."""
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, f"{result.stdout}\n{result.stderr}"


def _written(directory: Path) -> Iterator[tuple[str, str]]:
    """Every file under ``directory`` as text (bytes read as Latin-1), and every row of each SQLite store."""
    for path in sorted(p for p in directory.rglob("*") if p.is_file() and p.name != "repodaily.toml"):
        yield str(path), path.read_bytes().decode("latin-1")
        if path.suffix == ".db":
            with sqlite3.connect(path) as db:
                tables = [row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
                for table in tables:
                    yield f"{path}:{table}", json.dumps(db.execute(f"SELECT * FROM {table}").fetchall())


def _report(verbosity: str, repo: Path, config: Path, *options: str) -> tuple[int, str]:
    args = ["report", str(repo), "--name", "acme/app", "--date", DAY, "--lang", "en", "--config", str(config)]
    return _cli(verbosity, *args, *options)


@pytest.mark.parametrize("echo", ECHOES)
def test_a_key_echoed_in_any_form_appears_in_no_output(repo, tmp_path, endpoint, echo):
    endpoint.echo, endpoint.repeated = echo, [GITHUB_TOKEN]
    refused = ECHOES[echo][0] != 200
    out = tmp_path / "v" / "reports"
    config_v, config_vv = _config(tmp_path / "v", endpoint), _config(tmp_path / "vv", endpoint)

    runs = {
        "-v report to files": _report("-v", repo, config_v, "--format", "md", "--format", "json", "--output", str(out)),
        "-vv report to stdout": _report("-vv", repo, config_vv, "--format", "md"),
        "-v dry run": _report("-v", repo, config_v, "--format", "json", "--output", str(out), "--dry-run"),
        "-vv doctor": _cli("-vv", "doctor", "--config", str(config_v)),
    }

    assert set(endpoint.keys) == {KEY}, "the key was sent, and handed back"
    assert {name: code for name, (code, _) in runs.items()} == {name: int(refused) for name in runs}
    texts = {name: text for name, (_, text) in runs.items()}
    texts |= dict(_written(tmp_path / "v")) | dict(_written(tmp_path / "vv"))
    assert {name: _leaks(text) for name, text in texts.items() if _leaks(text)} == {}
    # The echo did reach the outputs, masked: nothing passes only because nothing came back.
    report = json.loads((out / "2026" / "acme" / "app" / f"{DAY}.json").read_text(encoding="utf-8"))
    assert "[redacted]" in json.dumps(report)
    assert "[redacted]" in texts["-vv report to stdout"]
    if refused:  # the doctor's table folds long cells: "[reda…"
        assert "[reda" in texts["-vv doctor"]


def test_a_token_in_a_repository_url_appears_in_no_output(repo, tmp_path, endpoint):
    """A configured clone URL carries a token: the clone error and a model repeating it both stay clean."""
    endpoint.repeated = [URL_TOKEN, GITHUB_TOKEN]
    remote = f"http://x-access-token:{URL_TOKEN}@127.0.0.1:{endpoint.port}/acme/remote.git"
    config = _config(
        tmp_path / "run",
        endpoint,
        "[[repos]]",
        'name = "acme/app"',
        f'path = "{repo}"',
        "[[repos]]",
        'name = "acme/remote"',
        f'url = "{remote}"',
        "[output]",
        f'dir = "{tmp_path / "run" / "reports"}"',
        'formats = ["md", "json"]',
    )

    code, text = _cli("-vv", "run", "--date", DAY, "--config", str(config))

    assert code == 1  # one repository failed
    assert "acme/remote" in text and "cannot clone" in text
    texts = {"run": text, **dict(_written(tmp_path / "run"))}
    assert {name: _leaks(text) for name, text in texts.items() if _leaks(text)} == {}
    markdown = (tmp_path / "run" / "reports" / "2026" / "acme" / "app" / f"{DAY}.md").read_text(encoding="utf-8")
    assert "Also: [redacted]" in markdown
