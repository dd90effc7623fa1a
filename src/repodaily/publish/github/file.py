"""The ``github-file`` publisher: each artefact committed into a repository through the Contents API.

Why the Contents API rather than a clone and a push: nothing to clone (a
reports repository grows by a file a day, for years), one request per file, no
git or SSH key on the machine, and it works with a fine-grained token granted
"Contents: write" on that one repository. The price is one commit per file:
Markdown and JSON of a day are two commits.

A file is read first (``GET …/contents/{path}?ref=branch``) for the SHA of its
blob. When that is the git blob SHA of the new content (SHA-1 of ``blob
<size>\\0`` and the bytes, computed here), the file already holds this report
and no commit is made: a rerun changes nothing. Otherwise ``PUT`` writes it,
naming that blob SHA, so GitHub refuses with 409 if someone pushed the file
meanwhile; the file is then read again and the write tried once more.
"""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from repodaily.errors import PublishError
from repodaily.models import DailyReport
from repodaily.publish.base import Delivery, PublishContext, fill_template
from repodaily.publish.files import report_path
from repodaily.publish.github.client import GitHubError, RepositoryPublisher
from repodaily.publish.github.settings import GitHubFileSettings
from repodaily.render.base import Artefact

__all__ = ["GitHubFilePublisher", "blob_sha"]

NAME = "github-file"


def blob_sha(data: bytes) -> str:
    """The SHA git gives a blob of ``data``, as the Contents API reports a file's ``sha``."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


class GitHubFilePublisher(RepositoryPublisher):
    """:class:`~repodaily.publish.base.Publisher` committing each artefact at the path template of a repository."""

    name = NAME

    def __init__(self, *, settings: GitHubFileSettings, context: PublishContext) -> None:
        super().__init__(settings, context)
        self.settings = settings

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        message = self._client.redact(fill_template(self.settings.message, report))
        self._client.new_budget()
        locations, previews = [], []
        for artefact in artefacts:
            path = report_path(self.settings, report, artefact.suffix).as_posix()
            content = self._client.redact(artefact.text)
            if self.context.dry_run:
                branch = f"@{self.settings.branch}" if self.settings.branch else ""
                locations.append(f"{self.repository}{branch}:{path}")
                previews.append(f"# would commit {locations[-1]} ({message})\n{content}")
            else:
                try:
                    data = content.encode("utf-8")
                except UnicodeEncodeError as exc:
                    raise PublishError(f"{self._client.target}: {path}: not valid Unicode ({exc.reason})") from exc
                locations.append(await self._commit(path, data, message))
        return Delivery(NAME, locations=locations, preview="".join(previews) if self.context.dry_run else None)

    async def _commit(self, path: str, data: bytes, message: str) -> str:
        """Write ``data`` at ``path`` unless it is there already; the file's web address."""
        url = f"{self._repo_path}/contents/{quote(path, safe='/')}"
        branch = self.settings.branch
        for attempt in (1, 2):
            found = await self._client.call("GET", url, params={"ref": branch} if branch else None, expect=(200, 404))
            current = self._file(found.data, path) if found.status == 200 else None
            if current is not None and current["sha"] == blob_sha(data):
                return str(current.get("html_url") or path)
            body: dict[str, Any] = {
                "message": message,
                "content": base64.b64encode(data).decode("ascii"),
                **({"branch": branch} if branch else {}),
                **({"sha": current["sha"]} if current is not None else {}),
            }
            try:
                written = await self._client.call("PUT", url, body=body, expect=(200, 201))
            except GitHubError as exc:
                if exc.status == 409 and attempt == 1:
                    continue  # pushed meanwhile: read the new blob SHA and write once more
                raise
            return str(self._file((written.data or {}).get("content"), path).get("html_url") or path)
        raise AssertionError("unreachable: the second attempt returns or raises")

    def _file(self, data: Any, path: str) -> dict[str, Any]:
        if isinstance(data, list):
            raise PublishError(f"{self._client.target}: {path} is a directory in the repository")
        if not isinstance(data, dict) or not isinstance(data.get("sha"), str):
            raise PublishError(f"{self._client.target}: the Contents API's answer for {path} has no blob sha")
        return data
