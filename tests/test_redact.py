"""The redactor: a secret in every form it can come back in is masked, and nothing else is touched."""

from __future__ import annotations

import base64
import html
import json
import logging
import re
import time
from collections.abc import Callable
from urllib.parse import quote, quote_plus, unquote

import pytest
from pydantic import BaseModel

from repodaily.analyzers.llm import EndpointSettings
from repodaily.config import load_config
from repodaily.credentials import redactor_for
from repodaily.redact import MASK, NO_SECRETS, RedactingFormatter, Redactor

# Realistic, and with the characters that escaping changes: / + "
KEY = 'sk-test-Q7v/Lr2"Xw9+Tz4Kb8Mn/Jd3"Hs6Pq1+Yc5Fg0Wa7'
FRAGMENT = 8


def leaked(text: str, secret: str = KEY) -> list[str]:
    """The pieces of ``secret`` at least a fragment long that appear in ``text``, in any case."""
    pieces = [secret[i : i + FRAGMENT].lower() for i in range(len(secret) - FRAGMENT + 1)]
    return [piece for piece in pieces if piece in text.lower()]


def lower_hex(text: str) -> str:
    return re.sub(r"%[0-9A-F]{2}", lambda m: m.group().lower(), text)


def unicode_escaped(text: str) -> str:
    return "".join(f"\\u{ord(c):04x}" for c in text)


def b64(data: str, encode: Callable[[bytes], bytes] = base64.b64encode) -> str:
    return encode(data.encode()).decode()


# Each form a server or a model may give the key back in; each is found in its whole context.
ECHOES: dict[str, Callable[[str], str]] = {
    "raw": lambda k: f"Incorrect API key provided: {k}.",
    "json": lambda k: json.dumps({"error": {"message": f"bad key {k}"}}),
    "json escaped slashes": lambda k: json.dumps({"error": f"bad key {k}"}).replace("/", "\\/"),
    "json unicode escapes": lambda k: '{"key": "' + unicode_escaped(k) + '"}',
    "json inside json": lambda k: json.dumps({"body": json.dumps({"key": k})}),
    "python repr": lambda k: repr({"Authorization": f"Bearer {k}"}),
    "hex escapes": lambda k: "".join(f"\\x{ord(c):02x}" for c in k),
    "percent-encoded": lambda k: f"https://api.test/v1?key={quote(k, safe='')}&x=1",
    "percent-encoded, lower-case hex": lambda k: lower_hex(quote(k, safe="")),
    "percent-encoded, slashes left alone": lambda k: quote(k),
    "percent-encoded twice": lambda k: quote(quote(k, safe=""), safe=""),
    "form-encoded": lambda k: f"key={quote_plus(k)}",
    "html escaped": lambda k: f"<p>{html.escape(k)}</p>",
    "json-escaped, then percent-encoded": lambda k: quote(json.dumps(k).replace("/", "\\/"), safe=""),
    "json, then html-escaped": lambda k: html.escape(json.dumps({"key": k})),
    "html decimal references": lambda k: "".join(f"&#{ord(c)};" for c in k),
    "html hex references": lambda k: "".join(f"&#x{ord(c):X};" for c in k),
    "base64": lambda k: b64(k),
    "base64 of user:key (HTTP Basic)": lambda k: f"Authorization: Basic {b64('api:' + k)}",
    "base64 of Bearer key, url-safe": lambda k: b64(f"Bearer {k}", base64.urlsafe_b64encode),
    "base64 of a longer body": lambda k: b64(f'{{"auth": "{k}", "n": 1}}'),
    "shouted": lambda k: f"INVALID KEY {k.upper()}!",
    "hex dump": lambda k: f"bytes: {k.encode().hex()}",
    "hex dump, upper case, cut short": lambda k: k.encode().hex().upper()[:40],
    "truncated to its first 12": lambda k: f"key {k[:12]}… rejected",
    "its last 10": lambda k: f"key ending in {k[-10:]}",
    "split across a line": lambda k: f"{k[:20]}\n{k[20:]}",
    # Cut into pieces shorter than a fragment, as a model may be asked to write it out.
    "six characters a line": lambda k: "\n".join(k[i : i + 6] for i in range(0, len(k), 6)),
    "four a line, indented, crlf": lambda k: "key:\r\n" + "".join(f"  {k[i : i + 4]}\r\n" for i in range(0, len(k), 4)),
    "five a line in a json string": lambda k: json.dumps(
        {"risk": "\n".join(k[i : i + 5] for i in range(0, len(k), 5))}
    ),
    "five a line in a report's table": lambda k: "| " + "<br>".join(k[i : i + 5] for i in range(0, len(k), 5)) + " |",
    "spaced out": lambda k: " ".join(k),
    "tab between pairs": lambda k: "\t".join(k[i : i + 2] for i in range(0, len(k), 2)),
    "zero-width spaces": lambda k: "\u200b".join(k),
    "base64, seven a line": lambda k: "\n".join(b64(k)[i : i + 7] for i in range(0, len(b64(k)), 7)),
}


