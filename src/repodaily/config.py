"""Configuration: the packaged commented default, the user's file, environment, flags.

Each layer overrides the one before it. Errors name the key and the file they
came from, because a config error is a user's to fix.

The core owns the keys below; every other table belongs to a plugin and is
validated by that plugin's own settings model, through the registry
(:mod:`repodaily.plugins`): a top-level table named after an analyzer (``[llm]``)
or a context source (``[github]``),
a repository's keys beyond ``name``/``source``/``web_url``/``description``/``conventions`` (its
source's: ``url``, ``path``, ``branch`` for ``git``), and each ``[[publish]]``
table beyond ``type``. This module imports no plugin's code.
"""

from __future__ import annotations

import math
import os
import re
import tomllib
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Annotated, Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError, field_validator

from repodaily.controls import controls_except
from repodaily.errors import ConfigError
from repodaily.home import expand_home
from repodaily.plugins import Kind, registry
from repodaily.tables import describe, merge, read_toml

ENV_PREFIX = "REPODAILY__"
CONFIG_FILE_NAME = "repodaily.toml"
_REPO_NAME_RE = re.compile(r"[^/\s]+/[^/\s]+")
# What no name holds: control characters and bidi scopes, and a byte that is no UTF-8 (an argument's
# undecodable byte, kept by Python as a lone surrogate). A name becomes a directory, a title and a
# subject line, where these would act on a terminal or cannot be written at all.
_NOT_IN_NAMES = re.compile(f"{controls_except().pattern}|[\ud800-\udfff]")
# The keys that say where a repository is, in the built-in sources' tables (git's, GitHub's).
_LOCATION_KEYS = ("url", "path", "repository")


#: The longest name of one directory most file systems take, in bytes: each part of a name becomes one.
MAX_NAME_PART_BYTES = 255


def is_repo_name(value: str) -> bool:
    """Whether ``value`` is an ``OWNER/REPO``, as a config names one and a source may find one in a URL.

    "." and ".." name no repository, and in a path template they would climb out of the output directory.
    """
    return (
        bool(_REPO_NAME_RE.fullmatch(value))
        and not {".", ".."} & set(value.split("/"))
        and not _NOT_IN_NAMES.search(value)
        and not _too_long_part(value)
    )


def _too_long_part(value: str) -> bool:
    return any(len(part.encode("utf-8", "surrogatepass")) > MAX_NAME_PART_BYTES for part in value.split("/"))


def _no_nul(value: str) -> str:
    # TOML can spell a NUL ("\u0000"); no file system takes one, so refuse it here, not at the first write.
    if "\x00" in value:
        raise ValueError("a path cannot contain a NUL character")
    return value


_PathText = Annotated[str, AfterValidator(_no_nul)]


