"""The public surface: what the package exports, and what the config documents."""

import importlib
import json
import re
import tomllib
from fnmatch import fnmatch
from importlib import resources
from pathlib import Path

from click.testing import CliRunner
from report_checks import ANALYSIS_KEYS, REPORT_KEYS

import repodaily
from repodaily.cli import main
from repodaily.config import Config
from repodaily.plugins import registry


def test_all_is_sorted_and_every_name_exists():
    assert repodaily.__all__ == sorted(repodaily.__all__)
    missing = [name for name in repodaily.__all__ if not hasattr(repodaily, name)]
    assert missing == []


def test_every_public_name_of_the_package_is_in_all():
    public = {
        name
        for name in vars(repodaily)
        if not name.startswith("_") and not isinstance(getattr(repodaily, name), type(repodaily))
    }
    assert public - set(repodaily.__all__) == set()


def _section_model(annotation: object) -> type | None:
    """The settings model a field holds, directly or as a list of them (``[[repos]]``)."""
    if isinstance(annotation, type) and hasattr(annotation, "model_fields"):
        return annotation
    (inner,) = getattr(annotation, "__args__", (None,))[:1] or (None,)
    if getattr(annotation, "__origin__", None) is list and hasattr(inner, "model_fields"):
        return inner
    return None


def _keys(model: type, prefix: str = "") -> set[str]:
    keys = set()
    for name, field in model.model_fields.items():
        section = _section_model(field.annotation)
        if section is not None:
            keys |= _keys(section, f"{prefix}{name}.")
        else:
            keys.add(f"{prefix}{name}")
    return keys


def test_every_setting_is_in_the_commented_default_config():
    text = resources.files("repodaily").joinpath("default_config.toml").read_text(encoding="utf-8")
    documented: set[str] = set()
    section = ""
    for line in text.splitlines():
        line = line.lstrip("# ").rstrip()
        if match := re.fullmatch(r"\[\[?([a-z_.]+)\]?\]", line):
            section = f"{match.group(1)}."
        elif match := re.match(r"([a-z_0-9]+) = ", line):
            documented.add(f"{section}{match.group(1)}")
    plugins = registry()
    # The built-ins' own tables: each analyzer's under its name, the git source's in [[repos]].
    settings = _keys(Config) | _keys(plugins.get("source", "git").settings, "repos.")
    for name in ("heuristic", "llm"):
        settings |= _keys(plugins.get("analyzer", name).settings, f"{name}.")
    # Every built-in publisher's and context source's keys, their entry points registered here when not installed.
    pyproject = tomllib.loads((Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8"))
    for entry, module in pyproject["project"]["entry-points"]["repodaily"].items():
        if not plugins.manager.has_plugin(entry):
            plugins.add_plugin(importlib.import_module(module), entry)
    for name in plugins.names("source"):
        settings |= _keys(plugins.get("source", name).settings, "repos.")
    for name in plugins.names("publisher"):
        settings |= _keys(plugins.get("publisher", name).settings, "publish.")
    for name in plugins.names("context"):
        settings |= _keys(plugins.get("context", name).settings, f"{name}.")
    missing = settings - documented
    assert missing == set()
    assert {
        "repos.conventions",
        "repos.url",
        "llm.endpoints.api_key_env",
        "publish.webhook_url_env",
        "publish.password_env",
        "publish.token_env",
        "github.token_env",
        "repos.repository",
    } <= settings
    tomllib.loads(text)  # and it parses


def test_schema_command_prints_the_report_format():
    result = CliRunner().invoke(main, ["schema"])
    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert set(schema["properties"]) >= REPORT_KEYS
    assert set(schema["$defs"]["Analysis"]["properties"]) >= ANALYSIS_KEYS


def test_every_data_file_of_the_package_is_declared_package_data():
    """A template, rule table or prompt missing from package-data works in a checkout and fails once installed."""
    root = Path(__file__).resolve().parents[1]
    pyproject = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    globs = pyproject["tool"]["setuptools"]["package-data"]["repodaily"]
    package = root / "src" / "repodaily"
    data = [
        path.relative_to(package)
        for path in package.rglob("*")
        if path.is_file() and path.suffix not in (".py", ".pyc") and "__pycache__" not in path.parts
    ]
    assert data, "the package has data files"
    undeclared = [str(path) for path in data if not any(_anchored_match(path, pattern) for pattern in globs)]
    assert undeclared == []


def _anchored_match(path: Path, pattern: str) -> bool:
    """setuptools' package-data globs: anchored at the package, ``*`` within one directory."""
    parts = Path(pattern).parts
    return len(parts) == len(path.parts) and all(fnmatch(a, b) for a, b in zip(path.parts, parts))
