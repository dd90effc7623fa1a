"""TOML tables layered over each other: what configuration and rule tables share.

Both the configuration (default < file < environment < flags) and the heuristic
rule table (packaged < a repository's conventions) are dictionaries read from
TOML, merged key by key and validated by a strict model; errors must name where
the bad value came from.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from repodaily.errors import ConfigError
from repodaily.home import expand_home
from repodaily.user_files import open_regular

_ERRORS_SHOWN = 3
# Far above any config or conventions file; a path naming a device that never ends (/dev/zero) stops here.
_MAX_TOML_BYTES = 4 * 1024 * 1024


def read_toml(path: Path, source: str) -> dict[str, Any]:
    """The table in ``path``; a missing, unreadable or malformed file is a ConfigError naming ``source``."""
    try:
        with open_regular(expand_home(path)) as handle:
            data = handle.read(_MAX_TOML_BYTES + 1)
        if len(data) > _MAX_TOML_BYTES:
            raise ConfigError(f"{source}: larger than {_MAX_TOML_BYTES // (1024 * 1024)} MB: not a config file")
        return tomllib.loads(data.decode("utf-8"))
    except FileNotFoundError:
        raise ConfigError(f"{source}: file not found") from None
    except OSError as exc:
        raise ConfigError(f"{source}: cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{source}: not UTF-8 (byte 0x{exc.object[exc.start]:02x} at offset {exc.start})") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{source}: not valid TOML: {exc}") from None
    except RecursionError:  # arrays or inline tables nested thousands deep: no config is
        raise ConfigError(f"{source}: not valid TOML: nested too deeply") from None


def merge(base: dict[str, Any], override: Mapping[str, Any]) -> dict[str, Any]:
    """``override`` over ``base``: tables merge key by key, any other value replaces."""
    merged = dict(base)
    for key, value in override.items():
        if isinstance(value, Mapping) and isinstance(merged.get(key), dict):
            merged[key] = merge(merged[key], value)
        else:
            merged[key] = value
    return merged


def describe(error: ValidationError, source: str, *, at: str = "") -> str:
    """One line: where, which keys (under ``at``, a table's own key path), what is wrong with them.

    An unknown key says so.
    """
    problems = []
    for item in error.errors()[:_ERRORS_SHOWN]:
        key = at + ".".join(str(part) for part in item["loc"]) if item["loc"] else at.rstrip(".") or "(top level)"
        message = "unknown key" if item["type"] == "extra_forbidden" else item["msg"]
        problems.append(f"{key}: {message}")
    more = error.error_count() - _ERRORS_SHOWN
    return f"{source}: " + "; ".join(problems) + (f" (and {more} more)" if more > 0 else "")
