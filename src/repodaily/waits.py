"""The waits an HTTP server asks for: ``Retry-After`` and the ``x-ratelimit-*`` headers.

Shared by every client that talks to a service with limits — the LLM endpoints,
the chat platforms, GitHub — so they all read a server's answer the same way:
``Retry-After`` in seconds or as an HTTP date (measured on the server's clock),
and the ``x-ratelimit-remaining-*``/``x-ratelimit-reset-*`` pairs that OpenAI,
DeepSeek, Groq and others send on every answer.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from datetime import datetime
from email.utils import parsedate_to_datetime

__all__ = ["parse_duration", "server_wait"]

_DURATION_PART = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNIT_SECONDS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_LIMIT_KINDS = ("requests", "tokens")


def parse_duration(text: str) -> float | None:
    """Seconds from ``"20"``, ``"0.5s"``, ``"120ms"`` or ``"6m0s"`` (the forms providers send); None if unreadable.

    ``nan``, ``inf`` and numbers past a float (``1e400``) are no wait a clock can
    end: a wait of NaN passes every bound unnoticed, an infinite one holds forever.
    """
    text = text.strip()
    try:
        seconds = float(text)
    except ValueError:
        pass
    else:
        return max(seconds, 0.0) if math.isfinite(seconds) else None
    parts = _DURATION_PART.findall(text)
    if not parts or "".join(number + unit for number, unit in parts) != text:
        return None
    return sum(float(number) * _UNIT_SECONDS[unit] for number, unit in parts)


def _retry_after(headers: Mapping[str, str]) -> float | None:
    value = headers.get("retry-after")
    if value is None:
        return None
    seconds = parse_duration(value)
    if seconds is not None:
        return seconds
    try:
        moment = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    # Measured against the server's own clock when it sends one: our clock may be off.
    reference = _http_date(headers.get("date")) or datetime.now(moment.tzinfo)
    return max((moment - reference).total_seconds(), 0.0)


def _http_date(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        return parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None


def server_wait(headers: Mapping[str, str], *, refused: bool) -> float | None:
    """How long the server asks us to hold off, in seconds, or None when it does not say.

    After a refused request (429, 503) ``Retry-After`` wins; failing that, the
    reset of every exhausted limit (or of every limit, when the server gives no
    remaining counts). After an accepted one, only limits that reached zero count.
    """
    if refused and (seconds := _retry_after(headers)) is not None:
        return seconds
    waits = []
    for kind in _LIMIT_KINDS:
        reset = headers.get(f"x-ratelimit-reset-{kind}")
        remaining = headers.get(f"x-ratelimit-remaining-{kind}")
        if reset is None or (seconds := parse_duration(reset)) is None:
            continue
        exhausted = remaining is not None and remaining.strip() in ("0", "0.0")
        if exhausted or (remaining is None and refused):
            waits.append(seconds)
    return max(waits) if waits else None
