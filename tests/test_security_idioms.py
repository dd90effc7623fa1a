"""Security from the shape of the code: each idiom class flags its fix, and not its near misses.

Every commit is made by git in a temporary repository and read by the git
source and the real analyzer. The messages say nothing about security, so
only the diff can raise the flag; each positive case has a near miss beside
it (the same code in a test or a doc, a guard that only moves, new code that
was safe from the start) on which the rules must stay silent.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse, heuristic_input

from repodaily.analyzers.heuristic import HeuristicAnalyzer, RuleSet
from repodaily.analyzers.heuristic.files import read_files
from repodaily.analyzers.heuristic.idioms import find_idioms
from repodaily.errors import ConfigError
from repodaily.models import Commit, Importance


def idioms(commit: Commit, analyzer: HeuristicAnalyzer | None = None) -> list[str]:
    """The idiom rules the commit matches."""
    analyzer = analyzer or HeuristicAnalyzer(language="en")
    facts = read_files(heuristic_input(commit, analyzer).files, analyzer.rules)
    return [hit.rule for hit in find_idioms(facts, analyzer.rules)]


def flagged(commit: Commit) -> bool:
    return analyse(commit).verdict.flags.security


def edit(repo: Repo, path: str, before: str, after: str) -> Commit:
    """``path`` committed as ``before``, then as ``after``; the second commit, whose message says nothing."""
    repo.change(f"Add {path}", {path: before})
    return repo.change(f"Update {path}", {path: after})


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"README.md": "# engine\n"})


# --------------------------------------------------------------------------- unsafe deserialisation

_UNPICKLE = """import pickle


def decode(payload):
    handles = payload.get("handles")
    return pickle.loads(handles)
"""

_GUARD = """    if not envs.ALLOW_INSECURE_SERIALIZATION:
        raise ValueError("refusing to unpickle received data")
"""


def _guarded(text: str) -> str:
    return text.replace("    return pickle.loads", _GUARD + "    return pickle.loads").replace(
        "import pickle\n", "import pickle\n\nfrom engine import envs\n"
    )


def test_a_guard_added_before_an_existing_pickle_load_flags_the_commit(repo: Repo) -> None:
    commit = edit(repo, "engine/ipc.py", _UNPICKLE, _guarded(_UNPICKLE))
    assert idioms(commit) == ["unpickle_guarded"]
    analysis = analyse(commit)
    assert analysis.verdict.flags.security
    assert analysis.verdict.importance == Importance.high
    assert "`pickle.loads(`" in analysis.verdict.importance_reason
    # Callers that sent pickled data must now opt in: the fix breaks them.
    assert analysis.verdict.flags.breaking


def test_the_same_guard_in_a_test_or_a_guard_that_only_moves_flags_nothing(repo: Repo) -> None:
    repo.change("Add decoders", {"tests/test_ipc.py": _UNPICKLE, "engine/ipc.py": _guarded(_UNPICKLE)})
    in_a_test = repo.change("Check the flag in the test", {"tests/test_ipc.py": _guarded(_UNPICKLE)})
    assert idioms(in_a_test) == []
    moved = repo.change("Move the decoder", {"engine/wire.py": _guarded(_UNPICKLE)}, removed=("engine/ipc.py",))
    assert idioms(moved) == []
    assert not flagged(moved)


def test_new_code_that_guards_its_own_pickle_load_hardens_nothing_that_was_there(repo: Repo) -> None:
    commit = repo.change("Add the decoder", {"engine/ipc.py": _guarded(_UNPICKLE)})
    assert idioms(commit) == []


_LOADER = """import torch


def load_embeds(buffer):
    return torch.load(buffer, map_location="cpu")
"""


def test_an_existing_torch_load_restricted_to_weights_is_flagged_a_reformat_is_not(repo: Repo) -> None:
    restricted = _LOADER.replace('map_location="cpu")', 'map_location="cpu", weights_only=True)')
    commit = edit(repo, "engine/embeds.py", _LOADER, restricted)
    assert idioms(commit) == ["torch_load_restricted"]
    reformatted = restricted.replace(
        'torch.load(buffer, map_location="cpu", weights_only=True)',
        'torch.load(\n        buffer,\n        map_location="cpu",\n        weights_only=True,\n    )',
    )
    assert idioms(repo.change("Format", {"engine/embeds.py": reformatted})) == []


def test_new_code_that_loads_weights_only_from_the_start_is_no_fix(repo: Repo) -> None:
    commit = repo.change("Add the loader", {"engine/embeds.py": _LOADER.replace('"cpu")', '"cpu", weights_only=True)')})
    assert idioms(commit) == []


def test_yaml_load_replaced_by_safe_load_and_eval_removed(repo: Repo) -> None:
    config = "import yaml\n\n\ndef read(stream):\n    return yaml.load(stream, Loader=yaml.Loader)\n"
    safe = config.replace("yaml.load(stream, Loader=yaml.Loader)", "yaml.safe_load(stream)")
    assert idioms(edit(repo, "engine/config.py", config, safe)) == ["yaml_safe_load"]
    parser = "def convert(value):\n    try:\n        return eval(value)\n    except Exception:\n        return value\n"
    plain = "def convert(value):\n    return str(value)\n"
    assert idioms(edit(repo, "engine/parse.py", parser, plain)) == ["eval_removed"]
    # Code still run from input by other means is no fix.
    assert idioms(edit(repo, "engine/console.py", parser, parser.replace("eval(value)", "exec(value)"))) == []
    # A literal the program wrote (a build script's shell command) is no input.
    build = "import { exec } from 'child_process'\n\nexport function types() {\n  exec(`tsc -d`)\n  return 1\n}\n"
    assert idioms(edit(repo, "engine/build.ts", build, build.replace("exec(`tsc -d`)", "log(`no types`)"))) == []
    # `model.eval()` is a method of a network, not code run from input.
    network = "def infer(model, x):\n    model.eval()\n    return model(x)\n"
    assert idioms(edit(repo, "engine/infer.py", network, network.replace("    model.eval()\n", ""))) == []


# --------------------------------------------------------------------------- trust_remote_code and pinned revisions

_PROCESSOR = """from transformers import AutoProcessor