class _Section(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RepoConfig(_Section):
    """One watched repository: the core's keys; the rest are its source's settings."""

    model_config = ConfigDict(extra="allow")

    name: str | None = None
    source: str = Field(default="git", description="The source plugin that reads it.")
    web_url: str | None = Field(
        default=None,
        description="Base URL of commit links; None derives https://github.com/{name}, '' disables links.",
    )
    description: str | None = Field(
        default=None,
        description=(
            "What the repository is, in a sentence, told to an LLM analyzer with each commit; "
            "changing it redoes the repository's LLM analyses."
        ),
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
        if value is not None and not is_repo_name(value):
            if _REPO_NAME_RE.fullmatch(value) and _too_long_part(value):
                raise ValueError(
                    f"{value[:40]!r}… is not OWNER/REPO: a part longer than {MAX_NAME_PART_BYTES} bytes"
                    " cannot be a directory name"
                )
            raise ValueError(f"{value!r} is not OWNER/REPO")
        return value

    @field_validator("conventions")
    @classmethod
    def _valid_conventions(cls, value: str | dict[str, Any] | None) -> str | dict[str, Any] | None:
        # Checked when the config loads, by every analyzer that reads conventions, so a typo in a
        # preset name or a rule key stops the run before it starts.
        if value is not None:
            for spec in registry().specs("analyzer").values():
                if spec.conventions is not None:
                    try:
                        spec.conventions(value)
                    except ConfigError as exc:
                        raise ValueError(str(exc)) from None
        return value

    @property
    def source_settings(self) -> dict[str, Any]:
        """The keys the core does not own: the source plugin's table."""
        return dict(self.model_extra or {})

    @property
    def label(self) -> str:
        """How messages and shards name the repository before its name is known: its name, else where it is.

        Where it is comes first whatever order the keys were written in: named by its
        ``branch``, every unnamed repository on ``main`` would read alike, and hash
        into one shard.
        """
        settings = sorted(self.source_settings.items(), key=lambda item: item[0] not in _LOCATION_KEYS)
        where = [str(value) for _, value in settings if isinstance(value, str) and value]
        return self.name or (where[0] if where else self.source)


class OutputConfig(_Section):
    """Where the ``files`` publisher writes by default, and which renderers every publisher gets."""

    dir: _PathText = Field(default="reports", min_length=1)
    path: _PathText = "{year}/{repo}/{date}.md"
    formats: list[str] = Field(default_factory=lambda: ["md"], min_length=1)

    @field_validator("formats")
    @classmethod
    def _known_renderers(cls, value: list[str]) -> list[str]:
        known = registry().names("renderer")
        unknown = [name for name in value if name not in known]
        if unknown:
            raise ValueError(f"unknown format {', '.join(map(repr, unknown))} (available: {', '.join(known)})")
        return value


class PublishConfig(_Section):
    """One ``[[publish]]`` target: ``type`` names the publisher plugin; the other keys are its settings."""

    model_config = ConfigDict(extra="allow")

    type: str
    name: str | None = Field(
        default=None,
        min_length=1,
        description=(
            "The target's name in the delivery ledger and the logs; default: its type, numbered when "
            "several targets share one. Renaming a target makes it a new one, which is sent everything again."
        ),
    )

    @property
    def settings(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


class ContextConfig(_Section):
    budget_tokens: int = Field(default=6000, gt=0)
    max_patch_bytes: int = Field(default=1_000_000, gt=0)


class AnalyzerConfig(_Section):
    name: str = "auto"
    fallback: str = Field(default="heuristic", description="What judges a commit whose analysis failed.")
    # Each endpoint's own adaptive limit decides how many requests it gets; this only bounds the work held open.
    concurrency: int = Field(default=32, ge=1, le=256, description="Commits analysed at once.")


class RunConfig(_Section):
    # Git is slow on I/O (a mirror's fetch) and light on CPU, and analyses share [analyzer] concurrency,
    # so a few repositories at once keep both busy without one repository's history filling memory.
    repositories: int = Field(
        default=4, ge=1, le=64, description="Repositories `run` works on at once, each reading git in its own thread."
    )


class Config(_Section):
    """The whole configuration; a top-level table beyond these keys is a plugin's: an analyzer's, a context source's."""

    model_config = ConfigDict(extra="allow")

    timezone: str = "Asia/Shanghai"
    language: Literal["zh", "en"] = "zh"
    cache_dir: _PathText = ""
    templates_dir: _PathText = ""
    analyzer: AnalyzerConfig = Field(default_factory=AnalyzerConfig)
    run: RunConfig = Field(default_factory=RunConfig)
    output: OutputConfig = Field(default_factory=OutputConfig)
    context: ContextConfig = Field(default_factory=ContextConfig)
    publish: list[PublishConfig] = Field(
        default_factory=list, description="Delivery targets; none means the files publisher at [output]."
    )
    repos: list[RepoConfig] = Field(default_factory=list)

    @field_validator("repos")
    @classmethod
    def _one_entry_per_name(cls, value: list[RepoConfig]) -> list[RepoConfig]:
        # A name keys a repository's reports, files, ledger and cache: two entries sharing one
        # would overwrite each other's reports and send the same day twice.
        names = [repo.name for repo in value if repo.name]
        twice = sorted({name for name in names if names.count(name) > 1})
        if twice:
            raise ValueError(f"two [[repos]] entries are named {', '.join(map(repr, twice))}: give each its own `name`")
        return value

    @field_validator("timezone")
    @classmethod
    def _real_zone(cls, value: str) -> str:
        try:
            ZoneInfo(value)
        # OSError: a name that is a directory of the database ("Asia") or longer than a file name.
        except (ZoneInfoNotFoundError, ValueError, OSError):
            raise ValueError(f"unknown IANA timezone {value!r}") from None
        return value

    @property
    def tz(self) -> ZoneInfo:
        return ZoneInfo(self.timezone)

    @property
    def analyzer_name(self) -> str:
        """``auto``: the ready analyzer of highest rank; the LLM when an endpoint is configured, else the heuristic."""
        if self.analyzer.name != "auto":
            return self.analyzer.name
        plugins = registry()
        ready = [
            spec
            for spec in plugins.specs("analyzer").values()
            if spec.ready is not None
            and spec.ready(plugins.settings("analyzer", spec.name, self.plugin_table(spec.name), "config"))
        ]
        return max(ready, key=lambda spec: spec.rank).name if ready else self.analyzer.fallback

    def plugin_table(self, name: str) -> dict[str, Any]:
        """The top-level table named ``name`` (an analyzer's or context source's settings), empty if there is none."""
        table = (self.model_extra or {}).get(name, {})
        return dict(table) if isinstance(table, Mapping) else {}

    @property
    def targets(self) -> dict[str, PublishConfig]:
        """The delivery targets by name: their ``name``, else their type (``feishu``, ``feishu-2`` when shared)."""
        targets = self.publishers
        types = [target.type for target in targets]
        named: dict[str, PublishConfig] = {}
        for target in targets:
            if target.name:
                name = target.name
            elif types.count(target.type) > 1:
                name = f"{target.type}-{sum(1 for other in named.values() if other.type == target.type) + 1}"
            else:
                name = target.type
            if name in named:
                raise ConfigError(f"two [[publish]] targets are named {name!r}: give each its own `name`")
            named[name] = target
        return named

    @property
    def publishers(self) -> list[PublishConfig]:
        """Where reports go: the ``[[publish]]`` targets, or by default files at ``[output]``'s ``dir`` and ``path``."""
        return self.publish or [PublishConfig(type="files", dir=self.output.dir, path=self.output.path)]

    @property
    def cache_path(self) -> Path:
        if self.cache_dir:
            return expand_home(self.cache_dir)
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
    except (tomllib.TOMLDecodeError, RecursionError):  # nested past the parser's reach: no literal a key takes
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
        repo = RepoConfig(**fields)
    except ValidationError as exc:
        raise ConfigError(describe(exc, "command line")) from None
    registry().settings("source", repo.source, repo.source_settings, "command line")
    return repo


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
    for spec in registry().specs("analyzer").values():
        if spec.from_environment is not None:
            data[spec.name] = spec.from_environment(dict(data.get(spec.name) or {}), environ)
    where = source if not env_layer else f"{source} (with {ENV_PREFIX}* environment overrides)"
    if (key := _non_finite(data)) is not None:
        raise ConfigError(f"{where}: {key}: must be a finite number, not inf or nan")
    config = _validated(data, where)
    if overrides:
        config = _validated(merge(config.model_dump(), overrides), "command line")
    return config


def _non_finite(node: Any, at: str = "") -> str | None:
    """The key of the first ``inf`` or ``nan`` in ``node``, if any: TOML spells both, and no setting takes either.

    A deadline or a wait of ``inf`` would let a silent server hold the run for ever;
    NaN passes every bound (``nan > limit`` is false).
    """
    if isinstance(node, float) and not math.isfinite(node):
        return at.removesuffix(".")
    items = node.items() if isinstance(node, dict) else enumerate(node) if isinstance(node, list) else ()
    for key, value in items:
        if (found := _non_finite(value, f"{at}{key}.")) is not None:
            return found
    return None


def _validated(data: dict[str, Any], where: str) -> Config:
    """``data`` as a Config whose every plugin table its plugin has checked; errors name ``where`` and the key."""
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(describe(exc, where)) from None
    plugins = registry()
    analyzers, contexts = plugins.names("analyzer"), plugins.names("context")
    for key in config.model_extra or {}:
        kind: Kind = "analyzer" if key in analyzers else "context"
        if key not in analyzers and key not in contexts:
            raise ConfigError(f"{where}: {key}: unknown key")
        plugins.settings(kind, key, config.plugin_table(key), where, at=f"{key}.")
    for key in ("name", "fallback"):
        name = getattr(config.analyzer, key)
        if name != "auto" or key == "fallback":
            plugins.get("analyzer", name)
    for index, repo in enumerate(config.repos):
        plugins.settings("source", repo.source, repo.source_settings, where, at=f"repos.{index}.")
    config.targets  # noqa: B018 - names every target, refusing two with one name
    for index, target in enumerate(config.publishers):
        # Without [[publish]], the default target is files at [output], and its errors name [output]'s keys.
        at = f"publish.{index}." if config.publish else "output."
        plugins.settings("publisher", target.type, target.settings, where, at=at)
    return config