@pytest.mark.parametrize("echo", ECHOES.values(), ids=ECHOES.keys())
def test_every_form_of_the_key_is_masked(echo):
    redactor = Redactor([KEY])
    echoed = echo(KEY)
    redacted = redactor(echoed)
    assert MASK in redacted
    assert leaked(redacted) == []
    # Nor does what a decoder would make of the redacted text.
    for decoded in (html.unescape(redacted), unquote(unquote(redacted)), redacted.encode().decode("unicode_escape")):
        assert leaked(decoded) == []


@pytest.mark.parametrize("missing", range(len(KEY)))
def test_the_key_with_any_one_character_missing_is_masked(missing):
    damaged = KEY[:missing] + KEY[missing + 1 :]
    assert leaked(Redactor([KEY])(f"echo: {damaged} :end")) == []


def test_a_secret_with_a_space_is_masked_form_encoded():
    secret = "correct horse battery staple"
    assert Redactor([secret])(f"q={quote_plus(secret)}") == f"q={MASK}"


def test_surrounding_text_is_kept_exactly():
    redactor = Redactor([KEY])
    assert redactor(f"before {KEY} after") == f"before {MASK} after"
    assert redactor(f"before\n  {KEY[:6]}\n  {KEY[6:]}\nafter") == f"before\n  {MASK}\nafter"
    assert redactor(f"[{quote(KEY, safe='')}]") == f"[{MASK}]"
    assert redactor(f"{KEY}{KEY}") == MASK


def test_redacted_json_is_still_json():
    document = {"summary": [f"the key is {KEY}", f"again: {KEY[5:30]}"], "nested": {KEY: "as a key"}}
    for text in (json.dumps(document), json.dumps(document, ensure_ascii=False, indent=2)):
        redacted = Redactor([KEY])(text)
        parsed = json.loads(redacted)
        assert leaked(json.dumps(parsed)) == []
        assert parsed["summary"][0] == f"the key is {MASK}"


def test_a_short_secret_is_masked_whole_and_only_whole():
    redactor = Redactor(["q7Zk2p"])
    assert redactor("id=q7Zk2p;") == f"id={MASK};"
    assert redactor("id=q7Zk2;") == "id=q7Zk2;"


def test_values_too_short_to_be_secrets_are_not_registered():
    text = "true, 1, admin, the test passed"
    assert Redactor(["true", "1", "admin", "", "test"])(text) == text


def test_an_empty_redactor_changes_nothing():
    text = f"{KEY} %2F &amp; \\u0041"
    assert Redactor()(text) is text
    assert NO_SECRETS(text) is text


ORDINARY = """\
# vllm-project/vllm 2026-02-09

| 时间 | 作者 | 提交 |
|---|---|---|
| 21:12 | Mei Chen | [Bugfix] Fix KeyError in the test harness (#12)<br>Signed-off-by: Mei Chen |

See https://github.com/vllm-project/vllm/commit/0123456789abcdef0123456789abcdef01234567 and
https://example.com/search?q=a%20b%2Fc&lang=en, `{"a": "b\\"c", "d": "e\\/f", "g": "\\u00e9"}`,
&lt;script&gt; &amp;&amp; &#47; and dGhlIHF1aWNrIGJyb3duIGZveA== (base64), sk-proj- keys, Bearer tokens.
"""


def test_ordinary_text_is_not_touched():
    # Secrets sharing the report's alphabet: hex, a GitHub-style token, the test key.
    redactor = Redactor([KEY, "ghp_R8x2Mq7Lw4Kz9Vn3Tb6Hc1Yd5Pf0Ja8Gs2E", "5f1e2d3c4b5a69788796a5b4c3d2e1f0"])
    assert redactor(ORDINARY) == ORDINARY


