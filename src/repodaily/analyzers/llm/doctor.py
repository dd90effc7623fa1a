"""Check an endpoint before trusting a morning's reports to it.

For each configured endpoint: is it reachable, does it accept our credentials,
does it list the configured model, which structured-output mode works, how
long one small call takes, and how many requests the server says it runs at
once (the ceiling of the analyzer's adaptive concurrency). Every check runs the same client code the analyzer
uses, so what passes here is what the analyzer will meet — except retries: each
check is asked once, under the endpoint's deadline for the whole answer, so a
dead or trickling endpoint costs doctor one deadline per check it reaches, not
the analyzer's ladder of retries and backoff.
"""

from __future__ import annotations

import time
from collections.abc import Mapping

import httpx
from pydantic import BaseModel

from repodaily.analyzers.llm.client import ChatClient
from repodaily.analyzers.llm.prompts import Prompts
from repodaily.analyzers.llm.settings import EndpointSettings
from repodaily.analyzers.llm.structured import ask
from repodaily.errors import AnalysisError, AuthError
from repodaily.models import Usage

__all__ = ["EndpointHealth", "check_endpoint"]

# A health check, not an analysis: the smallest request that exercises structured output.
_PING = [
    {"role": "system", "content": 'Answer with the JSON object {"ok": true} and nothing else.'},
    {"role": "user", "content": "Are you there?"},
]


class _Pong(BaseModel):
    ok: bool


class EndpointHealth(BaseModel):
    """What ``doctor`` found out about one endpoint; ``problem`` says what failed first."""

    name: str
    base_url: str
    model: str
    reachable: bool = False
    authenticated: bool | None = None
    model_listed: bool | None = None
    output_mode: str | None = None
    latency_s: float | None = None
    completion_tokens: int | None = None
    server_slots: int | None = None
    problem: str = ""

    @property
    def ok(self) -> bool:
        return not self.problem


async def check_endpoint(
    settings: EndpointSettings, *, environ: Mapping[str, str], transport: httpx.AsyncBaseTransport | None = None
) -> EndpointHealth:
    """Run every check against one endpoint; a failed check stops the ones after it."""
    health = EndpointHealth(name=settings.name, base_url=settings.base_url, model=settings.model)
    quick = settings.model_copy(update={"max_retries": 0, "max_tokens": 32})
    client = ChatClient(quick, environ=environ, transport=transport)
    try:
        try:
            models = await client.list_models()
        except AuthError as exc:
            health.reachable, health.authenticated, health.problem = True, False, str(exc)
            return health
        except AnalysisError as exc:
            health.problem = str(exc)
            return health
        health.reachable = True
        health.authenticated = True
        # Not every provider lists models (a 404 gives None): only a list without ours is a problem.
        health.model_listed = None if models is None else settings.model in models
        if health.model_listed is False:
            health.problem = f"{settings.name}: model {settings.model!r} is not among the {len(models or [])} listed"
            return health
        usage = Usage()
        started = time.monotonic()
        try:
            await ask(client, list(_PING), _Pong, prompts=Prompts("en"), usage=usage)
        except AnalysisError as exc:
            health.authenticated = False if isinstance(exc, AuthError) else health.authenticated
            health.problem = str(exc)
            return health
        health.latency_s = round(time.monotonic() - started, 3)
        health.completion_tokens = usage.completion_tokens
        health.output_mode = client.output_mode.value
        health.server_slots = await client.server_slots()
        return health
    finally:
        await client.aclose()
