"""The ``llm`` analyzer: commits judged by any OpenAI-compatible endpoint, against the rubric.

::

    settings     EndpointSettings, LLMConfig, LLMSettings, settings_from_env: what to ask, how hard
    client       ChatClient: one endpoint over httpx; retries, limits, our errors only
    limits       request/token budgets and the waits a server asks for
    schema       LLMVerdict and the other reply models; the importance overrides
    prompts      the Jinja2 prompt files (zh, en) and prompt_digest, their content hash
    structured   output-mode negotiation, validation, the repair round
    analyzer     LLMAnalyzer
    doctor       the endpoint checks of ``repodaily doctor``
    plugin       the registration, as ``llm``

The names below are imported on first use (PEP 562), so loading the plugin
registry, which reads :mod:`.plugin` and :mod:`.settings`, costs no HTTP client
and no template engine until an LLM analyzer is made.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "ChatClient": "client",
    "EndpointSettings": "settings",
    "LLMAnalyzer": "analyzer",
    "LLMConfig": "settings",
    "LLMSettings": "settings",
    "LLMVerdict": "schema",
    "OutputMode": "client",
    "prompt_digest": "prompts",
    "settings_from_env": "settings",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(importlib.import_module(f"{__name__}.{_EXPORTS[name]}"), name)