def processor(config):
    return AutoProcessor.from_pretrained(
        config.model,
        trust_remote_code=True,
    )
"""


def test_a_hard_coded_trust_remote_code_replaced_by_the_users_setting(repo: Repo) -> None:
    respected = _PROCESSOR.replace("trust_remote_code=True", "trust_remote_code=config.trust_remote_code")
    commit = edit(repo, "engine/processor.py", _PROCESSOR, respected)
    assert idioms(commit) == ["trust_remote_code_respected"]
    assert flagged(commit)


def test_new_code_passing_the_users_setting_replaces_nothing(repo: Repo) -> None:
    respected = _PROCESSOR.replace("trust_remote_code=True", "trust_remote_code=config.trust_remote_code")
    assert idioms(repo.change("Add the processor", {"engine/processor.py": respected})) == []


def test_remote_code_pinned_to_the_users_revision(repo: Repo) -> None:
    respected = _PROCESSOR.replace("trust_remote_code=True", "trust_remote_code=config.trust_remote_code")
    pinned = respected.replace("        config.model,\n", "        config.model,\n        revision=config.revision,\n")
    assert idioms(edit(repo, "engine/processor.py", respected, pinned)) == ["remote_code_pinned"]
    # A hunk that does more than pass the pin (a new function beside a loader) is not this idiom.
    more = pinned + "\n\ndef tokenizer(config):\n    return load(config.model, revision=config.revision)\n"
    assert idioms(repo.change("Add the tokenizer", {"engine/processor.py": more})) == []


_COMPONENTS = """def load_components(pipeline_repo, specs, **kwargs):
    loaded = {}
    for name, spec in specs.items():
        load_kwargs = dict(kwargs)
        loaded[name] = spec.load(**load_kwargs)
    return loaded
"""


def test_trust_remote_code_withheld_from_other_repositories(repo: Repo) -> None:
    withheld = _COMPONENTS.replace(
        "        loaded[name]",
        "        if spec.repo != pipeline_repo:\n"
        '            load_kwargs.pop("trust_remote_code", None)\n'
        "        loaded[name]",
    )
    commit = edit(repo, "engine/components.py", _COMPONENTS, withheld)
    assert idioms(commit) == ["trust_remote_code_withheld"]
    assert flagged(commit)


def test_trust_remote_code_read_from_the_arguments_withholds_nothing(repo: Repo) -> None:
    read = _COMPONENTS.replace(
        "        loaded[name]",
        '        trust = load_kwargs.pop("trust_remote_code", False)\n'
        "        if trust:\n"
        '            print("remote code")\n'
        "        loaded[name]",
    )
    assert idioms(edit(repo, "engine/components.py", _COMPONENTS, read)) == []


# --------------------------------------------------------------------------- path traversal

_FILES = """import os


def open_upload(base, name):
    path = os.path.join(base, name)
    return open(path, "rb")
"""


def test_a_path_kept_inside_its_base_with_an_error_is_flagged(repo: Repo) -> None:
    contained = _FILES.replace(
        '    return open(path, "rb")',
        "    if os.path.commonpath([base, os.path.realpath(path)]) != base:\n"
        '        raise PermissionError(name)\n    return open(path, "rb")',
    )
    assert idioms(edit(repo, "engine/uploads.py", _FILES, contained)) == ["path_contained"]
    dotdot = _FILES.replace(
        "    path = os.path.join",
        '    if ".." in name.split("/"):\n        raise ValueError(name)\n    path = os.path.join',
    )
    assert idioms(edit(repo, "engine/names.py", _FILES, dotdot)) == ["path_dotdot_rejected"]
    plain = _FILES.replace(
        "    path = os.path.join",
        "    if os.path.basename(name) != name:\n        raise ValueError(name)\n    path = os.path.join",
    )
    assert idioms(edit(repo, "engine/shards.py", _FILES, plain)) == ["path_contained"]


def test_a_common_path_computed_for_display_is_no_check(repo: Repo) -> None:
    shown = _FILES.replace(
        '    return open(path, "rb")', '    print(os.path.commonpath([base, path]))\n    return open(path, "rb")'
    )
    assert idioms(edit(repo, "engine/uploads.py", _FILES, shown)) == []


# --------------------------------------------------------------------------- limits on what clients send

_PARAMS = """class SamplingParams:
    def verify(self):
        if self.n < 1:
            raise ValueError("n must be at least 1")
