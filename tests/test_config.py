import importlib
import re
from pathlib import Path

import pytest
from conftest import GITHUB_CONTEXT

from repodaily.config import load_config
from repodaily.errors import ConfigError
from repodaily.plugins import registry


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "repodaily.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_defaults_come_from_the_packaged_commented_file():
    config = load_config(None, environ={})
    assert config.timezone == "Asia/Shanghai"
    assert config.language == "zh"
    assert config.output.path == "{year}/{repo}/{date}.md"
    assert config.context.budget_tokens == 6000


def test_file_then_environment_then_flags_override(tmp_path):
    path = _write(tmp_path, 'language = "en"\n[context]\nbudget_tokens = 100\n')
    env = {"REPODAILY__CONTEXT__BUDGET_TOKENS": "200", "REPODAILY__TIMEZONE": "UTC"}
    config = load_config(path, environ=env, overrides={"timezone": "Europe/Paris"})
    assert config.language == "en"
    assert config.context.budget_tokens == 200
    assert config.timezone == "Europe/Paris"


def test_repos_are_read(tmp_path):
    path = _write(tmp_path, '[[repos]]\nname = "o/r"\nurl = "https://github.com/o/r.git"\n')
    (repo,) = load_config(path, environ={}).repos
    assert (repo.name, repo.label, repo.source) == ("o/r", "o/r", "git")
    assert repo.source_settings["url"] == "https://github.com/o/r.git"


def test_an_unnamed_repository_is_named_by_where_it_is_whatever_order_its_keys_come_in(tmp_path):
    """Named by its branch, every unnamed repository on main would read alike in messages and share a shard."""
    text = '[[repos]]\nbranch = "main"\nurl = "https://example.org/a.git"\n'
    text += '[[repos]]\nbranch = "main"\npath = "/srv/git/b"\n'
    labels = [repo.label for repo in load_config(_write(tmp_path, text), environ={}).repos]
    assert labels == ["https://example.org/a.git", "/srv/git/b"]


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("timezone = 'Mars/Olympus'", "timezone: Value error, unknown IANA timezone"),
        ("[context]\nbudget_tokens = 0", "context.budget_tokens"),
        ("[context]\nbudgte_tokens = 5", "context.budgte_tokens: unknown key"),
        ("language = 'fr'", "language"),
        ("[[repos]]\nname = 'o/r'", "repos.0: Value error, give exactly one of 'url' or 'path'"),
        ("[output]\npath = '{year}/{nope}.md'", "output.path"),
        ("language = ", "not valid TOML"),
        ("[[repos]]\nname = 'noslash'\npath = '.'", "repos.0.name: Value error, 'noslash' is not OWNER/REPO"),
        ("[[repos]]\nname = '../..'\npath = '.'", "repos.0.name: Value error, '../..' is not OWNER/REPO"),
        ("[[repos]]\nname = 'acme/.'\npath = '.'", "repos.0.name: Value error, 'acme/.' is not OWNER/REPO"),
        ("[output]\npath = ''", "output.path: Value error, the path template must end in a file name"),
        (
            "[output]\npath = '../../{date}.md'",
            "output.path: Value error, the path template leaves the output directory",
        ),
        (
            "[output]\npath = '/etc/{date}.md'",
            "output.path: Value error, the path template leaves the output directory",
        ),
        (
            "[[publish]]\ntype = 'files'\npath = '{repo}/../../../{date}.md'",
            "publish.0.path: Value error, the path template leaves the output directory",
        ),
        ("[output]\ndir = ''", "output.dir"),
        ('cache_dir = "a\\u0000b"', "cache_dir: Value error, a path cannot contain a NUL"),
    ],
)
def test_config_errors_name_the_file_and_the_key(tmp_path, text, fragment):
    path = _write(tmp_path, text)
    with pytest.raises(ConfigError) as info:
        load_config(path, environ={})
    message = str(info.value)
    assert str(path) in message
    assert fragment in message
    assert "\n" not in message


