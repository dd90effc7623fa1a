"""GitHub's commit endpoints answered from a real git repository, on top of the context source's fake.

:class:`GitHubSourceFake` is a :class:`~github_context_fake.GitHubContextFake`
(the same token, version and rate-limit checks, ``/rate_limit``, pull requests
and releases) whose repository is a real one built with git.
Every answer is made from ``git``'s own output, in GitHub's REST shapes:

- ``GET /repos/{owner}/{repo}/branches/{branch}``: the branch and its tip, 404 for none;
- ``GET /repos/{owner}/{repo}/commits?sha=&since=&until=``: ``git rev-list`` with those
  bounds (every commit reachable from ``sha``, side branches' too, by date, a line of
  history ending at its first commit older than ``since``), paged with ``Link``;
- ``GET /repos/{owner}/{repo}/git/trees/{sha}?recursive=1``: every entry of its tree, ``git ls-tree -r -t``;
- ``GET /repos/{owner}/{repo}/commits/{sha}``: the commit with ``stats`` and ``files``,
  its diff against its first parent as ``git diff-tree -M`` makes it: ``status``, counts,
  ``previous_filename``, the blob ``sha``, and the ``patch`` from the first ``@@`` without
  the last newline, left out for a binary file and for one whose patch is longer than
  :attr:`GitHubSourceFake.patch_limit`; 300 files a page, 3,000 at most, paged with ``Link``.
"""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from endpoint_simulator import HttpRequest
from github_context_fake import GitHubContextFake
from github_fake import REPO_ID, _error

#: GitHub's pages of a commit's files, and the most it lists.
FILES_PER_PAGE = 300
MAX_FILES = 3000
_STATUS = {"A": "added", "D": "removed", "M": "modified", "R": "renamed", "C": "copied", "T": "changed"}
_NULL = "0" * 40


def _git(work_tree: Path, *args: str) -> bytes:
    return subprocess.run(["git", *args], cwd=work_tree, capture_output=True, check=True).stdout