"""

_CAPPED = (
    _PARAMS
    + """        max_n = envs.ENGINE_MAX_N_SEQUENCES
        if self.n > max_n:
            raise ValueError("n must be at most the limit")
"""
)


def test_an_existing_validation_capped_from_the_environment_is_flagged(repo: Repo) -> None:
    assert idioms(edit(repo, "engine/params.py", _PARAMS, _CAPPED)) == ["limit_from_environment"]


def test_a_new_module_that_starts_with_a_cap_is_a_feature(repo: Repo) -> None:
    assert idioms(repo.change("Add params", {"engine/params.py": _CAPPED})) == []


_GO_SERVER = """package server

func Serve(handler http.Handler) error {
	srv := &http.Server{
		Addr:    ":8080",
		Handler: handler,
	}
	return srv.ListenAndServe()
}
"""
_RUST_ROUTER = """pub fn app() -> Router {
    Router::new()
        .route("/upload", post(upload))
}
"""


@pytest.mark.parametrize(
    ("path", "before", "after"),
    [
        (
            "server/serve.go",
            _GO_SERVER,
            _GO_SERVER.replace('":8080",', '":8080",\n\t\tReadHeaderTimeout: 10 * time.Second,'),
        ),
        (
            "src/app.rs",
            _RUST_ROUTER,
            _RUST_ROUTER.replace("post(upload))", "post(upload))\n        .layer(DefaultBodyLimit::max(1 << 20))"),
        ),
    ],
    ids=["go-read-header-timeout", "rust-body-limit"],
)
def test_a_servers_limit_on_what_clients_send_is_flagged_in_its_frameworks_spelling(
    repo: Repo, path: str, before: str, after: str
) -> None:
    assert idioms(edit(repo, path, before, after)) == ["request_size_limit"]
    # The same limit in a new server is how it was built, not a fix; in a test it guards nothing.
    assert idioms(repo.change("Add another server", {path.replace("/", "/new_", 1): after})) == []
    assert idioms(repo.change("Test it", {f"tests/{path.rsplit('/', 1)[1]}": after + "\n// v2\n"})) == []


def test_a_limit_set_inside_a_test_module_of_a_source_file_is_no_fix(repo: Repo) -> None:
    """Rust keeps unit tests beside the code: a hunk git places in `mod tests` guards nothing."""
    helpers = "".join(f"    fn helper_{n}() -> usize {{\n        {n}\n    }}\n\n" for n in range(6))
    before = _RUST_ROUTER + f"\n#[cfg(test)]\nmod tests {{\n    use super::*;\n\n{helpers}}}\n"
    limited = "    fn limited() -> Router {\n        app().layer(DefaultBodyLimit::max(4))\n    }\n}\n"
    after = before.removesuffix("}\n") + limited
    assert idioms(edit(repo, "src/app.rs", before, after)) == []


# --------------------------------------------------------------------------- URL fetching

_FETCH = """from urllib.parse import urlparse


def fetch(session, url, allowed_domains):
    spec = urlparse(url)
    return session.get(url)
"""


def test_a_host_checked_against_the_allowed_domains_is_flagged_a_doc_about_it_is_not(repo: Repo) -> None:
    checked = _FETCH.replace(
        "    return session.get(url)",
        "    if allowed_domains and spec.hostname not in allowed_domains:\n"
        "        raise ValueError(spec.hostname)\n    return session.get(url)",
    )
    assert idioms(edit(repo, "engine/fetch.py", _FETCH, checked)) == ["url_allowlist"]
    page = "# Fetching\n\nAgainst SSRF:\n\n    if spec.hostname not in allowed_domains:\n        raise ValueError()\n"
    doc = repo.change("Describe fetching", {"docs/fetching.md": page})
    assert idioms(doc) == []
    assert not flagged(doc)


# --------------------------------------------------------------------------- auth

_MIDDLEWARE = """class Auth:
    def __call__(self, scope, send):
        if scope["path"].startswith("/v1") and not self.verify_token(scope):
            return send(JSONResponse({"error": "Unauthorized"}, status_code=401))
        return self.app(scope, send)