def test_environment_errors_say_they_came_from_the_environment():
    with pytest.raises(ConfigError, match="environment"):
        load_config(None, environ={"REPODAILY__CONTEXT__BUDGET_TOKENS": "-1"})


def test_missing_config_file_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match="config file .*nope.toml: file not found"):
        load_config(tmp_path / "nope.toml", environ={})


def test_a_config_file_that_is_not_utf8_names_the_file_and_the_byte(tmp_path):
    path = tmp_path / "repodaily.toml"
    path.write_bytes(b'timezone = "Asia/Shanghai"\n# caf\xe9\n')
    with pytest.raises(ConfigError, match=r"repodaily.toml: not UTF-8 \(byte 0xe9 at offset 32\)"):
        load_config(path, environ={})


def test_a_config_path_that_is_a_directory_is_a_clear_error(tmp_path):
    with pytest.raises(ConfigError, match=r"cannot read: not a regular file \(a directory\)"):
        load_config(tmp_path, environ={})


@pytest.mark.parametrize(
    ("environ", "fragment"),
    [
        ({"REPODAILY__": "1"}, "REPODAILY__ names no key"),
        ({"REPODAILY____": "1"}, "names no key"),
        ({"REPODAILY__CONTEXT": "1", "REPODAILY__CONTEXT__BUDGET_TOKENS": "2"}, "clashes with another"),
        ({"REPODAILY__CONTEXT__BUDGET_TOKENS": "2", "REPODAILY__CONTEXT": "1"}, "clashes with another"),
    ],
)
def test_environment_variables_that_name_no_key_or_clash_are_config_errors(environ, fragment):
    with pytest.raises(ConfigError, match=fragment):
        load_config(None, environ=environ)


def _readme_configs() -> list[str]:
    """The TOML blocks of the README that are repodaily configs (not a plugin's pyproject.toml)."""
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"^```toml\n(.*?)^```", readme, re.S | re.M)
    return [block for block in blocks if "[project" not in block]


@pytest.mark.parametrize("text", _readme_configs(), ids=lambda text: text.splitlines()[0][:40])
def test_every_config_the_readme_shows_loads(tmp_path, monkeypatch, text):
    """A reader copies these into repodaily.toml first: one that fails to load is the manual lying."""
    # The [github] table is the GitHub context source's, which conftest unregisters for every test.
    registry().add_plugin(importlib.import_module("repodaily.context.github.plugin"), GITHUB_CONTEXT)
    (tmp_path / "conventions").mkdir()
    (tmp_path / "conventions" / "service.toml").write_text("", encoding="utf-8")  # the example's own file
    monkeypatch.chdir(tmp_path)
    load_config(_write(tmp_path, text), environ={})


def test_the_readme_configs_are_found():
    """The control: the test above cannot pass by finding no block."""
    found = "".join(_readme_configs())
    assert all(table in found for table in ("[[repos]]", "[[llm.endpoints]]", "[[publish]]", "[github]", "[output]"))


_ENDPOINT = '[[llm.endpoints]]\nname = "x"\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\n'


@pytest.mark.parametrize(
    ("text", "environ", "key"),
    [
        (_ENDPOINT + "timeout_s = inf\n", {}, "llm.endpoints.0.timeout_s"),
        (_ENDPOINT + "timeout_max_s = +inf\n", {}, "llm.endpoints.0.timeout_max_s"),
        ('[[publish]]\ntype = "slack"\nmax_wait_s = inf\n', {}, "publish.0.max_wait_s"),
        ('[[publish]]\ntype = "slack"\ntimeout_s = nan\n', {}, "publish.0.timeout_s"),
        ('[[publish]]\ntype = "slack"\n', {"REPODAILY__LANGUAGE": "nan"}, "language"),
    ],
)
def test_a_setting_of_inf_or_nan_is_refused_naming_its_key(tmp_path, text, environ, key):
    """TOML spells both: an endless deadline would let a silent server hold the run for ever."""
    with pytest.raises(ConfigError) as refused:
        load_config(_write(tmp_path, text), environ=environ)
    assert f": {key}: " in str(refused.value) and "finite" in str(refused.value)
