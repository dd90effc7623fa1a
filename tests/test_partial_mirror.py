"""URL repositories mirrored blobless: the same commits and diffs as the repository itself, fewer bytes.

Each test serves a real bare repository over ``file://`` (git's own transport,
``git upload-pack`` on the other end) with or without ``uploadpack.allowFilter``,
or over HTTP on loopback through ``git http-backend`` behind a password.
Requests to it are counted by pointing the mirror's ``origin`` at a wrapper of
``git upload-pack`` that notes each call.
"""

from __future__ import annotations

import base64
import logging
import shutil
import subprocess
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime, timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest

from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import Commit
from repodaily.sources.git import GitRepository, collect_commits, collect_days, open_repository
from repodaily.sources.git.locations import mirror_dir_name

SHANGHAI = ZoneInfo("Asia/Shanghai")
FIRST_DAY = datetime(2026, 2, 7, tzinfo=SHANGHAI)
DAYS = [(FIRST_DAY + timedelta(days=n), FIRST_DAY + timedelta(days=n + 1, seconds=-1)) for n in range(3)]
DIAGRAM = b"\x89PNG\r\n" + bytes(range(256)) * 8


def on_day(day: int, hour: int) -> datetime:
    return DAYS[day][0] + timedelta(hours=hour)


def git(git_dir: Path, *args: str) -> str:
    result = subprocess.run(["git", f"--git-dir={git_dir}", *args], capture_output=True, check=True)
    return result.stdout.decode().strip()


def build_history(path: Path) -> RepoBuilder:
    """Three report days with additions, edits, a rename, a deletion, a binary file and a merge."""
    repo = RepoBuilder(path)
    repo.commit("Initial import", when=on_day(0, -72), files={"README.md": "hello\n", "old/notes.txt": "keep\n"})
    repo.commit(
        "[Core] Add the scheduler",
        when=on_day(0, 9),
        files={"src/scheduler.py": "".join(f"line {n}\n" for n in range(40)), "docs/diagram.png": DIAGRAM},
    )
    repo.commit("[Docs] Describe it", when=on_day(0, 15), files={"README.md": "hello\nscheduler\n"})
    repo.move("src/scheduler.py", "src/sched/core.py")
    repo.commit(
        "[Refactor] Move the scheduler (#12)",
        when=on_day(1, 10),
        files={"src/sched/core.py": "".join(f"line {n}\n" for n in range(41))},
    )
    repo.git("checkout", "-q", "-b", "side")
    repo.commit("Side work", when=on_day(1, 11), files={"side.txt": "a\nb\n"})
    repo.git("checkout", "-q", "main")
    repo.commit("[CI] Pin the runner", when=on_day(1, 12), files={".ci.yml": "runs-on: x\n"})
    repo.merge("side", "Merge branch 'side'", when=on_day(1, 13))
    repo.remove("docs/diagram.png")
    repo.commit("[Docs] Drop the diagram", when=on_day(2, 8), files={"README.md": "hello\nscheduler\nsoon\n"})
    return repo


def serve(repo: RepoBuilder, path: Path, *, allow_filter: bool) -> str:
    """A bare copy of ``repo`` at ``path``, as a server holds it; its ``file://`` URL."""
    subprocess.run(["git", "clone", "-q", "--bare", str(repo.path), str(path)], check=True)
    git(path, "config", "uploadpack.allowFilter", str(allow_filter).lower())
    return path.as_uri()


@contextmanager
def served_over_http(root: Path, user: str, password: str) -> Iterator[str]:
    """The bare repositories under ``root`` over HTTP on loopback, for ``user`` and ``password`` only; host:port."""
    expected = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()

    class GitHttp(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            self._serve()

        def do_POST(self) -> None:
            self._serve()

        def _serve(self) -> None:
            if self.headers.get("Authorization") != expected:
                self.send_response(401)
                self.send_header("WWW-Authenticate", 'Basic realm="git"')
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            path, _, query = self.path.partition("?")
            cgi = {
                "GIT_PROJECT_ROOT": str(root),
                "GIT_HTTP_EXPORT_ALL": "1",
                "PATH_INFO": path,
                "QUERY_STRING": query,
                "REQUEST_METHOD": self.command,
                "REMOTE_USER": user,
                "CONTENT_TYPE": self.headers.get("Content-Type") or "",
                "CONTENT_LENGTH": str(len(body)),
                "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding") or "",
                "GIT_PROTOCOL": self.headers.get("Git-Protocol") or "",
            }
            output = subprocess.run(["git", "http-backend"], input=body, env=cgi, capture_output=True).stdout
            head, _, payload = output.partition(b"\r\n\r\n")
            fields = [line.decode().split(": ", 1) for line in head.split(b"\r\n") if line]
            status = next((int(value.split()[0]) for name, value in fields if name.lower() == "status"), 200)
            self.send_response(status)
            for name, value in fields:
                if name.lower() != "status":
                    self.send_header(name, value)
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)

        def log_message(self, format: str, *args: object) -> None:
            pass  # keep the test output to the test's own

    server = ThreadingHTTPServer(("127.0.0.1", 0), GitHttp)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def count_requests(mirror: GitRepository, tmp_path: Path) -> Path:
    """Make every request of ``origin`` write a line to the returned file."""
    calls = tmp_path / "upload-pack-calls"
    wrapper = tmp_path / "counting-upload-pack"
    wrapper.write_text(f'#!/bin/sh\necho call >> "{calls}"\nexec git upload-pack "$@"\n')
    wrapper.chmod(0o755)
    git(mirror.git_dir, "config", "remote.origin.uploadpack", str(wrapper))
    calls.touch()
    return calls