"""


def test_an_auth_check_widened_to_more_routes_is_flagged_moving_it_is_not(repo: Repo) -> None:
    widened = _MIDDLEWARE.replace('startswith("/v1")', 'startswith(("/v1", "/v2"))')
    commit = edit(repo, "engine/auth.py", _MIDDLEWARE, widened)
    assert idioms(commit) == ["auth_check"]
    # Clients that called /v2 without a key are refused now.
    assert analyse(commit).verdict.flags.breaking
    # Into a module with more in it, so git sees a deletion and an addition, not a rename.
    server = "".join(f"def route_{i}(request):\n    return request.path + '{i}'\n\n\n" for i in range(12))
    repo.change("Add routes", {"engine/server.py": server})
    moved = repo.change("Move auth", {"engine/server.py": server + widened}, removed=("engine/auth.py",))
    assert sorted(f.status for f in heuristic_input(moved, HeuristicAnalyzer(language="en")).files) == [
        "deleted",
        "modified",
    ]
    assert idioms(moved) == []


# --------------------------------------------------------------------------- secrets

_CHECK = """def check(token, expected):
    if token == expected:
        return True
    return False
"""


def test_a_token_compared_in_constant_time_is_flagged_a_helper_reworked_is_not(repo: Repo) -> None:
    constant = _CHECK.replace("    if token == expected:", "    if hmac.compare_digest(token, expected):")
    assert idioms(edit(repo, "engine/check.py", _CHECK, constant)) == ["constant_time_compare"]
    helper = "def equal(a, b):\n    rv = 0\n    for x, y in zip(a, b):\n        rv |= x ^ y\n    return rv == 0\n"
    reworked = "def equal(a, b):\n    return hmac.compare_digest(a, b)\n"
    assert idioms(edit(repo, "engine/helpers.py", helper, reworked)) == []


_LOG_ENV = """def start(env):
    logger.info("Using runtime env: %s", env)
"""


def test_secrets_masked_before_logging_are_flagged_a_banner_is_not(repo: Repo) -> None:
    masked = """def start(env):
    # Avoid logging sensitive values
    shown = {k: "***" for k in env}
    logger.info("Using runtime env: %s", shown)
"""
    assert idioms(edit(repo, "engine/start.py", _LOG_ENV, masked)) == ["secret_redacted"]
    banner = 'def start(env):\n    print("***")\n    logger.info("Using runtime env: %s", env)\n'
    assert idioms(edit(repo, "engine/banner.py", _LOG_ENV, banner)) == []


# --------------------------------------------------------------------------- web output

_PAGE = """def page(name):
    return "<h1>" + name + "</h1>"
"""


def test_a_value_escaped_into_html_is_flagged_new_code_that_escapes_from_the_start_is_not(repo: Repo) -> None:
    escaped = _PAGE.replace('"<h1>" + name', '"<h1>" + html.escape(name)')
    assert idioms(edit(repo, "web/page.py", _PAGE, escaped)) == ["html_escaped"]
    template = "<p>Hello {{ name|safe }}</p>\n"
    assert idioms(edit(repo, "web/hello.py", f"T = '{template}'\n", "T = '<p>Hello {{ name|e }}</p>'\n")) == [
        "html_escaped"
    ]
    grown = _PAGE + "\n\ndef footer(note):\n    return '<footer>' + html.escape(note) + '</footer>'\n"
    assert idioms(edit(repo, "web/footer.py", _PAGE, grown)) == []


def test_a_rust_closure_over_an_error_is_no_template_filter(repo: Repo) -> None:
    before = "fn open(path: &str) -> Result<File> {\n    Ok(File::open(path)?)\n}\n"
    after = "fn open(path: &str) -> Result<File> {\n    File::open(path).map_err(|e| Error::Io(e.to_string()))\n}\n"
    assert idioms(edit(repo, "src/file.rs", before, after)) == []


_HEADER = """def disposition(filename):
    return f'attachment; filename="{filename}"'
"""


def test_newlines_refused_in_a_header_value_are_flagged_elsewhere_they_are_not(repo: Repo) -> None:
    refused = _HEADER.replace(
        "    return f'",
        "    if any(c in filename for c in '\\r\\n'):\n"
        "        raise ValueError('newline in header value')\n"
        "    return f'",
    )
    assert idioms(edit(repo, "web/headers.py", _HEADER, refused)) == ["header_newlines_refused"]
    lines = "def lines(text):\n    return text.split('\\n')\n"
    crlf = "def lines(text):\n    return text.replace('\\r\\n', '\\n').split('\\n')\n"
    assert idioms(edit(repo, "engine/lines.py", lines, crlf)) == []


_TMP = """def scratch(root):
    path = root / "scratch"
    path.mkdir(exist_ok=True)
    return path
"""


def test_a_directory_made_private_is_flagged_a_new_private_directory_is_not(repo: Repo) -> None:
    private = _TMP.replace("path.mkdir(exist_ok=True)", "path.mkdir(mode=0o700, exist_ok=True)")
    assert idioms(edit(repo, "engine/scratch.py", _TMP, private)) == ["private_mode"]
    wider = _TMP.replace("path.mkdir(exist_ok=True)", "path.mkdir(mode=0o755, exist_ok=True)")
    assert idioms(edit(repo, "engine/shared.py", _TMP, wider)) == []


_REDIRECT = """def login_done(request):
    target = request.args.get("next", "/")
    return redirect(target)
