"""OpenAI's Files and Batches endpoints, for ``submit``, ``status`` and ``collect``.

Four requests: upload a file (``POST /files``, multipart, ``purpose=batch``),
create a batch from it (``POST /batches``: the file, the chat-completions
endpoint, a 24 h window), read a batch (``GET /batches/{id}``; listed with
``GET /batches`` to find one created by a run that died before it heard back),
and download a file (``GET /files/{id}/content``). A dropped connection, a 429
or a 5xx is tried again a few times, after the wait the server asks for
(``Retry-After``) or a growing one — except the creation of a batch, whose lost
answer may hide a batch made all the same; what still fails is
one :class:`~repodaily.errors.ProviderError` naming the request, never the key
(:class:`~repodaily.errors.AuthError` for 401/403).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import IO, Any
from urllib.parse import quote

import httpx

from repodaily import json_input
from repodaily.analyzers.base import BatchEndpoint
from repodaily.batch.lines import CHAT_COMPLETIONS
from repodaily.errors import AuthError, ProviderError
from repodaily.redact import Redactor

__all__ = ["ATTEMPTS", "BatchAPI"]

#: Tries of one request before its failure is reported.
ATTEMPTS = 4
_FIRST_WAIT_S = 1.0
_MAX_WAIT_S = 60.0
_TIMEOUT = httpx.Timeout(60.0, connect=10.0, write=300.0)  # an upload of 100 MB takes a while
_LIST_PAGES = 10  # batches listed at most, 100 a page, when looking for one a dead run created
_DETAIL_CHARS = 200
_ERROR_BODY_BYTES = 64 * 1024  # an error's explanation is short; a hostile one is not read on


class _Again(Exception):
    """A failure that may pass (a dropped connection, 429, 5xx); ``wait_s``: what the server asked to wait."""

    def __init__(self, message: str, wait_s: float | None = None) -> None:
        super().__init__(message)
        self.wait_s = wait_s


def _retry_after(response: httpx.Response) -> float | None:
    """The seconds a ``Retry-After`` header asks for, when it gives a number."""
    try:
        return max(0.0, float(response.headers["retry-after"]))
    except (KeyError, ValueError):
        return None


class BatchAPI:
    """The Files and Batches endpoints under ``endpoint.base_url``; the key read from the environment once."""

    def __init__(
        self,
        endpoint: BatchEndpoint,
        environ: Mapping[str, str],
        *,
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        secret = environ.get(endpoint.api_key_env) or None
        headers = dict(endpoint.headers)
        if secret:
            headers["Authorization"] = f"Bearer {secret}"
        self._redact = Redactor([secret] if secret else [])
        self._http = httpx.Client(
            base_url=endpoint.base_url, headers=headers, timeout=_TIMEOUT, transport=transport, trust_env=False
        )
        self._sleep = sleep

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> BatchAPI:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def upload(self, name: str, data: bytes) -> str:
        """The id of the file ``data`` uploaded as ``name`` for a batch."""
        files = {"file": (name, data, "application/jsonl")}
        answer = self._json("POST", "/files", data={"purpose": "batch"}, files=files)
        return str(answer["id"])

    def create(self, file_id: str, metadata: Mapping[str, str]) -> dict[str, Any]:
        """The batch object of a new batch over the uploaded ``file_id``."""
        payload = {
            "input_file_id": file_id,
            "endpoint": CHAT_COMPLETIONS,
            "completion_window": "24h",
            "metadata": dict(metadata),
        }
        # Not tried again: a batch whose answer was lost may exist; the next submit looks for it (created_from).
        return self._json("POST", "/batches", attempts=1, json=payload)

    def get(self, batch_id: str) -> dict[str, Any]:
        return self._json("GET", f"/batches/{quote(batch_id, safe='')}")

    def created_from(self, file_id: str) -> dict[str, Any] | None:
        """The batch already created over ``file_id``, if any: what a run that died before hearing back made."""
        after: str | None = None
        for _ in range(_LIST_PAGES):
            page = self._json("GET", "/batches", params={"limit": 100, **({"after": after} if after else {})})
            batches = page.get("data") or []
            found = next((b for b in batches if isinstance(b, dict) and b.get("input_file_id") == file_id), None)
            if found is not None or not page.get("has_more") or not batches:
                return found
            after = str(batches[-1].get("id"))
        return None

    def download(self, file_id: str, sink: IO[bytes]) -> None:
        """File ``file_id`` (a batch's output or error file) written to ``sink`` as it arrives.

        An output file of 50,000 answers runs to hundreds of megabytes: held whole
        in memory, it would cost its size twice over. A try that fails midway is
        started again from an emptied ``sink``.
        """
        self._send("GET", f"/files/{quote(file_id, safe='')}/content", sink=sink)

    def _json(self, method: str, path: str, *, attempts: int = ATTEMPTS, **kwargs: Any) -> dict[str, Any]:
        response = self._send(method, path, attempts=attempts, **kwargs)
        try:
            answer = json_input.loads(response.content)
        except ValueError:
            answer = None
        if not isinstance(answer, dict):
            raise ProviderError(f"{method} {path}: the answer is not a JSON object")
        return answer

    def _send(
        self, method: str, path: str, *, attempts: int = ATTEMPTS, sink: IO[bytes] | None = None, **kwargs: Any
    ) -> httpx.Response:
        backoff = _FIRST_WAIT_S
        for attempt in range(1, attempts + 1):
            try:
                with self._foreign_errors(method, path):
                    return self._once(method, path, sink, **kwargs)
            except _Again as exc:
                if attempt == attempts:
                    tries = f" (after {attempts} attempts)" if attempts > 1 else ""
                    raise ProviderError(f"{method} {path}: {exc}{tries}") from None
                self._sleep(backoff if exc.wait_s is None else min(exc.wait_s, _MAX_WAIT_S))
            backoff *= 2
        raise AssertionError("unreachable")  # pragma: no cover

    def _once(self, method: str, path: str, sink: IO[bytes] | None, **kwargs: Any) -> httpx.Response:
        """One try; a successful body read whole, or into ``sink``; an error's body read up to a few kilobytes."""
        with self._http.stream(method, path, **kwargs) as response:
            status = response.status_code
            if status < 400:
                if sink is None:
                    response.read()
                else:
                    sink.seek(0)
                    sink.truncate()
                    for chunk in response.iter_bytes():
                        sink.write(chunk)
                return response
            body = b""
            for chunk in response.iter_bytes():
                body += chunk
                if len(body) >= _ERROR_BODY_BYTES:
                    break
        detail = self._detail(body[:_ERROR_BODY_BYTES])
        if status in (401, 403):
            raise AuthError(f"{method} {path}: HTTP {status}: the key in the endpoint's api_key_env is refused{detail}")
        if status == 429 or status >= 500:
            raise _Again(f"HTTP {status}{detail}", _retry_after(response))
        raise ProviderError(f"{method} {path}: HTTP {status}{detail}")

    def _detail(self, body: bytes) -> str:
        try:
            error = json_input.loads(body).get("error")
            message = error.get("message") if isinstance(error, dict) else error
        except (ValueError, AttributeError):
            message = body.decode("utf-8", "replace")
        text = " ".join(str(message or "").split())[:_DETAIL_CHARS]
        return f": {self._redact(text)}" if text else ""

    @contextmanager
    def _foreign_errors(self, method: str, path: str) -> Iterator[None]:
        try:
            yield
        except (httpx.TimeoutException, httpx.NetworkError, httpx.RemoteProtocolError) as exc:
            raise _Again(f"connection failed ({type(exc).__name__})") from exc
        except httpx.HTTPError as exc:
            raise ProviderError(f"{method} {path}: {type(exc).__name__}: {self._redact(str(exc))}") from exc