def requests(calls: Path) -> int:
    return len(calls.read_text().splitlines())


def present_blobs(git_dir: Path) -> set[str]:
    """The blobs the repository holds (listing what is there never fetches)."""
    listing = git(git_dir, "cat-file", "--batch-all-objects", "--batch-check=%(objecttype) %(objectname)")
    return {line.split(" ")[1] for line in listing.splitlines() if line.startswith("blob ")}


def read_all(repo: GitRepository) -> list[Commit]:
    return collect_commits(repo, DAYS[0][0], DAYS[-1][1])


@pytest.fixture
def upstream(tmp_path: Path) -> RepoBuilder:
    return build_history(tmp_path / "upstream")


@pytest.fixture
def cache(tmp_path: Path) -> Path:
    return tmp_path / "cache"


def test_a_url_is_mirrored_with_commits_and_trees_only(upstream: RepoBuilder, tmp_path: Path, cache: Path) -> None:
    url = serve(upstream, tmp_path / "served.git", allow_filter=True)

    mirror = open_repository(url, cache_dir=cache)

    assert mirror.blob_url == url
    assert present_blobs(mirror.git_dir) == set()
    assert git(mirror.git_dir, "rev-parse", "main") == upstream.git("rev-parse", "main")


def test_commits_and_diffs_read_through_the_mirror_equal_those_read_in_place(
    upstream: RepoBuilder, tmp_path: Path, cache: Path
) -> None:
    mirror = open_repository(serve(upstream, tmp_path / "served.git", allow_filter=True), cache_dir=cache)
    local = open_repository(str(upstream.path), cache_dir=cache)

    through_mirror = list(collect_days(mirror, DAYS))

    assert through_mirror == list(collect_days(local, DAYS))
    assert [len(commits) for _, commits in through_mirror] == [2, 3, 1]
    files = [f for _, commits in through_mirror for c in commits for f in c.files]
    assert not any(f.content_missing for f in files)
    assert {f.status for f in files} >= {"added", "modified", "renamed", "deleted"}
    assert any(f.binary for f in files) and all(f.patch or f.binary for f in files)


def test_a_day_of_diffs_costs_one_request_and_fetches_no_other_blob(
    upstream: RepoBuilder, tmp_path: Path, cache: Path
) -> None:
    mirror = open_repository(serve(upstream, tmp_path / "served.git", allow_filter=True), cache_dir=cache)
    calls = count_requests(mirror, tmp_path)

    commits = collect_commits(mirror, *DAYS[1])

    assert len(commits) == 3
    assert requests(calls) == 1
    untouched = upstream.git("rev-parse", "main:old/notes.txt")
    assert untouched not in present_blobs(mirror.git_dir)


def test_a_second_run_fetches_only_what_is_new(upstream: RepoBuilder, tmp_path: Path, cache: Path) -> None:
    served = tmp_path / "served.git"
    url = serve(upstream, served, allow_filter=True)
    first = open_repository(url, cache_dir=cache)
    calls = count_requests(first, tmp_path)
    read_all(first)
    held = present_blobs(first.git_dir)
    assert requests(calls) == 1

    again = read_all(open_repository(url, cache_dir=cache))
    assert requests(calls) == 2  # the branch fetch; every blob is already here

    later = upstream.commit("[Core] Tune it", when=on_day(2, 20), files={"src/sched/core.py": "tuned\n"})
    upstream.git("push", "-q", str(served), "main")
    fresh = open_repository(url, cache_dir=cache)
    latest = collect_commits(fresh, *DAYS[2])

    assert requests(calls) == 4  # the branch fetch, then one request for the new day's blobs
    assert [c.sha for c in latest][0] == later
    new_blobs = present_blobs(fresh.git_dir) - held
    assert new_blobs == {upstream.git("rev-parse", f"{later}:src/sched/core.py")}
    assert again == read_all(fresh)[1:]