def _iso(seconds: str) -> str:
    return datetime.fromtimestamp(int(seconds), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


class GitHubSourceFake(GitHubContextFake):
    """The repository at ``work_tree`` on a fake GitHub."""

    def __init__(self, token: str, work_tree: Path, repository: str = "acme/widgets") -> None:
        super().__init__(token, repository)
        self.work_tree = work_tree
        #: GitHub leaves out the patch of a diff too large to show; here, one longer than this.
        self.patch_limit = 10_000_000

    # -- the server

    def _route(self, request: HttpRequest, rest: list[str], query: dict[str, str]) -> tuple[int, Any, list[Any]]:
        if request.method == "GET":
            match rest:
                case ["branches", branch]:
                    return self._branch(branch)
                case ["commits"]:
                    return self._listing(query)
                case ["commits", sha]:
                    return self._commit(sha, query)
                case ["git", "trees", ref] if query.get("recursive"):
                    return self._tree(ref)
        return super()._route(request, rest, query)

    def _resolve(self, ref: str) -> str | None:
        try:
            return _git(self.work_tree, "rev-parse", "--verify", "-q", f"{ref}^{{commit}}").decode().strip()
        except subprocess.CalledProcessError:
            return None

    def _branch(self, branch: str) -> tuple[int, Any, list[Any]]:
        sha = self._resolve(f"refs/heads/{branch}")
        if sha is None:
            documentation = "https://docs.github.com/rest/branches/branches#get-a-branch"
            return 404, _error("Branch not found", documentation, 404), []
        commit = {"sha": sha, "url": f"{self.origin}/repos/{self.repository}/commits/{sha}"}
        return 200, {"name": branch, "commit": commit, "protected": False}, []

    def _listing(self, query: dict[str, str]) -> tuple[int, Any, list[Any]]:
        sha = self._resolve(query.get("sha", self.default_branch))
        if sha is None:
            return 404, _error(f"No commit found for SHA: {query.get('sha')}", status=404), []
        bounds = [f"--{name}={query[name]}" for name in ("since", "until") if name in query]
        shas = _git(self.work_tree, "rev-list", *bounds, sha).decode().split()
        status, page, headers = self._list(shas, query, "commits")
        return status, [self._summary(sha) for sha in page], headers

    def _commit(self, ref: str, query: dict[str, str]) -> tuple[int, Any, list[Any]]:
        sha = self._resolve(ref)
        if sha is None:
            return 422, _error(f"No commit found for SHA: {ref}", status=422), []
        entries = self._files(sha)[:MAX_FILES]
        status, page, headers = self._list(entries, query, f"commits/{sha}", per_page=FILES_PER_PAGE, most=300)
        stats = {
            "total": sum(e["changes"] for e in entries),
            "additions": sum(e["additions"] for e in entries),
            "deletions": sum(e["deletions"] for e in entries),
        }
        return status, {**self._summary(sha), "stats": stats, "files": page}, headers

    def _tree(self, ref: str) -> tuple[int, Any, list[Any]]:
        sha = self._resolve(ref)
        if sha is None:
            return 404, _error("Not Found", status=404), []
        api = f"{self.origin}/repos/{self.repository}/git"
        entries = []
        for line in _git(self.work_tree, "ls-tree", "-r", "-t", "-z", sha).split(b"\0"):
            if line:
                meta, _, path = line.decode().partition("\t")
                mode, kind, blob = meta.split(" ")
                entries.append({"path": path, "mode": mode, "type": kind, "sha": blob, "url": f"{api}/{kind}s/{blob}"})
        return 200, {"sha": sha, "url": f"{api}/trees/{sha}", "tree": entries, "truncated": False}, []

    # -- git's answers in GitHub's shapes

    def _summary(self, sha: str) -> dict[str, Any]:
        """A commit as the listing gives it (the single commit adds ``stats`` and ``files``)."""
        fields = _git(self.work_tree, "show", "-s", "--format=%P%x00%an%x00%ae%x00%at%x00%cn%x00%ce%x00%ct", sha)
        parents, author, email, authored, committer, committer_email, committed = fields.decode().strip().split("\0")
        raw = _git(self.work_tree, "cat-file", "commit", sha)
        message = raw.partition(b"\n\n")[2].decode("utf-8", "replace").removesuffix("\n")
        api = f"{self.origin}/repos/{self.repository}"
        return {
            "sha": sha,
            "node_id": f"C_kwDOMGrFTtoAKD{sha[:12]}",
            "commit": {
                "author": {"name": author, "email": email, "date": _iso(authored)},
                "committer": {"name": committer, "email": committer_email, "date": _iso(committed)},
                "message": message,
                "tree": {"sha": sha[::-1], "url": f"{api}/git/trees/{sha[::-1]}"},
                "url": f"{api}/git/commits/{sha}",
                "comment_count": 0,
                "verification": {"verified": False, "reason": "unsigned", "signature": None, "payload": None},
            },
            "url": f"{api}/commits/{sha}",
            "html_url": f"https://github.com/{self.repository}/commit/{sha}",
            "comments_url": f"{api}/commits/{sha}/comments",
            "author": None,  # no GitHub account has the author's e-mail
            "committer": None,
            "parents": [
                {"sha": p, "url": f"{api}/commits/{p}", "html_url": f"https://github.com/{self.repository}/commit/{p}"}
                for p in parents.split()
            ],
        }

    def _files(self, sha: str) -> list[dict[str, Any]]:
        """The first-parent diff of ``sha`` as GitHub's ``files``: ``--raw``, ``--numstat`` and ``-p`` of one diff."""
        parents = _git(self.work_tree, "show", "-s", "--format=%P", sha).decode().split()
        trees = [parents[0], sha] if parents else ["--root", sha]
        diff = ["diff-tree", "-r", "-M", "--no-commit-id", "--no-ext-diff", "--no-textconv", *trees]
        raw = _git(self.work_tree, *diff, "--raw", "-z").split(b"\0")
        counts = _git(self.work_tree, *diff, "--numstat", "-z").split(b"\0")
        sections = _git(self.work_tree, *diff, "-p", "--src-prefix=a/", "--dst-prefix=b/").split(b"\ndiff --git ")
        entries = []
        i = j = 0
        for section in sections:
            if not raw[i:] or not raw[i].startswith(b":"):
                break
            _, _, old_blob, new_blob, code = raw[i].decode().split(" ")
            renamed = code[0] in "RC"
            old_path, path = (raw[i + 1], raw[i + 2]) if renamed else (None, raw[i + 1])
            i += 3 if renamed else 2
            added, deleted = counts[j].split(b"\t")[:2]
            j += 3 if renamed else 1
            entries.append(self._entry(code[0], path, old_path, old_blob, new_blob, added, deleted, section))
        return entries

    def _entry(
        self,
        code: str,
        path: bytes,
        old_path: bytes | None,
        old_blob: str,
        new_blob: str,
        added: bytes,
        deleted: bytes,
        section: bytes,
    ) -> dict[str, Any]:
        name = path.decode()
        additions, deletions = (0, 0) if added == b"-" else (int(added), int(deleted))
        blob = old_blob if code == "D" else new_blob
        if code == "M" and old_blob == new_blob:
            blob = _NULL  # a change of mode only: GitHub names no blob
        entry: dict[str, Any] = {
            "sha": None if blob == _NULL else blob,
            "filename": name,
            "status": _STATUS[code],
            "additions": additions,
            "deletions": deletions,
            "changes": additions + deletions,
            "blob_url": f"https://github.com/{self.repository}/blob/{blob}/{name}",
            "raw_url": f"https://github.com/{self.repository}/raw/{blob}/{name}",
            "contents_url": f"{self.origin}/repositories/{REPO_ID}/contents/{name}?ref={blob}",
        }
        hunks = section.find(b"\n@@")
        patch = section[hunks + 1 :].decode("utf-8", "replace").removesuffix("\n") if hunks >= 0 else ""
        if patch and len(patch) <= self.patch_limit:
            entry["patch"] = patch
        if old_path is not None:
            entry["previous_filename"] = old_path.decode()
        return entry