def test_redacting_a_megabyte_costs_milliseconds():
    redactor = Redactor([KEY, "ghp_R8x2Mq7Lw4Kz9Vn3Tb6Hc1Yd5Pf0Ja8Gs2E"])
    report = (ORDINARY * (1_000_000 // len(ORDINARY) + 1))[:1_000_000]
    as_json = json.dumps({"report": report})
    for text in (report, as_json):
        timings = []
        for _ in range(3):
            started = time.process_time()  # CPU time: other work on a busy machine does not count
            assert redactor(text) == text
            timings.append(time.process_time() - started)
        assert min(timings) < 0.5, f"{min(timings):.3f} s for {len(text):,} characters"


def test_log_lines_are_redacted_with_their_arguments_and_tracebacks():
    formatter = RedactingFormatter("%(levelname)s: %(message)s", Redactor([KEY]))
    try:
        raise RuntimeError(f"server said {quote(KEY, safe='')}")
    except RuntimeError as exc:
        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "failed with %r", (KEY,), (type(exc), exc, None))
    line = formatter.format(record)
    assert "RuntimeError" in line and MASK in line
    assert leaked(line) == []


def test_a_log_message_is_one_line_whatever_its_reason_holds():
    formatter = RedactingFormatter("repodaily: %(levelname)s: %(message)s")
    reason = "invalid reply: type: wrong\nflags: Field required\r\nrepodaily: ERROR: forged\u2028next\x85last"
    record = logging.LogRecord("x", logging.WARNING, __file__, 1, "commit failed: %s", (reason,), None)
    assert formatter.format(record) == (
        "repodaily: WARNING: commit failed: invalid reply: type: wrong flags: Field required "
        "repodaily: ERROR: forged next last"
    )


def test_log_lines_show_terminal_escapes_as_replacement_characters():
    formatter = RedactingFormatter("%(message)s", Redactor([KEY]))
    record = logging.LogRecord(
        "x", logging.WARNING, __file__, 1, "reason: %s", ("\x1b]8;;https://evil\x07a\tb\x9b2J \u202eevil",), None
    )
    assert formatter.format(record) == "reason: \ufffd]8;;https://evil\ufffda\tb\ufffd2J \ufffdevil"


# --------------------------------------------------------------------------- where the secrets come from


def test_every_credential_the_config_and_environment_hold_is_masked(tmp_path):
    config_file = tmp_path / "repodaily.toml"
    config_file.write_text(
        """
[[llm.endpoints]]
name = "primary"
base_url = "https://proxy-user:proxy-pass-42a@llm.test/v1"
model = "m"
api_key_env = "PRIMARY_KEY"
headers = { X-Api-Key = "header-key-8f7e6d", X-Request-Source = "repodaily-nightly" }

[[llm.endpoints]]
name = "fallback"
base_url = "https://llm2.test/v1"
model = "m"
headers = { Authorization = "Bearer fallback-bearer-55c" }

[[repos]]
name = "acme/app"
url = "https://x-access-token:ghs_repoToken9Q8w7E6r@github.com/acme/app.git"
""",
        encoding="utf-8",
    )
    environ = {
        "PRIMARY_KEY": "primary-secret-0a1b2c",
        "LLM_API_KEY": "llm-api-key-3d4e5f",
        "GITHUB_TOKEN": "ghp_githubToken7y6t5r",
        "GH_TOKEN": "gho_ghToken4e3w2q",
        "TOKEN": "plain-token-1q2w3e",
        "HOME": "/home/someone",
    }
    redactor = redactor_for(load_config(config_file, environ=environ), environ=environ)
    held = [
        "proxy-pass-42a",
        "header-key-8f7e6d",
        "fallback-bearer-55c",
        "ghs_repoToken9Q8w7E6r",
        *(value for name, value in environ.items() if name != "HOME"),
    ]
    for secret in held:
        assert redactor(f"<{secret}>") == f"<{MASK}>", secret
    for public in ("repodaily-nightly", "/home/someone", "proxy-user", "x-access-token", "github.com/acme/app.git"):
        assert redactor(public) == public


class _Hook(BaseModel):
    url: str
    signing_secret_env: str


class _FutureSettings(BaseModel):
    hooks: list[_Hook]


def test_any_setting_ending_in_env_names_a_credential():
    settings = _FutureSettings(hooks=[_Hook(url="https://hooks.test/x", signing_secret_env="HOOK_SECRET")])
    redactor = redactor_for(settings, environ={"HOOK_SECRET": "whsec_9k8j7h6g5f"})
    assert redactor("signed with whsec_9k8j7h6g5f") == f"signed with {MASK}"


def test_a_token_used_as_the_user_of_a_url_is_a_credential_and_a_short_user_is_not():
    class Repo(BaseModel):
        url: str

    token = "ghp_tokenAsUser1234567890"
    redactor = redactor_for(Repo(url=f"https://{token}@github.com/a/b.git"), environ={})
    assert redactor(token) == MASK
    assert redactor_for(Repo(url="https://deploy@git.test/a/b.git"), environ={})("deploy") == "deploy"


def test_an_endpoints_headers_stay_out_of_its_repr():
    endpoint = EndpointSettings(name="e", base_url="http://e/v1", model="m", headers={"X-Api-Key": "hdr-key-1a2b3c"})
    assert "hdr-key-1a2b3c" not in repr(endpoint) + str(endpoint)


def test_a_variable_holding_a_webhook_url_registers_its_token_not_the_url():
    """Registered whole, a webhook URL would mask ``https://`` and its path words in every report."""

    class Target(BaseModel):
        webhook_url_env: str

    hooks = {
        "FEISHU": ("https://open.feishu.cn/open-apis/bot/v2/hook/0d6a3f3e-1c2b-4a5d-9e8f-7a6b5c4d3e2f", "0d6a3f3e"),
        "DINGTALK": ("https://oapi.dingtalk.com/robot/send?access_token=9f8e7d6c5b4a3928171615aabbccdd", "9f8e7d6c5b"),
        "SLACK": ("https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx", "abcdefghijkl"),
        "PLAIN": ("a-plain-secret-value", "a-plain-secret-value"),
    }
    environ = {name: url for name, (url, _) in hooks.items()}
    for name, (url, token_piece) in hooks.items():
        redactor = redactor_for(Target(webhook_url_env=name), environ=environ)
        assert token_piece not in redactor(f"posted to {url}"), name
        public = "see https://github.com/acme/app/commit/abc in services/open-apis/robot/send"
        assert redactor(public) == public, name
