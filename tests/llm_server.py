"""The ``llm_server`` fixture: the real local llama.cpp server, once per test session.

The project installs it for tests, so a missing server fails the run rather than
skipping the LLM tests.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from local_llm_server import MODEL_ALIAS, ServerUnavailable, llama_server


@dataclass(frozen=True)
class LLMServer:
    """Where the server listens (up to ``/v1``) and the model id it reports."""

    base_url: str
    model: str


@pytest.fixture(scope="session")
def llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LLMServer]:
    log = tmp_path_factory.mktemp("llm-server") / "server.log"
    try:
        with llama_server(log) as base_url:
            yield LLMServer(base_url=base_url, model=MODEL_ALIAS)
    except ServerUnavailable as exc:
        pytest.fail(str(exc))