"""


def test_a_redirect_kept_on_the_site_is_flagged_a_link_parser_is_not(repo: Repo) -> None:
    checked = _REDIRECT.replace(
        "    return redirect(target)",
        '    if target.startswith("//") or urlparse(target).netloc:\n        target = "/"\n    return redirect(target)',
    )
    assert idioms(edit(repo, "web/login.py", _REDIRECT, checked)) == ["redirect_target_checked"]
    links = "def host(url):\n    return url\n"
    parsed = "def host(url):\n    if urlparse(url).netloc:\n        return urlparse(url).netloc\n    return url\n"
    assert idioms(edit(repo, "engine/links.py", links, parsed)) == []


# --------------------------------------------------------------------------- limits switched on, work raised

_FORMS = """class Request:
    #: How much of a non-file form field is kept in memory.
    max_form_memory_size: int | None = None
    batch_size: int | None = None
"""


def test_a_limit_on_client_input_switched_on_by_default_is_flagged_a_tuning_knob_is_not(repo: Repo) -> None:
    limited = _FORMS.replace("max_form_memory_size: int | None = None", "max_form_memory_size: int | None = 500_000")
    commit = edit(repo, "src/lib/wrappers.py", _FORMS, limited)
    assert idioms(commit) == ["input_limit_defaulted"]
    analysis = analyse(commit)
    assert analysis.verdict.flags.security
    # A field that parsed before is refused until the user raises the limit.
    assert analysis.verdict.flags.breaking
    tuned = _FORMS.replace("batch_size: int | None = None", "max_batch_size: int | None = 256")
    assert idioms(edit(repo, "src/lib/engine.py", _FORMS, tuned)) == []


@pytest.mark.parametrize(
    ("path", "before", "after", "expected"),
    [
        (
            "src/lib/security.py",
            "PBKDF2_ITERATIONS = 600000\n",
            "PBKDF2_ITERATIONS = 1_000_000\n",
            ["password_work_raised"],
        ),
        ("src/lib/retry.py", "RETRY_ITERATIONS = 3\n", "RETRY_ITERATIONS = 5\n", []),
    ],
)
def test_a_password_hash_work_factor_raised_is_flagged_another_constant_is_not(
    repo: Repo, path: str, before: str, after: str, expected: list[str]
) -> None:
    commit = edit(repo, path, before, after)
    assert idioms(commit) == expected
    assert flagged(commit) == bool(expected)


_RENDER = """from dataclasses import dataclass


@dataclass
class Custom:
    command: str


def render(config, output):
    return markup(output)
"""


def test_an_unsafe_behaviour_put_behind_an_opt_in_is_a_breaking_hardening_a_new_module_with_one_is_not(
    repo: Repo,
) -> None:
    guarded = _RENDER.replace("    command: str\n", "    command: str\n    unsafe_no_escape: bool = False\n").replace(
        "return markup(output)", "return markup(output if config.unsafe_no_escape else escape(output))"
    )
    commit = edit(repo, "engine/custom.py", _RENDER, guarded)
    assert idioms(commit) == ["unsafe_opt_in"]
    analysis = analyse(commit)
    assert analysis.verdict.flags.security
    assert analysis.verdict.flags.breaking
    assert idioms(repo.change("Shell module", {"engine/shell.py": guarded})) == []
    # The switch set to its dangerous value makes nothing safer.
    opened = guarded.replace("unsafe_no_escape: bool = False", "unsafe_no_escape: bool = True")
    assert idioms(repo.change("Trust the output", {"engine/custom.py": opened})) == []
    # A constant named for a kernel's shortcut is no user's switch.
    tuned = opened.replace("    command: str\n", "    command: str\n    FAST_UNSAFE_INIT = False\n")
    assert idioms(repo.change("Tune the kernel", {"engine/custom.py": tuned})) == []


# --------------------------------------------------------------------------- advisories

_REQUIREMENTS = "protobuf >= 5.29\nnumpy\n"


def test_an_advisory_named_beside_a_constraint_is_flagged_in_the_docs_it_is_not(repo: Repo) -> None:
    pinned = _REQUIREMENTS.replace("protobuf >= 5.29", "protobuf >= 6.33.5  # CVE-2026-0994")
    commit = edit(repo, "requirements/common.txt", _REQUIREMENTS, pinned)
    assert idioms(commit) == ["advisory_named"]
    assert flagged(commit)
    notes = repo.change("Notes", {"docs/notes.md": "# Notes\n\nWe track CVE-2026-0994 upstream.\n"})
    assert idioms(notes) == []


# --------------------------------------------------------------------------- release pipelines

_RELEASE = """name: release
permissions:
  contents: write
jobs:
  build:
    steps:
      - uses: actions/checkout@v4
      - name: Upload
        run: gh release upload "$TAG" "$ASSET"
