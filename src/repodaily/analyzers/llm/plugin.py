"""The ``llm`` analyzer as a plugin: settings from ``[llm]``, health for ``doctor``, ``auto`` when configured."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from repodaily.analyzers.base import Analyzer
from repodaily.analyzers.llm.settings import LLMConfig, settings_from_env
from repodaily.hookspecs import Register, hookimpl
from repodaily.plugins import Health, PluginSpec

__all__ = ["create", "health"]


def create(*, settings: LLMConfig, language: Literal["zh", "en"], budget_tokens: int, **_context: object) -> Analyzer:
    """An LLM analyzer over the configured endpoints; one prompt carries ``budget_tokens`` of diff."""
    from repodaily.analyzers.llm.analyzer import LLMAnalyzer

    return LLMAnalyzer(
        settings=settings.analyzer_settings(language=language, budget_tokens=budget_tokens),
        highlights=settings.highlights,
    )


def _from_environment(table: dict[str, Any], environ: Mapping[str, str]) -> dict[str, Any]:
    """Without configured endpoints, the replaced tool's ``LLM_MODEL`` / ``LLM_BASE_URL`` / ``LLM_API_KEY`` make one."""
    if table.get("endpoints"):
        return table
    from_env = settings_from_env(environ)
    if from_env is None:
        return table
    # Only what the variables set: a default left unset may still give way to what the server says.
    return {**table, "endpoints": [endpoint.model_dump(exclude_unset=True) for endpoint in from_env.endpoints]}


async def health(settings: LLMConfig, environ: Mapping[str, str]) -> list[Health]:
    """Each endpoint checked as the analyzer would meet it: reachable, auth, model listed, output mode, latency,
    and the requests the server says it runs at once."""
    from repodaily.analyzers.llm.doctor import check_endpoint

    mark = {True: "yes", False: "NO", None: "?"}
    rows = []
    for endpoint in settings.endpoints:
        found = await check_endpoint(endpoint, environ=environ)
        checks = {
            "model": found.model,
            "reachable": mark[found.reachable],
            "auth": mark[found.authenticated],
            "model listed": mark[found.model_listed],
            "output mode": found.output_mode or "-",
            "latency": f"{found.latency_s:.2f} s" if found.latency_s is not None else "-",
            "server slots": str(found.server_slots) if found.server_slots is not None else "-",
        }
        rows.append(Health(target=found.name, ok=found.ok, checks=checks, problem=found.problem))
    return rows


@hookimpl
def register_analyzers(register: Register) -> None:
    register(
        PluginSpec(
            "llm",
            create,
            settings=LLMConfig,
            description="any OpenAI-compatible model",
            health=health,
            from_environment=_from_environment,
            ready=lambda settings: bool(settings.endpoints),
            rank=10,
        )
    )
