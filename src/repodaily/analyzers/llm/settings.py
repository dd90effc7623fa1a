"""Settings of the LLM analyzer: which endpoints to ask, and how hard.

They are plain value objects that a config table validates into (unknown keys
are errors, so a typo cannot silently fall back to a default). The API key is
deliberately *not* a setting: an endpoint names the environment variable that
holds it, and the client reads that variable when it is created, so the key
never lands in a config dump, a cache key, a log line or an error message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from repodaily.errors import ConfigError
from repodaily.tables import describe

__all__ = ["DEFAULT_BASE_URL", "EndpointSettings", "LLMConfig", "LLMSettings", "settings_from_env"]

#: Where ``LLM_MODEL`` alone points, as in the tool these variables come from.
DEFAULT_BASE_URL = "https://api.openai.com/v1"


class _Settings(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EndpointSettings(_Settings):
    """One OpenAI-compatible endpoint and model, with its limits."""

    name: str = Field(min_length=1, description="Label for logs and `doctor`; unique among the endpoints.")
    base_url: str = Field(min_length=1, description="Up to and including `/v1`; `/chat/completions` is appended.")
    model: str = Field(min_length=1)
    api_key_env: str = Field(
        default="LLM_API_KEY", description="Environment variable holding the key; unset means no Authorization header."
    )
    # Left out of repr: a header may carry a credential.
    headers: dict[str, str] = Field(default_factory=dict, description="Extra request headers.", repr=False)
    temperature: float = Field(default=0.2, ge=0, le=2)
    max_tokens: int = Field(default=1200, gt=0, description="Completion tokens per call.")
    max_tokens_limit: int = Field(
        default=4096, gt=0, description="Ceiling for the doubled max_tokens of the retry after a cut-off reply."
    )
    timeout_s: float = Field(
        default=30, gt=0, description="Deadline of a small request, all told: connect, send and the whole answer."
    )
    timeout_per_1k_prompt_tokens_s: float = Field(
        default=5, ge=0, description="Added per 1,000 prompt tokens: big prompts take longer to read."
    )
    timeout_max_s: float = Field(default=300, gt=0)
    concurrency: int = Field(
        default=8,
        ge=1,
        description=(
            "Requests in flight at most; fewer while answers show a queue. Left unset, the slots the server "
            "reports (llama.cpp's /props) take its place."
        ),
    )
    requests_per_minute: int = Field(default=0, ge=0, description="0: unlimited.")
    tokens_per_minute: int = Field(default=0, ge=0, description="Prompt plus completion tokens; 0: unlimited.")
    max_retries: int = Field(default=4, ge=0, description="Retries of a timeout, reset, 429 or 5xx.")
    max_response_bytes: int = Field(
        default=4_000_000,
        gt=0,
        description="Response bodies are read into memory up to this; a bigger one is an error, not retried.",
    )

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        # Refused here, not by the first request of every commit (each one degraded); the message
        # leaves the value out, since its user:password@ may be the key and no redactor knows it yet.
        try:
            parts = urlsplit(value)
            parts.port  # noqa: B018 - reading it checks it
        except ValueError:
            raise ValueError("not a URL") from None
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("not an http(s) URL with a host")
        return value.rstrip("/")

    def timeout_for(self, prompt_tokens: int) -> float:
        """The deadline of one request, in seconds: connecting, sending and the whole answer, all told.

        A total, not a per-read timeout, so a server trickling its answer cannot
        stretch it. Reading a long prompt is part of the answer time.
        """
        scaled = self.timeout_s + self.timeout_per_1k_prompt_tokens_s * prompt_tokens / 1000
        return min(scaled, max(self.timeout_max_s, self.timeout_s))


class LLMSettings(_Settings):
    """The endpoints in the order they are tried, and what one commit may cost."""

    endpoints: list[EndpointSettings] = Field(min_length=1, description="The primary first, then the fallbacks.")
    language: Literal["zh", "en"] = "zh"
    budget_tokens: int = Field(
        default=6000, gt=0, description="Diff tokens one prompt carries; more than this is map-reduced."
    )
    max_calls_per_commit: int = Field(
        default=4, ge=1, description="Chunk summaries plus the final call; beyond it, what fits is analysed."
    )

    @model_validator(mode="after")
    def _unique_names(self) -> LLMSettings:
        names = [endpoint.name for endpoint in self.endpoints]
        duplicates = sorted({name for name in names if names.count(name) > 1})
        if duplicates:
            raise ValueError(f"endpoint names must be unique, repeated: {', '.join(duplicates)}")
        return self


class LLMConfig(_Settings):
    """The ``[llm]`` table of the config: the plugin's own settings, validated strictly."""

    endpoints: list[EndpointSettings] = Field(default_factory=list)
    max_calls_per_commit: int = Field(default=4, ge=1)
    highlights: bool = True

    def analyzer_settings(self, *, language: Literal["zh", "en"], budget_tokens: int) -> LLMSettings:
        """What the analyzer runs with: these endpoints, the report's language, one prompt's budget."""
        if not self.endpoints:
            raise ConfigError("the llm analyzer needs an endpoint: add [[llm.endpoints]] or set LLM_MODEL")
        return LLMSettings(
            endpoints=self.endpoints,
            language=language,
            budget_tokens=budget_tokens,
            max_calls_per_commit=self.max_calls_per_commit,
        )


def settings_from_env(environ: Mapping[str, str], *, language: Literal["zh", "en"] = "zh") -> LLMSettings | None:
    """One endpoint from ``LLM_BASE_URL``/``LLM_MODEL``/``LLM_API_KEY``, the replaced tool's variables.

    None when neither ``LLM_MODEL`` nor ``LLM_BASE_URL`` is set (no LLM configured);
    ``LLM_MODEL`` alone means OpenAI. The key stays in the environment: the
    endpoint only names ``LLM_API_KEY``.
    """
    model = environ.get("LLM_MODEL", "").strip()
    base_url = environ.get("LLM_BASE_URL", "").strip()
    if not model and not base_url:
        return None
    if not model:
        raise ConfigError("LLM_BASE_URL is set but LLM_MODEL is not: name the model to ask")
    try:
        endpoint = EndpointSettings(name="env", base_url=base_url or DEFAULT_BASE_URL, model=model)
    except ValidationError as exc:
        raise ConfigError(describe(exc, "LLM_BASE_URL/LLM_MODEL")) from None
    return LLMSettings(endpoints=[endpoint], language=language)