"""


def assert_pipeline_hardened(commit: Commit, rule: str) -> None:
    """Only ``rule`` matches, and the commit is a security change of the rubric's floor.

    The pipeline is no release of the project's code: medium, not high.
    """
    assert idioms(commit) == [rule]
    analysis = analyse(commit)
    assert analysis.verdict.flags.security
    assert analysis.verdict.importance == Importance.medium


def test_a_release_given_build_provenance_is_flagged_a_bump_of_that_action_is_not(repo: Repo) -> None:
    attested = _RELEASE.replace(
        "      - name: Upload",
        "      - uses: actions/attest-build-provenance@v3\n        with:\n"
        "          subject-path: ${{ env.ASSET }}\n      - name: Upload",
    )
    assert_pipeline_hardened(edit(repo, ".github/workflows/release.yml", _RELEASE, attested), "release_hardened")
    bumped = attested.replace("attest-build-provenance@v3", "attest-build-provenance@v4")
    assert idioms(repo.change("Bump the action", {".github/workflows/release.yml": bumped})) == []
    # A new pipeline that keeps no token from the start fixes nothing that was there.
    fresh = _RELEASE.replace(
        "actions/checkout@v4", "actions/checkout@v4\n        with:\n          persist-credentials: false"
    )
    assert idioms(repo.change("Add a nightly pipeline", {".github/workflows/nightly.yml": fresh})) == []


_PYPI_PUBLISH = """name: release
on:
  push:
    tags: ["*"]
jobs:
  deploy:
    permissions:
      id-token: write
    steps:
      - uses: actions/download-artifact@v4
      - name: Publish package
        uses: pypa/gh-action-pypi-publish@v1.10.0
"""


def test_a_pypi_upload_given_attestations_is_flagged_turning_them_off_is_not(repo: Repo) -> None:
    # The publish action's own input: the upload carries signed provenance users can verify.
    attested = _PYPI_PUBLISH + "        with:\n          attestations: true\n"
    assert_pipeline_hardened(edit(repo, ".github/workflows/deploy.yml", _PYPI_PUBLISH, attested), "release_hardened")
    off = attested.replace("attestations: true", "attestations: false")
    assert idioms(repo.change("Skip attestations", {".github/workflows/deploy.yml": off})) == []


def test_a_checkout_that_keeps_no_token_is_flagged_a_workflow_rewritten_with_it_is_not(repo: Repo) -> None:
    dropped = _RELEASE.replace(
        "actions/checkout@v4", "actions/checkout@v4\n        with:\n          persist-credentials: false"
    )
    assert idioms(edit(repo, ".github/workflows/release.yml", _RELEASE, dropped)) == ["checkout_token_dropped"]
    rewritten = dropped.replace(
        "      - name: Upload", "      - uses: actions/setup-node@v4\n      - name: Upload"
    ).replace("build:", "publish:")
    rewritten = rewritten.replace("persist-credentials: false", "persist-credentials: false\n          fetch-depth: 0")
    assert idioms(edit(repo, ".github/workflows/legacy.yml", _RELEASE, rewritten)) == []


def test_packages_held_back_until_they_age_are_flagged_other_settings_are_not(repo: Repo) -> None:
    workspace = "packages:\n  - packages/*\n"
    assert idioms(edit(repo, "pnpm-workspace.yaml", workspace, workspace + "minimumReleaseAge: 1440\n")) == [
        "release_hardened"
    ]
    assert idioms(repo.change("Hoist", {"pnpm-workspace.yaml": workspace + "shamefullyHoist: true\n"})) == []


def test_an_action_pinned_to_a_commit_is_flagged_a_bump_between_commits_is_not(repo: Repo) -> None:
    sha, newer = "65d7f2d534ac1bc67fcd62888c5f4f3d2cb2b236", "0a5c61591373683505ea898e09a3ea4f39ef2b9c"
    pinned = _RELEASE.replace("actions/checkout@v4", f"actions/checkout@{sha} # v4")
    assert idioms(edit(repo, ".github/workflows/release.yml", _RELEASE, pinned)) == ["actions_pinned"]
    bumped = pinned.replace(sha, newer).replace("# v4", "# v5")
    assert idioms(repo.change("Bump checkout", {".github/workflows/release.yml": bumped})) == []
    # A SHA may start with digits, as a version does.
    bare = bumped.replace(f"{newer} # v5", sha)
    assert idioms(repo.change("Bare pin", {".github/workflows/release.yml": bare})) == []
    rebumped = bare.replace(sha, newer)
    assert idioms(repo.change("Bump the bare pin", {".github/workflows/release.yml": rebumped})) == []


_WORKFLOW = """name: check
on: [push]
jobs:
  test:
    steps:
      - uses: actions/checkout@v4