def test_a_server_without_filters_gets_a_full_mirror_and_one_log_line(
    upstream: RepoBuilder, tmp_path: Path, cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    url = serve(upstream, tmp_path / "served.git", allow_filter=False)

    with caplog.at_level(logging.INFO, logger="repodaily.sources.git"):
        mirror = open_repository(url, cache_dir=cache)

    assert [r.getMessage() for r in caplog.records] == [
        f"{url} does not serve partial clones (uploadpack.allowFilter): mirrored in full"
    ]
    assert mirror.blob_url is None
    assert present_blobs(mirror.git_dir) == present_blobs(upstream.path / ".git")
    assert read_all(mirror) == read_all(open_repository(str(upstream.path), cache_dir=cache))


def test_a_full_mirror_made_before_is_fetched_not_cloned_again(
    upstream: RepoBuilder, tmp_path: Path, cache: Path
) -> None:
    served = tmp_path / "served.git"
    url = serve(upstream, served, allow_filter=True)
    existing = cache / "repos" / mirror_dir_name(url)
    subprocess.run(["git", "clone", "-q", "--bare", url, str(existing)], check=True)
    marker = existing / "made-before"
    marker.touch()
    later = upstream.commit("[Core] Tune it", when=on_day(2, 20), files={"src/sched/core.py": "tuned\n"})
    upstream.git("push", "-q", str(served), "main")

    mirror = open_repository(url, cache_dir=cache)

    assert marker.exists() and mirror.git_dir == existing
    assert mirror.blob_url is None
    assert collect_commits(mirror, *DAYS[2])[0].sha == later
    assert present_blobs(mirror.git_dir) == present_blobs(upstream.path / ".git")


def test_blobs_that_cannot_be_fetched_leave_their_files_marked_missing(
    upstream: RepoBuilder, tmp_path: Path, cache: Path, caplog: pytest.LogCaptureFixture
) -> None:
    served = tmp_path / "served.git"
    mirror = open_repository(serve(upstream, served, allow_filter=True), cache_dir=cache)
    second_day = collect_commits(mirror, *DAYS[1])
    shutil.rmtree(served)

    with caplog.at_level(logging.WARNING, logger="repodaily.sources.git"):
        [(_, first), (_, second)] = collect_days(mirror, DAYS[:2])

    assert second == second_day
    assert [c.subject for c in first] == ["[Docs] Describe it", "[Core] Add the scheduler"]
    # The second day's rename fetched the scheduler's first version; nothing else of the first day is here.
    missing = {f.path: f.content_missing for c in first for f in c.files}
    assert missing == {"README.md": True, "docs/diagram.png": True, "src/scheduler.py": False}
    assert first[1].files[-1].patch.startswith("@@ -0,0 +1,40 @@\n+line 0\n")
    [warning] = caplog.records
    assert warning.getMessage().startswith(f"cannot fetch 3 file contents from {mirror.remote_url}: fatal:")


def test_a_rename_whose_blobs_cannot_be_fetched_is_listed_as_missing(
    upstream: RepoBuilder, tmp_path: Path, cache: Path
) -> None:
    served = tmp_path / "served.git"
    mirror = open_repository(serve(upstream, served, allow_filter=True), cache_dir=cache)
    shutil.rmtree(served)

    moved = collect_commits(mirror, *DAYS[1])[-1]

    assert moved.subject == "[Refactor] Move the scheduler (#12)"
    assert [(f.path, f.status, f.content_missing) for f in moved.files] == [
        ("src/sched/core.py", "added", True),
        ("src/scheduler.py", "deleted", True),
    ]


def test_a_password_in_the_url_fetches_the_blobs_and_never_reaches_the_mirror(
    upstream: RepoBuilder, tmp_path: Path, cache: Path
) -> None:
    serve(upstream, tmp_path / "served.git", allow_filter=True)

    with served_over_http(tmp_path, "alice", "s3cret-token") as host:
        mirror = open_repository(f"http://alice:s3cret-token@{host}/served.git", cache_dir=cache)
        commits = read_all(mirror)

    assert mirror.remote_url == f"http://{host}/served.git"
    assert len(commits) == 6 and not any(f.content_missing for c in commits for f in c.files)
    assert "s3cret" not in repr(mirror)
    stored = [path for path in mirror.git_dir.rglob("*") if path.is_file() and b"s3cret" in path.read_bytes()]
    assert stored == []
