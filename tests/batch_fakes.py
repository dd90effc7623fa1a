"""A local fake of OpenAI's Files, Batches and Chat Completions endpoints: a real HTTP server on 127.0.0.1.

It answers with the shapes OpenAI documents — a file object, a batch object
whose status goes validating → in_progress → completed (or expired) one read
at a time, with ``request_counts`` and ``output_file_id``/``error_file_id`` —
and checks what the platform checks: the bearer key on every request,
``purpose=batch`` on an upload, the endpoint and window of a batch, the url of
each line. Every answer is the fake model's (:mod:`fake_model`), in the output
file in reverse order. Knobs make it fail as a provider does: uploads answered
503, a batch creation whose answer is lost, an expired batch with half its
results, requests sent to the error file, a synchronous call that hangs.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import threading
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any

from endpoint_simulator import HttpRequest, LoopbackHttpServer, openai_error, write_json, write_response
from fake_model import completion

KEY = "sk-batch-test-7d1c9e0b5a3f4e2d8c6b"
_CREATED = 1767225600


def _multipart(request: HttpRequest) -> dict[str, tuple[str | None, bytes]]:
    """The fields of a multipart/form-data body: name → (filename, bytes)."""
    head = f"Content-Type: {request.headers.get('content-type', '')}\r\n\r\n".encode()
    message = BytesParser(policy=HTTP).parsebytes(head + request.body)
    fields = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        fields[str(name)] = (part.get_filename(), part.get_payload(decode=True) or b"")
    return fields


class FakeOpenAI(LoopbackHttpServer):
    """The fake; ``uploads``, ``created`` and ``chat`` count what it did, ``release`` ends a hang."""

    def __init__(
        self,
        *,
        fail_uploads: int = 0,
        lose_create_answers: int = 0,
        expire: bool = False,
        error_ids: frozenset[str] = frozenset(),
        hang_after: int | None = None,
        error_message: str = "The model failed to answer.",
    ) -> None:
        super().__init__()
        self.fail_uploads = fail_uploads
        self.lose_create_answers = lose_create_answers
        self.expire = expire
        self.error_ids = error_ids
        self.hang_after = hang_after
        self.error_message = error_message
        self.release = threading.Event()
        self.files: dict[str, tuple[str, bytes]] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self._inputs: dict[str, list[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self.uploads = 0
        self.created = 0
        self.chat = 0  # synchronous chat completions asked
        self.chat_requests: list[HttpRequest] = []
        #: Synchronous chat completions are refused (404: the model is not served there).
        self.refuse_chat = False
        self.refused = 0  # requests without the right key

    @property
    def base_url(self) -> str:
        return f"{self.origin}/v1"

    async def _respond(self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        if request.headers.get("authorization") != f"Bearer {KEY}":
            self.refused += 1
            await write_json(writer, 401, openai_error(401, "Incorrect API key provided."))
            return
        path = request.path.split("?", 1)[0]
        parts = path.strip("/").split("/")
        if (request.method, path) == ("POST", "/v1/chat/completions"):
            await self._chat(request, writer)
        elif (request.method, path) == ("POST", "/v1/files"):
            await self._upload(request, writer)
        elif (request.method, path) == ("POST", "/v1/batches"):
            await self._create(request, writer)
        elif (request.method, path) == ("GET", "/v1/batches"):
            listed = sorted(self.batches.values(), key=lambda b: b["id"], reverse=True)
            await write_json(writer, 200, {"object": "list", "data": listed, "has_more": False})
        elif request.method == "GET" and parts[:2] == ["v1", "batches"] and len(parts) == 3:
            await self._poll(parts[2], writer)
        elif request.method == "GET" and parts[:2] == ["v1", "files"] and parts[3:] == ["content"]:
            found = self.files.get(parts[2])
            if found is None:
                await write_json(writer, 404, openai_error(404, f"No such File object: {parts[2]}"))
            else:
                await write_response(writer, 200, found[1], [("Content-Type", "application/octet-stream")])
        else:
            await write_json(writer, 404, openai_error(404, f"no route {request.method} {path}"))

    async def _chat(self, request: HttpRequest, writer: asyncio.StreamWriter) -> None:
        self.chat += 1
        self.chat_requests.append(request)
        if self.refuse_chat:
            await write_json(writer, 404, openai_error(404, "The model does not exist."))
            return
        if self.hang_after is not None and self.chat > self.hang_after:
            while not self.release.is_set():
                await asyncio.sleep(0.05)
        await write_json(writer, 200, completion(request.json(), number=self.chat))

    async def _upload(self, request: HttpRequest, writer: asyncio.StreamWriter) -> None:
        if self.fail_uploads:
            self.fail_uploads -= 1
            await write_json(writer, 503, openai_error(503, "The server is overloaded."), [("Retry-After", "0")])
            return
        fields = _multipart(request)
        if fields.get("purpose", (None, b""))[1] != b"batch" or "file" not in fields:
            await write_json(writer, 400, openai_error(400, "purpose must be 'batch' and a file is required"))
            return
        name, data = fields["file"]
        file_id = f"file-{next(self._ids):06d}"
        self.files[file_id] = (name or "upload.jsonl", data)
        self.uploads += 1
        await write_json(writer, 200, self._file_object(file_id, "batch"))

    def _file_object(self, file_id: str, purpose: str) -> dict[str, Any]:
        name, data = self.files[file_id]
        return {
            "id": file_id,
            "object": "file",
            "bytes": len(data),
            "created_at": _CREATED,
            "filename": name,
            "purpose": purpose,
            "status": "processed",
        }

    async def _create(self, request: HttpRequest, writer: asyncio.StreamWriter) -> None:
        body = request.json() or {}
        file_id = body.get("input_file_id")
        if file_id not in self.files or body.get("endpoint") != "/v1/chat/completions":
            await write_json(writer, 400, openai_error(400, "unknown input_file_id or unsupported endpoint"))
            return
        if body.get("completion_window") != "24h":
            await write_json(writer, 400, openai_error(400, "completion_window must be 24h"))
            return
        lines = [json.loads(line) for line in self.files[file_id][1].splitlines() if line]
        if any(line.get("url") != "/v1/chat/completions" or line.get("method") != "POST" for line in lines):
            await write_json(writer, 400, openai_error(400, "every line must POST /v1/chat/completions"))
            return
        batch_id = f"batch_{next(self._ids):06d}"
        self._inputs[batch_id] = lines
        self.batches[batch_id] = {
            "id": batch_id,
            "object": "batch",
            "endpoint": "/v1/chat/completions",
            "errors": None,
            "input_file_id": file_id,
            "completion_window": "24h",
            "status": "validating",
            "output_file_id": None,
            "error_file_id": None,
            "created_at": _CREATED,
            "request_counts": {"total": 0, "completed": 0, "failed": 0},
            "metadata": body.get("metadata") or {},
        }
        self.created += 1
        if self.lose_create_answers:
            self.lose_create_answers -= 1
            await write_json(writer, 502, openai_error(502, "Bad gateway."))
            return
        await write_json(writer, 200, self.batches[batch_id])

    async def _poll(self, batch_id: str, writer: asyncio.StreamWriter) -> None:
        batch = self.batches.get(batch_id)
        if batch is None:
            await write_json(writer, 404, openai_error(404, f"No batch found with id '{batch_id}'."))
            return
        lines = self._inputs[batch_id]
        if batch["status"] == "validating":
            batch["status"] = "in_progress"
            batch["request_counts"] = {"total": len(lines), "completed": 0, "failed": 0}
        elif batch["status"] == "in_progress":
            self._finish(batch, lines)
        await write_json(writer, 200, batch)

    def _finish(self, batch: dict[str, Any], lines: list[dict[str, Any]]) -> None:
        answered = lines[: len(lines) // 2] if self.expire else lines
        output, errors = [], []
        for number, line in enumerate(reversed(answered), start=1):
            request_id = f"req_{batch['id']}_{number}"
            if line["custom_id"] in self.error_ids:
                error = {"code": "server_error", "message": self.error_message}
                errors.append(
                    {"id": f"batch_req_{number}", "custom_id": line["custom_id"], "response": None, "error": error}
                )
                continue
            body = completion(line["body"], number=number)
            response = {"status_code": 200, "request_id": request_id, "body": body}
            output.append(
                {"id": f"batch_req_{number}", "custom_id": line["custom_id"], "response": response, "error": None}
            )
        for key, rows in (("output_file_id", output), ("error_file_id", errors)):
            if rows:
                file_id = f"file-{next(self._ids):06d}"
                self.files[file_id] = (
                    f"{batch['id']}_{key}.jsonl",
                    "".join(json.dumps(r) + "\n" for r in rows).encode(),
                )
                batch[key] = file_id
        batch["status"] = "expired" if self.expire else "completed"
        batch["request_counts"] = {"total": len(lines), "completed": len(output), "failed": len(errors)}