"""


def test_a_workflow_token_restricted_to_reading_is_flagged_a_grant_of_write_is_not(repo: Repo) -> None:
    restricted = _WORKFLOW.replace("jobs:", "permissions:\n  contents: read\n\njobs:")
    commit = edit(repo, ".github/workflows/check.yml", _WORKFLOW, restricted)
    assert_pipeline_hardened(commit, "workflow_permissions_restricted")
    # Granting the token a write scope widens what it may do as much as it restricts the rest.
    granted = _WORKFLOW.replace("jobs:", "permissions:\n  contents: read\n  issues: write\n\njobs:")
    assert idioms(edit(repo, ".github/workflows/label.yml", _WORKFLOW, granted)) == []
    # A new workflow that starts restricted fixes nothing that was there.
    assert idioms(repo.change("Add a nightly pipeline", {".github/workflows/nightly.yml": restricted})) == []


# --------------------------------------------------------------------------- one edit each: the fix, its near misses

_EXTRACTOR = """impl FromRequest for JsonLines {
    async fn from_request(req: Request) -> Result<Self, Rejection> {
        let body = req.into_body();
        Ok(Self::new(body.into_data_stream()))
    }
}
"""
_SERVE = "fn serve(io: Io) {\n    let mut builder = Builder::new(TokioExecutor::new());\n    builder.serve(io);\n}\n"
_DEFAULTS = """export const serverDefaults = Object.freeze({
  fs: {
    strict: true,
    deny: ['.env', '.env.*', '*.{crt,pem}'],
  },
  cors: false,
})
"""
_ALLOWED = "export const allowed = {\n  exts: ['.js'],\n}\n"
_STATIC = """export function isFileLoadingAllowed(config, filePath) {
  if (config.fsDenyGlob(filePath)) return false
  return true
}
"""
_DEBUGGER = """def run(app, hostname, use_debugger):
    if use_debugger:
        app = DebuggedApplication(app)
        app.trusted_hosts.append(hostname)
    return app
"""
_BANNER = "def banner(hostname):\n    return hostname\n"
_DISPOSITION = 'fn disposition(name: &str) -> String {\n    format!("attachment; filename=\\"{}\\"", name)\n}\n'
_ESCAPED_DISPOSITION = _DISPOSITION.replace(", name)", ", EscapedQuotedString(name))")
_LOGIN = """def login(response, token):
    response.set_cookie(
        "session",
        token,
    )
    return response
"""
_LOGOUT = "def logout(response):\n    return response\n"
_TLS = """def create_context():
    context = ssl.create_default_context()
    context.load_verify_locations(cafile=certifi.where())
    return context
