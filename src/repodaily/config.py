"""Configuration: the packaged commented default, the user's file, environment, flags.

Each layer overrides the one before it. Errors name the key and the file they
came from, because a config error is a user's to fix.
"""

from __future__ import annotations

import os
import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from repodaily.analyzers.heuristic import load_conventions
from repodaily.analyzers.llm.settings import EndpointSettings, LLMSettings, settings_from_env
from repodaily.errors import ConfigError
from repodaily.tables import describe, merge, read_toml

ENV_PREFIX = "REPODAILY__"
CONFIG_FILE_NAME = "repodaily.toml"
_REPO_NAME_RE = re.compile(r"[^/\s]+/[^/\s]+")


def _no_nul(value: str) -> str:
    # TOML can spell a NUL ("\u0000"); no file system takes one, so refuse it here, not at the first write.
    if "\x00" in value:
        raise ValueError("a path cannot contain a NUL character")
    return value


_PathText = Annotated[str, AfterValidator(_no_nul)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RepoConfig(_Section):
    name: str | None = None
    url: str | None = None
    path: str | None = None
    branch: str | None = None
    web_url: str | None = Field(
        default=None,
        description="Base URL of commit links; None derives https://github.com/{name}, '' disables links.",
    )
    conventions: str | dict[str, Any] | None = Field(
        default=None,
        description=(
            "The repository's own tags and paths mapped onto the rubric: a shipped preset name ('vllm'), "
            "a TOML file path (relative to the working directory) or an inline table; extends the heuristic rules."
        ),
    )

    @field_validator("name")
    @classmethod
    def _owner_slash_repo(cls, value: str | None) -> str | None:
        if value is not None and not _REPO_NAME_RE.fullmatch(value):
            raise ValueError(f"{value!r} is not OWNER/REPO")
        return value

    @field_validator("conventions")
    @classmethod
    def _valid_conventions(cls, value: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
        # Checked when the config loads, so a typo in a preset name or a rule key stops the run before it starts.
        if value is not None:
            try:
                load_conventions(value)
            except ConfigError as exc:
                raise ValueError(str(exc)) from None
        return value

    @model_validator(mode="after")
    def _one_location(self) -> RepoConfig:
        if bool(self.url) == bool(self.path):
            raise ValueError("give exactly one of 'url' or 'path'")
        return self

    @property
    def location(self) -> str:
        return self.url or self.path or ""


class OutputConfig(_Section):
    dir: _PathText = Field(default="reports", min_length=1)
    path: _PathText = "{year}/{repo}/{date}.md"
    formats: list[Literal["md", "json"]] = Field(default_factory=lambda: ["md"], min_length=1)

    @field_validator("path")
    @classmethod
    def _known_fields(cls, value: str) -> str:
        fields = dict.fromkeys(("repo", "owner", "name", "date", "year", "month", "day", "lang"), "x")
        try:
            filled = value.format(**fields)
        except (KeyError, IndexError, ValueError) as exc:
            raise ValueError(f"unknown or malformed field in path template: {exc}") from None
        if not Path(filled).name:
            raise ValueError("the path template must end in a file name")
        return value


class ContextConfig(_Section):
    budget_tokens: int = Field(default=6000, gt=0)
    max_patch_bytes: int = Field(default=1_000_000, gt=0)


class AnalyzerConfig(_Section):
    name: str = "auto"
    concurrency: int = Field(default=8, ge=1, le=256)


class LLMConfig(_Section):
    endpoints: list[EndpointSettings] = Field(default_factory=list)
    max_calls_per_commit: int = Field(default=4, ge=1)
    highlights: bool = True


class Config(_Section):
    timezone: str = "Asia/Shanghai"
    language: Literal["zh", "en"] = "zh"
    cache_dir: _PathText = ""
    templates_dir: _PathText = ""
    analyzer: AnalyzerConfig = Field(default_factory=AnalyzerConfig)
    output: OutputConfig = Field(default_factory=OutputConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    llm: LLMConfig = Field(default_factory=LLMConfig)
    repos: list[RepoConfig] = Field(default_factory=list)

    @field_validator("timezone")
    @classmethod
    def _real_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        except (ZoneInfoNotFoundError, ValueError):
            raise ValueError(f"unknown IANA timezone {value!r}") from None
        return value

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def analyzer_name(self) -> str:
        """``auto`` means the LLM when an endpoint is configured, else the offline heuristic."""
        if self.analyzer.name != "auto":
            return self.analyzer.name
        return "llm" if self.llm.endpoints else "heuristic"

    def llm_settings(self) -> LLMSettings:
        """The LLM analyzer's settings; the context budget is also what one prompt carries."""
        if not self.llm.endpoints:
            raise ConfigError("the llm analyzer needs an endpoint: add [[llm.endpoints]] or set LLM_MODEL")
        return LLMSettings(
            endpoints=self.llm.endpoints,
            language=self.language,
            budget_tokens=self.context.budget_tokens,
            max_calls_per_commit=self.llm.max_calls_per_commit,
        )

    @property
    def cache_path(self) -> Path:
        if self.cache_dir:
            return Path(self.cache_dir).expanduser()
        base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
        return Path(base) / "repodaily"


def _default_layer() -> dict[str, Any]:
    text = resources.files("repodaily").joinpath("default_config.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


def _file_layer(path: Path) -> dict[str, Any]:
    return read_toml(path, f"config file {path}")


def _env_value(raw: str) -> Any:
    """Read an environment value as a TOML literal when it is one, else as a string."""
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        return raw


def _env_layer(environ: Mapping[str, str]) -> dict[str, Any]:
    layer: dict[str, Any] = {}
    for key, raw in environ.items():
        if not key.startswith(ENV_PREFIX):
            continue
        parts = [p.lower() for p in key[len(ENV_PREFIX) :].split("__") if p]
        if not parts:
            raise ConfigError(f"environment variable {key} names no key; use {ENV_PREFIX}SECTION__KEY")
        *sections, name = parts
        node = layer
        for part in sections:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                break
        if not isinstance(node, dict) or isinstance(node.get(name), dict):
            # Two variables such as REPODAILY__CONTEXT=1 and REPODAILY__CONTEXT__BUDGET_TOKENS=2.
            raise ConfigError(
                f"environment variable {key} clashes with another {ENV_PREFIX}* variable: "
                "a key cannot be both a value and a table"
            )
        node[name] = _env_value(raw)
    return layer


def command_line_repo(**fields: Any) -> RepoConfig:
    """The repository a command names by its arguments; a bad value is a ConfigError, like a bad file."""
    try:
        return RepoConfig(**fields)
    except ValidationError as exc:
        raise ConfigError(describe(exc, "command line")) from None


def find_config_file(explicit: str | os.PathLike[str] | None, environ: Mapping[str, str]) -> Path | None:
    """The file named by ``--config``, else ``$REPODAILY_CONFIG``, else ``./repodaily.toml`` if present."""
    if explicit:
        return Path(explicit)
    if environ.get("REPODAILY_CONFIG"):
        return Path(environ["REPODAILY_CONFIG"])
    local = Path(CONFIG_FILE_NAME)
    return local if local.is_file() else None


def load_config(
    path: Path | None = None,
    *,
    environ: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Config:
    """Layer default < file < environment < ``overrides`` (the command-line flags) and validate."""
    environ = os.environ if environ is None else environ
    data = _default_layer()
    source = "default configuration"
    if path is not None:
        data = merge(data, _file_layer(path))
        source = str(path)
    env_layer = _env_layer(environ)
    if env_layer:
        data = merge(data, env_layer)
    if not data.get("llm", {}).get("endpoints"):
        # The replaced tool's LLM_MODEL / LLM_BASE_URL / LLM_API_KEY keep working.
        from_env = settings_from_env(environ)
        if from_env is not None:
            data = merge(data, {"llm": {"endpoints": [e.model_dump() for e in from_env.endpoints]}})
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        where = source if not env_layer else f"{source} (with {ENV_PREFIX}* environment overrides)"
        raise ConfigError(describe(exc, where)) from None
    if overrides:
        try:
            config = Config.model_validate(merge(config.model_dump(), overrides))
        except ValidationError as exc:
            raise ConfigError(describe(exc, "command line")) from None
    return config
