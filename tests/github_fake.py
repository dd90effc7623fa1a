"""A local fake of the GitHub REST endpoints the GitHub publishers use, with GitHub's checks and answer shapes.

A real HTTP server on 127.0.0.1 (the suite's loopback plumbing, in a thread) plays
one repository's slice of the API:

- ``GET /repos/{owner}/{repo}``: the repository, with ``permissions`` and ``has_issues``;
- ``GET``/``PUT /repos/{owner}/{repo}/contents/{path}``: files on branches, blob SHAs
  computed as git does, 404 for a missing file, 409 when the ``sha`` of a write is not
  the file's (someone pushed meanwhile), 422 when a write to an existing file names no ``sha``;
- ``GET``/``POST /repos/{owner}/{repo}/issues`` (the list filtered by ``state`` and
  ``labels``, paged with a ``Link`` header on ``/repositories/{id}/issues`` as GitHub
  pages it), ``PATCH /repos/{owner}/{repo}/issues/{number}``;
- ``GET``/``POST …/issues/{number}/comments``, ``PATCH``/``DELETE …/issues/comments/{id}``.

It checks what GitHub checks: the token (``Authorization: Bearer``; 401 "Bad
credentials" otherwise; none at all for reading a :attr:`~GitHubFake.public`
repository), the API version header, and a body or comment of more than 65,536
characters (422 with GitHub's validation error). Every answer carries the
``x-ratelimit-*`` headers, and once the limit is used up every request is refused
as GitHub refuses it (403, remaining 0); :meth:`GitHubFake.refuse_next` makes the
next requests answer as a primary (403, remaining 0, reset) or secondary (429,
``retry-after``) rate limit does. A read carries an ``ETag`` (and a
``Last-Modified`` for what has an ``updated_at``); asked again with
``If-None-Match`` or ``If-Modified-Since`` while it holds, it is a 304 that costs
no rate limit. Each request is kept in :attr:`GitHubFake.requests`.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import itertools
import json
import threading
import time
from datetime import datetime
from email.utils import formatdate, parsedate_to_datetime
from typing import Any
from urllib.parse import parse_qs, unquote, urlencode, urlsplit

from endpoint_simulator import HttpRequest, LoopbackHttpServer, write_json, write_response

API_VERSION = "2022-11-28"
MAX_BODY = 65_536
DOCS = "https://docs.github.com/rest"
REPO_ID = 812345678


def blob_sha(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _error(message: str, documentation: str = DOCS, status: int = 0, **extra: Any) -> dict[str, Any]:
    return {"message": message, **extra, "documentation_url": documentation, "status": str(status)}


class GitHubFake(LoopbackHttpServer):
    """One repository on a fake GitHub; ``token`` is the only token it takes."""

    def __init__(self, token: str, repository: str = "acme/reports", *, default_branch: str = "main") -> None:
        super().__init__()
        self.token = token
        self.repository = repository
        self.default_branch = default_branch
        self.requests: list[HttpRequest] = []
        #: The files of each branch, by path.
        self.branches: dict[str, dict[str, bytes]] = {default_branch: {}}
        self.commits: list[dict[str, Any]] = []
        self.issues: list[dict[str, Any]] = []
        self.comments: list[dict[str, Any]] = []
        self.permissions = {"admin": False, "maintain": False, "push": True, "triage": True, "pull": True}
        self.has_issues = True
        #: Anyone may read it without a token, as a public repository on github.com.
        self.public = False
        self.remaining = 5000
        #: Seconds from an answer to the reset its x-ratelimit-reset names.
        self.reset_in = 3600.0
        #: When the used-up limit refills (time.time()): requests before it are refused.
        self._refills_at: float | None = None
        #: Echo the Authorization header in a 401's message, as a careless proxy might.
        self.echo_credentials = False
        #: Take requests and never answer them.
        self.hang = False
        #: Every page of a listing links to the next as ever, but the page after it links back to it (a broken proxy).
        self.loop_pages = False
        #: Every page asked is the first, its Link pointing one page further, without end (a proxy that drops `page`).
        self.ignore_page = False
        self._refusals: list[tuple[int, dict[str, Any], list[tuple[str, str]]]] = []
        #: A push by someone else, made right after the publisher's next read of that path.
        self._pushes_after_read: dict[str, bytes] = {}
        self._ids = itertools.count(2_871_000_001)
        self._lock = threading.Lock()
        #: The account the token writes as; None: a token that may not ask (GITHUB_TOKEN, an App's), a bot.
        self.login: str | None = "report-bot"
        #: GET /user is refused by the primary rate limit (1 s) this many times first.
        self.user_rate_limited = 0

    @property
    def api_url(self) -> str:
        return self.origin

    # -- what tests arrange

    def refuse_next(self, kind: str, seconds: float, *, times: int = 1) -> None:
        """The next ``times`` requests are refused by the primary or the secondary rate limit for ``seconds``."""
        for _ in range(times):
            if kind == "primary":
                headers = [("x-ratelimit-remaining", "0"), ("x-ratelimit-reset", str(int(time.time() + seconds)))]
                body = _error(
                    "API rate limit exceeded for user ID 1. If you reach out to GitHub Support for help, please "
                    "include the request ID.",
                    "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
                    403,
                )
                self._refusals.append((403, body, headers))
            else:
                body = _error(
                    "You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",
                    "https://docs.github.com/free-pro-team@latest/rest/overview/rate-limits-for-the-rest-api"
                    "#about-secondary-rate-limits",
                    429,
                )
                self._refusals.append((429, body, [("retry-after", str(int(seconds)))]))

    def fail_next(self, status: int = 502, *, times: int = 1) -> None:
        """The next ``times`` requests get the error a gateway in front of GitHub answers when it loses one."""
        for _ in range(times):
            self._refusals.append((status, {"message": "Server Error"}, []))

    def push_after_next_read(self, path: str, data: bytes) -> None:
        """Someone else commits ``data`` at ``path`` just after the publisher has read it."""
        self._pushes_after_read[path] = data

    def add_issue(
        self, title: str, body: str, labels: list[str], *, pull_request: bool = False, author: str | None = None
    ) -> dict[str, Any]:
        """An issue (or pull request) opened before the run: by the token's account, or by ``author``."""
        with self._lock:
            fields = {"title": title, "body": body, "labels": labels}
            return self._new_issue(fields, pull_request=pull_request, author=author)

    def add_comment(self, number: int, body: str, *, author: str | None = None) -> dict[str, Any]:
        with self._lock:
            return self._new_comment(self._issue(number), body, author=author)

    # -- what tests read

    def writes(self) -> list[HttpRequest]:
        return [request for request in self.requests if request.method != "GET"]

    def asked(self, fragment: str) -> list[HttpRequest]:
        """The requests whose path holds ``fragment``."""
        return [request for request in self.requests if fragment in request.path]

    def comments_of(self, number: int) -> list[dict[str, Any]]:
        return [comment for comment in self.comments if comment["issue_url"].endswith(f"/issues/{number}")]

    # -- the server

    async def _respond(self, request: HttpRequest, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with self._lock:
            self.requests.append(request)
            if self.remaining == 0 and self._refills_at is not None and time.time() >= self._refills_at:
                self.remaining, self._refills_at = 5000, None
            if self.remaining == 0 and not self._refusals:
                self.refuse_next("primary", (self._refills_at or time.time()) - time.time())
            status, payload, headers = self._answer(request)
            if request.method == "GET" and status == 200:
                headers = [*headers, *self._validators(payload)]
                if self._unchanged(request, dict(headers)):
                    status, payload = 304, None
            headers = [*headers, *self._limit_headers(headers, counted=status != 304)]
        if self.hang:
            await asyncio.sleep(3600)  # cancelled when the server stops
        if payload is None:
            await write_response(writer, status, b"", headers)
        else:
            await write_json(writer, status, payload, headers)

    @staticmethod
    def _validators(payload: Any) -> list[tuple[str, str]]:
        """An answer's ETag (of its content), and its Last-Modified when it has an ``updated_at``."""
        headers = [("ETag", f'W/"{hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()}"')]
        if isinstance(payload, dict) and payload.get("updated_at"):
            updated = datetime.fromisoformat(payload["updated_at"].replace("Z", "+00:00"))
            headers.append(("Last-Modified", formatdate(updated.timestamp(), usegmt=True)))
        return headers

    @staticmethod
    def _unchanged(request: HttpRequest, headers: dict[str, str]) -> bool:
        """Whether the request's condition holds: its ETag matches, or nothing changed since its date."""
        if (tag := request.headers.get("if-none-match")) is not None:
            return tag == headers["ETag"]
        since, modified = request.headers.get("if-modified-since"), headers.get("Last-Modified")
        return (
            since is not None
            and modified is not None
            and parsedate_to_datetime(modified) <= parsedate_to_datetime(since)
        )

    def _limit_headers(self, already: list[tuple[str, str]], *, counted: bool = True) -> list[tuple[str, str]]:
        if counted:  # a 304 costs nothing
            self.remaining = max(self.remaining - 1, 0)
        if self.remaining == 0 and self._refills_at is None:
            self._refills_at = time.time() + self.reset_in
        given = {name for name, _ in already}
        headers = [
            ("Date", formatdate(usegmt=True)),
            ("x-ratelimit-limit", "5000"),
            ("x-ratelimit-used", str(5000 - self.remaining)),
            ("x-ratelimit-resource", "core"),
            ("x-github-api-version-selected", API_VERSION),
        ]
        if "x-ratelimit-remaining" not in given:
            headers += [("x-ratelimit-remaining", str(self.remaining))]
        if "x-ratelimit-reset" not in given:
            headers += [("x-ratelimit-reset", str(int(self._refills_at or time.time() + self.reset_in)))]
        return headers

    def _answer(self, request: HttpRequest) -> tuple[int, Any, list[tuple[str, str]]]:
        given = request.headers.get("authorization")
        anonymous_read = given is None and self.public and request.method == "GET"
        if given != f"Bearer {self.token}" and not anonymous_read:
            echo = f" ({given})" if self.echo_credentials else ""
            return 401, _error(f"Bad credentials{echo}", status=401), []
        if request.headers.get("x-github-api-version") != API_VERSION:
            return 400, _error(f"Unsupported 'X-GitHub-Api-Version' header {API_VERSION!r}", status=400), []
        if request.headers.get("accept") != "application/vnd.github+json":
            return 415, _error("Unsupported 'Accept' header", status=415), []
        if self._refusals:
            return self._refusals.pop(0)
        url = urlsplit(request.path)
        query = {name: values[-1] for name, values in parse_qs(url.query).items()}
        prefix = f"/repos/{self.repository}"
        path = unquote(url.path)
        if path.startswith(f"/repositories/{REPO_ID}"):
            path = prefix + path.removeprefix(f"/repositories/{REPO_ID}")
        if path == "/user" and request.method == "GET":
            if self.user_rate_limited:
                self.user_rate_limited -= 1
                self.refuse_next("primary", 1)
                return self._refusals.pop(0)
            if self.login is None:
                return 403, _error("Resource not accessible by integration", status=403), []
            return 200, self._user(self.login), []
        if path != prefix and not path.startswith(prefix + "/"):
            return 404, _error("Not Found", status=404), []
        rest = path.removeprefix(prefix).strip("/").split("/") if path != prefix else []
        return self._route(request, rest, query)

    def _route(self, request: HttpRequest, rest: list[str], query: dict[str, str]) -> tuple[int, Any, list[Any]]:
        method, body = request.method, request.json()
        match rest:
            case [] if method == "GET":
                return 200, self._repo(), []
            case ["contents", *parts] if method == "GET":
                return self._read(unquote("/".join(parts)), query.get("ref", self.default_branch))
            case ["contents", *parts] if method == "PUT":
                return self._put(unquote("/".join(parts)), body)
            case ["issues"] if method == "GET":
                return self._list(self._matching(query), query, "issues")
            case ["issues"] if method == "POST":
                return self._check_body(body, "Issue") or (201, self._new_issue(body), [])
            case ["issues", number] if method == "PATCH" and number.isdigit():
                issue = self._issue(int(number))
                if issue is None:
                    return 404, _error("Not Found", status=404), []
                return self._check_body(body, "Issue") or (200, self._update(issue, body), [])
            case ["issues", number, "comments"] if number.isdigit() and self._issue(int(number)):
                if method == "GET":
                    return self._list(self.comments_of(int(number)), query, f"issues/{number}/comments")
                if method == "POST":
                    return self._check_body(body, "IssueComment") or (
                        201,
                        self._new_comment(self._issue(int(number)), body["body"]),
                        [],
                    )
            case ["issues", "comments", ident] if ident.isdigit() and self._comment(int(ident)):
                comment = self._comment(int(ident))
                if method == "PATCH":
                    return self._check_body(body, "IssueComment") or (200, self._edit(comment, body["body"]), [])
                if method == "DELETE":
                    self.comments.remove(comment)
                    self._issue(int(comment["issue_url"].rsplit("/", 1)[1]))["comments"] -= 1
                    return 204, None, []
        return 404, _error("Not Found", status=404), []

    # -- repository and contents

    def _user(self, login: str) -> dict[str, Any]:
        return {
            "login": login,
            "id": 190001,
            "node_id": "U_kgDOAALmMQ",
            "avatar_url": "https://avatars.githubusercontent.com/u/190001?v=4",
            "url": f"{self.origin}/users/{login}",
            "html_url": f"https://github.com/{login}",
            "type": "Bot" if login.endswith("[bot]") else "User",
            "site_admin": False,
        }

    def _repo(self) -> dict[str, Any]:
        owner, name = self.repository.split("/")
        return {
            "id": REPO_ID,
            "node_id": "R_kgDOMGrFTg",
            "name": name,
            "full_name": self.repository,
            "private": False,
            "owner": self._user(owner),
            "html_url": f"https://github.com/{self.repository}",
            "url": f"{self.origin}/repos/{self.repository}",
            "default_branch": self.default_branch,
            "has_issues": self.has_issues,
            "permissions": self.permissions,
        }

    def _file(self, path: str, branch: str, data: bytes) -> dict[str, Any]:
        sha = blob_sha(data)
        api = f"{self.origin}/repos/{self.repository}"
        html = f"https://github.com/{self.repository}/blob/{branch}/{path}"
        return {
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "sha": sha,
            "size": len(data),
            "url": f"{api}/contents/{path}?ref={branch}",
            "html_url": html,
            "git_url": f"{api}/git/blobs/{sha}",
            "download_url": f"https://raw.githubusercontent.com/{self.repository}/{branch}/{path}",
            "type": "file",
            "_links": {"self": f"{api}/contents/{path}?ref={branch}", "git": f"{api}/git/blobs/{sha}", "html": html},
        }

    def _read(self, path: str, branch: str) -> tuple[int, Any, list[Any]]:
        files = self.branches.get(branch)
        if files is None:
            return 404, _error(f"No commit found for the ref {branch}", f"{DOCS}/repos/contents", 404), []
        answer = self._contents(path, branch, files)
        if path in self._pushes_after_read:
            self._commit(branch, path, self._pushes_after_read.pop(path), "someone else's commit")
        return answer

    def _contents(self, path: str, branch: str, files: dict[str, bytes]) -> tuple[int, Any, list[Any]]:
        inside = [name for name in files if name.startswith(path + "/")]
        if inside:
            return 200, [self._file(name, branch, files[name]) for name in inside], []
        if path not in files:
            return 404, _error("Not Found", f"{DOCS}/repos/contents#get-repository-content", 404), []
        encoded = base64.b64encode(files[path]).decode()
        answer = {
            **self._file(path, branch, files[path]),
            "content": "\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60)) + "\n",
            "encoding": "base64",
        }
        return 200, answer, []

    def _put(self, path: str, body: Any) -> tuple[int, Any, list[Any]]:
        documentation = f"{DOCS}/repos/contents#create-or-update-file-contents"
        if not isinstance(body, dict) or not body.get("message") or not isinstance(body.get("content"), str):
            return 422, _error('Invalid request.\n\n"message", "content" weren\'t supplied.', documentation, 422), []
        branch = body.get("branch", self.default_branch)
        if branch not in self.branches:
            return 404, _error(f"Branch {branch} not found", documentation, 404), []
        current = self.branches[branch].get(path)
        if current is not None and "sha" not in body:
            return 422, _error('Invalid request.\n\n"sha" wasn\'t supplied.', documentation, 422), []
        if current is not None and body["sha"] != blob_sha(current):
            return 409, _error(f"is at {blob_sha(current)} but expected {body['sha']}", documentation, 409), []
        data = base64.b64decode(body["content"], validate=True)
        commit = self._commit(branch, path, data, body["message"])
        return (200 if current is not None else 201), {"content": self._file(path, branch, data), "commit": commit}, []

    def _commit(self, branch: str, path: str, data: bytes, message: str) -> dict[str, Any]:
        parent = self.commits[-1]["sha"] if self.commits else "5b1e8f2c9d0a7b3e4f6a1c2d3e4f5a6b7c8d9e0f"
        sha = hashlib.sha1(f"{parent}{path}{message}{len(self.commits)}".encode()).hexdigest()
        self.branches[branch][path] = data
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        person = {"name": "report-bot", "email": "report-bot@users.noreply.github.com", "date": now}
        commit = {
            "sha": sha,
            "node_id": "C_kwDOMGrFTtoAKD" + sha[:12],
            "url": f"{self.origin}/repos/{self.repository}/git/commits/{sha}",
            "html_url": f"https://github.com/{self.repository}/commit/{sha}",
            "author": person,
            "committer": person,
            "message": message,
            "tree": {"url": f"{self.origin}/repos/{self.repository}/git/trees/{sha[::-1]}", "sha": sha[::-1]},
            "parents": [{"url": f"{self.origin}/repos/{self.repository}/git/commits/{parent}", "sha": parent}],
            "verification": {"verified": False, "reason": "unsigned", "signature": None, "payload": None},
            "path": path,  # not GitHub's: what the tests ask of a commit
            "branch": branch,
        }
        self.commits.append(commit)
        return {key: value for key, value in commit.items() if key not in ("path", "branch")}

    # -- issues and comments

    def _check_body(self, body: Any, resource: str) -> tuple[int, Any, list[Any]] | None:
        if not isinstance(body, dict) or (resource == "Issue" and "title" in body and not body["title"]):
            return 422, _error("Validation Failed", status=422, errors=[{"resource": resource, "code": "missing"}]), []
        text = body.get("body") or ""
        if len(text) <= MAX_BODY:
            return None
        if resource == "Issue":
            error = {"resource": "Issue", "code": "custom", "field": "body"}
            error["message"] = "body is too long (maximum is 65536 characters)"
            documentation = f"{DOCS}/issues/issues#create-an-issue"
        else:
            error = {"resource": "IssueComment", "code": "unprocessable", "field": "data"}
            error["message"] = "Body is too long (maximum is 65536 characters)"
            documentation = f"{DOCS}/issues/comments#create-an-issue-comment"
        return 422, _error("Validation Failed", documentation, 422, errors=[error]), []

    def _issue(self, number: int) -> dict[str, Any] | None:
        return next((issue for issue in self.issues if issue["number"] == number), None)

    def _comment(self, ident: int) -> dict[str, Any] | None:
        return next((comment for comment in self.comments if comment["id"] == ident), None)

    def _label(self, name: str) -> dict[str, Any]:
        ident = int(hashlib.sha1(name.encode()).hexdigest()[:9], 16)
        return {
            "id": ident,
            "node_id": f"LA_kwDOMGrFTs8AAAAB{ident}",
            "url": f"{self.origin}/repos/{self.repository}/labels/{name}",
            "name": name,
            "color": "ededed",
            "default": False,
            "description": None,
        }

    def _author(self) -> dict[str, Any]:
        """The account the token writes as: a bot when it may not ask who it is."""
        return self._user(self.login or "github-actions[bot]")

    def _new_issue(
        self, fields: dict[str, Any], *, pull_request: bool = False, author: str | None = None
    ) -> dict[str, Any]:
        number = len(self.issues) + 1
        ident = next(self._ids)
        api = f"{self.origin}/repos/{self.repository}/issues/{number}"
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        issue = {
            "url": api,
            "repository_url": f"{self.origin}/repos/{self.repository}",
            "labels_url": f"{api}/labels{{/name}}",
            "comments_url": f"{api}/comments",
            "events_url": f"{api}/events",
            "html_url": f"https://github.com/{self.repository}/issues/{number}",
            "id": ident,
            "node_id": f"I_kwDOMGrFTs6{ident}",
            "number": number,
            "title": fields["title"],
            "user": self._user(author) if author else self._author(),
            "labels": [self._label(name) for name in fields.get("labels") or []],
            "state": "open",
            "locked": False,
            "assignee": self._user(fields["assignees"][0]) if fields.get("assignees") else None,
            "assignees": [self._user(login) for login in fields.get("assignees") or []],
            "milestone": None,
            "comments": 0,
            "created_at": now,
            "updated_at": now,
            "closed_at": None,
            "author_association": "OWNER",
            "active_lock_reason": None,
            "body": fields.get("body"),
            "closed_by": None,
            "timeline_url": f"{api}/timeline",
            "performed_via_github_app": None,
            "state_reason": None,
        }
        if pull_request:
            issue["pull_request"] = {"url": f"{self.origin}/repos/{self.repository}/pulls/{number}"}
        self.issues.append(issue)
        return issue

    def _update(self, issue: dict[str, Any], fields: dict[str, Any]) -> dict[str, Any]:
        for name in ("title", "body", "state"):
            if name in fields:
                issue[name] = fields[name]
        issue["updated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        return issue

    def _new_comment(self, issue: dict[str, Any] | None, body: str, *, author: str | None = None) -> dict[str, Any]:
        assert issue is not None
        ident = next(self._ids)
        now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        comment = {
            "url": f"{self.origin}/repos/{self.repository}/issues/comments/{ident}",
            "html_url": f"{issue['html_url']}#issuecomment-{ident}",
            "issue_url": issue["url"],
            "id": ident,
            "node_id": f"IC_kwDOMGrFTs6{ident}",
            "user": self._user(author) if author else self._author(),
            "created_at": now,
            "updated_at": now,
            "author_association": "OWNER",
            "body": body,
            "performed_via_github_app": None,
        }
        issue["comments"] += 1
        self.comments.append(comment)
        return comment

    def _edit(self, comment: dict[str, Any], body: str) -> dict[str, Any]:
        comment["body"] = body
        comment["updated_at"] = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        return comment

    def _matching(self, query: dict[str, str]) -> list[dict[str, Any]]:
        state = query.get("state", "open")
        wanted = set(filter(None, query.get("labels", "").split(",")))
        found = [
            issue
            for issue in self.issues
            if (state == "all" or issue["state"] == state) and wanted <= {label["name"] for label in issue["labels"]}
        ]
        return sorted(found, key=lambda issue: issue["number"], reverse=query.get("direction", "desc") == "desc")

    def _list(
        self, items: list[Any], query: dict[str, str], where: str, *, per_page: int = 30, most: int = 100
    ) -> tuple[int, Any, list[Any]]:
        """One page of ``items``, with GitHub's Link header (on ``/repositories/{id}/…``) when there are more.

        ``per_page`` is the page size when the query names none, ``most`` the largest GitHub takes.
        """
        per_page = min(int(query.get("per_page", str(per_page))), most)
        page = int(query.get("page", "1"))
        chunk = items[(page - 1) * per_page : page * per_page]
        last = max((len(items) + per_page - 1) // per_page, 1)
        relations = [("next", page + 1), ("last", last)] if page < last else []
        if self.loop_pages and page > 1:
            relations = [("next", page - 1)]
        if self.ignore_page:
            chunk, relations = items[:per_page], [("next", page + 1)]
        links = []
        for relation, number in relations:
            address = f"{self.origin}/repositories/{REPO_ID}/{where}?{urlencode({**query, 'page': number})}"
            links.append(f'<{address}>; rel="{relation}"')
        return 200, chunk, [("Link", ", ".join(links))] if links else []