"""


@pytest.mark.parametrize(
    ("path", "before", "after", "expected"),
    [
        pytest.param(
            "src/json_lines.rs",
            _EXTRACTOR,
            _EXTRACTOR.replace("req.into_body()", "req.into_limited_body()"),
            "body_read_limited",
            id="body read within the limit",
        ),
        pytest.param(
            "src/lines.rs",
            _EXTRACTOR,
            _EXTRACTOR.replace("req.into_body()", "req.into_body().map_err(Error::new)"),
            None,
            id="body read otherwise",
        ),
        pytest.param(
            "src/serve.rs",
            _SERVE,
            _SERVE.replace("    builder.serve", "    builder.http1().timer(TokioTimer::new());\n    builder.serve"),
            "request_size_limit",
            id="hyper's header read timer on",
        ),
        pytest.param(
            "src/keep.rs",
            _SERVE,
            _SERVE.replace("    builder.serve", "    builder.http1().keep_alive(true);\n    builder.serve"),
            None,
            id="another http1 setting",
        ),
        pytest.param(
            "src/server/defaults.ts",
            _DEFAULTS,
            _DEFAULTS.replace("'*.{crt,pem}'", "'*.{crt,pem,key,p12}', '.npmrc'"),
            "deny_list_extended",
            id="key files denied",
        ),
        pytest.param(
            "src/server/logs.ts",
            _DEFAULTS,
            _DEFAULTS.replace("'*.{crt,pem}'", "'*.{crt,pem}', '*.log'"),
            None,
            id="logs denied",
        ),
        pytest.param(
            "src/server/allowed.ts",
            _ALLOWED,
            _ALLOWED.replace("['.js']", "['.js', '.key']"),
            None,
            id="key files allowed",
        ),
        pytest.param(
            "src/server/cors.ts",
            _DEFAULTS,
            _DEFAULTS.replace("  cors: false,", "  cors: { origin: loopbackOrigins },"),
            "cors_restricted",
            id="cors narrowed to named origins",
        ),
        pytest.param(
            "app/main.py",
            'app.add_middleware(CORSMiddleware, allow_origins=["*"])\n',
            "app.add_middleware(CORSMiddleware, allow_origins=settings.origins)\n",
            "cors_restricted",
            id="cors wildcard replaced",
        ),
        pytest.param(
            "src/server/strict.ts",
            _DEFAULTS,
            _DEFAULTS.replace("strict: true", "strict: false"),
            None,
            id="another server default",
        ),
        pytest.param(
            "src/server/static.ts",
            _STATIC,
            _STATIC.replace(
                "  if (config.fsDenyGlob(filePath)) return false",
                "  const trimmed = filePath.endsWith('/') ? filePath.slice(0, -1) : filePath\n"
                "  if (config.fsDenyGlob(trimmed)) return false",
            ),
            "deny_check_normalised",
            id="deny check given the normalised path",
        ),
        pytest.param(
            "src/server/renamed.ts", _STATIC, _STATIC.replace("filePath", "file"), None, id="argument renamed"
        ),
        pytest.param(
            "src/lib/serving.py",
            _DEBUGGER,
            _DEBUGGER.replace(
                "        app.trusted_hosts.append(hostname)",
                '        if hostname not in {"0.0.0.0", "[::]"}:\n            app.trusted_hosts.append(hostname)',
            ),
            "wildcard_host_untrusted",
            id="wildcard address kept out of trusted hosts",
        ),
        pytest.param(
            "src/lib/banner.py",
            _BANNER,
            _BANNER.replace("    return", '    if hostname != "0.0.0.0":\n        return hostname\n    return'),
            None,
            id="wildcard address displayed",
        ),
        pytest.param(
            "web/download.py",
            _HEADER,
            _HEADER.replace('filename="{filename}"\'', 'filename="{quote_header_value(filename)}"\''),
            "header_param_escaped",
            id="header parameter quoted",
        ),
        pytest.param(
            "src/attachment.rs",
            _DISPOSITION,
            _ESCAPED_DISPOSITION,
            "header_param_escaped",
            id="header parameter escaped",
        ),
        # Renaming the helper that already escaped changes nothing a reader depends on.
        pytest.param(
            "src/renamed.rs",
            _ESCAPED_DISPOSITION,
            _ESCAPED_DISPOSITION.replace("EscapedQuotedString", "Escaped"),
            None,
            id="escape helper renamed",
        ),
        pytest.param(
            "app/login.py",
            _LOGIN,
            _LOGIN.replace("        token,\n", '        token,\n        httponly=True,\n        samesite="lax",\n'),
            "cookie_flags_set",
            id="session cookie made HttpOnly",
        ),
        # A new cookie set safely from the start hardens nothing that was there.
        pytest.param(
            "app/logout.py",
            _LOGOUT,
            _LOGOUT.replace("    return", '    response.delete_cookie("session", httponly=True)\n    return'),
            None,
            id="new cookie",
        ),
        pytest.param(
            "src/lib/tls.py",
            _TLS,
            _TLS.replace("    return", "    context.verify_flags |= ssl.VERIFY_X509_STRICT\n    return"),
            "tls_hardened",
            id="tls made stricter",
        ),
        pytest.param(
            "src/lib/noted.py",
            _TLS,
            _TLS.replace("    return", "    # the default context sets OP_NO_SSLv3 already\n    return"),
            None,
            id="tls comment",
        ),
    ],
)
def test_one_edit_flags_its_idiom_and_its_near_misses_nothing(
    repo: Repo, path: str, before: str, after: str, expected: str | None
) -> None:
    commit = edit(repo, path, before, after)
    assert idioms(commit) == ([expected] if expected else [])
    assert flagged(commit) == bool(expected)


# --------------------------------------------------------------------------- words beside the idioms


@pytest.mark.parametrize(
    ("message", "expected"),
    [
        ("Default cors to false to disallow fetching from untrusted origins", True),
        ("Enable the header timeout\n\nA malicious client could hold a connection open forever.", True),
        ("Load configuration from trusted sources only when asked", False),
        ("Clarify the security process in the triage role", False),
    ],
)
def test_what_an_attacker_controls_named_in_the_message_flags_it(repo: Repo, message: str, expected: bool) -> None:
    commit = repo.change(message, {"src/lib/server.py": "TIMEOUT = 30\n"})
    assert idioms(commit) == []
    assert flagged(commit) == expected


# --------------------------------------------------------------------------- the rules are data


def test_a_repository_teaches_its_own_idiom_and_bad_rules_fail_at_load(repo: Repo) -> None:
    go_idiom = {
        "security_idioms": {
            "go_html_escaped": {
                "added": [r"\btemplate\.HTMLEscapeString\("],
                "after": [r"\bw\.Write\("],
                "cite": "{added}",
            }
        }
    }
    analyzer = HeuristicAnalyzer(language="en", rules=RuleSet.load(go_idiom))
    handler = "package web\n\nfunc reply(w Writer, name string) {\n\tw.Write([]byte(name))\n}\n"
    escaped = handler.replace("[]byte(name)", "[]byte(template.HTMLEscapeString(name))")
    assert idioms(edit(repo, "web/reply.go", handler, escaped), analyzer) == ["go_html_escaped"]
    with pytest.raises(ConfigError, match="names no pattern list"):
        RuleSet.load({"security_idioms": {"bad": {"added": ["x"], "cite": "{before}"}}})
    with pytest.raises(ConfigError, match="needs `added` or `removed`"):
        RuleSet.load({"security_idioms": {"bad": {"after": ["x"], "cite": "x"}}})
