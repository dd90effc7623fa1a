"""The git source: a repository location and a time window in, ``list[Commit]`` out.

A location is a local clone (used in place, never modified) or a URL, which is
mirrored as a bare clone under the cache directory and fetched incrementally.

A window is read with two git processes whatever its length: a cheap first-parent
listing (hashes and committer timestamps) picks the exact commits, then one
``git log -p`` over those commits streams every diff. The stream is parsed as bytes,
line by line, so a 100 MB generated diff costs at most ``max_patch_bytes`` of memory
per file while its ``+``/``-`` counts stay exact. One process per commit would be
about three times slower on a real day of vLLM.

Every field is decoded from bytes; text that is not UTF-8 is decoded with U+FFFD
replacements and named in ``Commit.encoding_issues`` instead of failing the run.
"""

from __future__ import annotations

import hashlib
import io
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import IO
from urllib.parse import urlsplit

from repodaily.errors import SourceError, StoreError
from repodaily.models import Commit, FileChange, FileStatus, Trailer


@dataclass(frozen=True)
class GitRepository:
    """A repository ready to read: where its objects are and which branch is the report's."""

    git_dir: Path
    branch: str
    remote_url: str | None


# --------------------------------------------------------------------------- running git

# Settings that make git's output the same on every machine, whatever the user's config.
_GIT_CONFIG = ("core.quotePath=false", "color.ui=never", "diff.suppressBlankEmpty=false")
_GIT_ENV = {"LC_ALL": "C", "GIT_TERMINAL_PROMPT": "0", "GIT_PAGER": "cat", "PAGER": "cat"}
# Variables that would point git at another repository or another diff program.
_GIT_ENV_DROPPED = (
    "GIT_DIR",
    "GIT_WORK_TREE",
    "GIT_INDEX_FILE",
    "GIT_OBJECT_DIRECTORY",
    "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR",
    "GIT_NAMESPACE",
    "GIT_EXTERNAL_DIFF",
    "GIT_CEILING_DIRECTORIES",
)


def _git_argv(args: list[str], git_dir: Path | None) -> list[str]:
    argv = ["git", "--no-pager"]
    for setting in _GIT_CONFIG:
        argv += ["-c", setting]
    if git_dir is not None:
        argv.append(f"--git-dir={git_dir}")
    return argv + args


def _git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROPPED}
    return {**env, **_GIT_ENV, **(extra or {})}


def _git(
    args: list[str],
    *,
    git_dir: Path | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run git to completion; the caller decides what a non-zero exit means."""
    try:
        return subprocess.run(
            _git_argv(args, git_dir),
            cwd=cwd,
            env=_git_env(env),
            input=stdin,
            stdin=None if stdin is not None else subprocess.DEVNULL,
            capture_output=True,
            check=False,
        )
    except FileNotFoundError as exc:
        raise SourceError("git is not installed or not on PATH") from exc


def _git_text(args: list[str], *, failure: str, git_dir: Path | None = None) -> str:
    """git's stdout as text; on failure a SourceError of ``failure`` plus git's own reason."""
    result = _git(args, git_dir=git_dir)
    if result.returncode != 0:
        raise SourceError(redact_credentials(f"{failure}: {_git_reason(result.stderr)}"))
    return result.stdout.decode("utf-8", "replace").strip()


def _git_text_or_none(
    args: list[str], *, git_dir: Path | None = None, cwd: Path | None = None, env: dict[str, str] | None = None
) -> str | None:
    """git's stdout as text, or None when git says no (a missing ref, an unset key)."""
    result = _git(args, git_dir=git_dir, cwd=cwd, env=env)
    if result.returncode != 0:
        return None
    return result.stdout.decode("utf-8", "replace").strip() or None


def _git_reason(stderr: bytes) -> str:
    """git's own reason for a failure in one line, credentials removed.

    That is its first line other than warnings and hints: the cause (``fatal: ... does
    not appear to be a git repository``, ``ssh: Could not resolve hostname``); the
    lines after it are generic advice.
    """
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    reasons = [line for line in lines if not line.startswith(("warning:", "hint:"))] or lines
    return redact_credentials(reasons[0]) if reasons else "no message from git"


class _GitProcess:
    """A running git whose stdout is read as it comes.

    stderr goes to a temporary file, so a chatty git can never block on a full pipe
    while we are reading stdout.
    """

    def __init__(self, args: list[str], *, git_dir: Path, stdin: bytes | None = None) -> None:
        self._stderr = tempfile.TemporaryFile()
        try:
            self._process = subprocess.Popen(
                _git_argv(args, git_dir),
                env=_git_env(),
                stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=self._stderr,
                bufsize=1 << 20,
            )
        except FileNotFoundError as exc:
            self._stderr.close()
            raise SourceError("git is not installed or not on PATH") from exc
        if stdin is not None:
            self._feed(stdin)
        assert self._process.stdout is not None
        self.stdout: IO[bytes] = self._process.stdout

    def _feed(self, data: bytes) -> None:
        """Write all of stdin up front: git reads every revision before it prints anything."""
        assert self._process.stdin is not None
        try:
            self._process.stdin.write(data)
            self._process.stdin.close()
        except BrokenPipeError:
            pass  # git stopped early; its exit status and stderr say why

    def error(self) -> str | None:
        """Wait for git to exit; its reason when it failed, else None."""
        if self._process.wait() == 0:
            return None
        self._stderr.seek(0)
        return _git_reason(self._stderr.read())

    def __enter__(self) -> _GitProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self.stdout.close()
        self._stderr.close()


# --------------------------------------------------------------------------- locations and names

_URL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP_RE = re.compile(r"^[\w.+-]+@[\w.-]+:")  # git@github.com:owner/repo.git
_USERINFO_RE = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/\s]*)@")


def redact_credentials(text: str) -> str:
    """``text`` with the user-info of every URL in it removed (``https://user:token@host`` → ``https://host``).

    Tokens travel in clone URLs; they must never reach a log line, an error or a report.
    """
    return _USERINFO_RE.sub(lambda m: m["scheme"], text)


def _is_url(location: str) -> bool:
    return bool(_URL_RE.match(location) or _SCP_RE.match(location))


def infer_repo_name(url_or_path: str) -> str | None:
    """``owner/name`` from the last two path segments of a clone URL, or None when it has fewer.

    ``https://github.com/vllm-project/vllm.git``, ``git@github.com:vllm-project/vllm.git``
    and ``file:///srv/git/vllm-project/vllm.git`` all give ``vllm-project/vllm``. A local
    path gives None: the directory a clone sits in is rarely its owner (use the
    ``remote_url`` of the opened repository instead).
    """
    text = url_or_path.strip()
    if scp := _SCP_RE.match(text):
        path = text[scp.end() :]
    elif _URL_RE.match(text):
        path = urlsplit(text).path
    else:
        return None
    segments = [s for s in path.strip("/").removesuffix(".git").split("/") if s]
    return "/".join(segments[-2:]) if len(segments) >= 2 else None


def _mirror_dir_name(public_url: str) -> str:
    """A directory name for a URL's mirror: readable, and unique by a hash of the whole URL."""
    normal = public_url.rstrip("/").removesuffix(".git")
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", _URL_RE.sub("", normal)).strip("_.")[:60]
    digest = hashlib.sha256(normal.encode("utf-8")).hexdigest()[:12]
    return f"{readable}-{digest}"


# --------------------------------------------------------------------------- opening a repository


def open_repository(
    location: str, *, cache_dir: Path, branch: str | None = None, fetch: bool = True
) -> GitRepository:
    """A readable repository for ``location``: a local path, or a URL mirrored under ``cache_dir / "repos"``.

    A URL is cloned bare on first use and, when ``fetch`` is true, fetched on every
    later call (branches only), so a daily run transfers one day of objects. A local
    path is read as it is. ``branch`` defaults to the repository's default branch: the
    remote's HEAD for a mirror; ``origin/HEAD``, else the checked-out branch, for a path.
    Every failure is a :class:`SourceError` with one line naming the location.
    """
    if _is_url(location):
        return _open_mirror(location, Path(cache_dir) / "repos", branch, fetch)
    return _open_local(Path(location).expanduser(), branch)


def _open_local(path: Path, branch: str | None) -> GitRepository:
    if not path.exists():
        raise SourceError(f"repository path does not exist: {path}")
    if not path.is_dir():
        raise SourceError(f"repository path is not a directory: {path}")
    # The ceiling stops git from finding a repository in a parent of ``path``.
    git_dir = _git_text_or_none(
        ["rev-parse", "--absolute-git-dir"], cwd=path, env={"GIT_CEILING_DIRECTORIES": str(path.resolve().parent)}
    )
    if git_dir is None:
        raise SourceError(f"not a git repository: {path}")
    repo_dir = Path(git_dir)
    if branch is None:
        origin_head = _git_text_or_none(["symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"], git_dir=repo_dir)
        branch = origin_head.removeprefix("origin/") if origin_head else _head_branch(repo_dir, str(path))
    _require_branch(repo_dir, branch, str(path))
    remote_url = _git_text_or_none(["config", "--get", "remote.origin.url"], git_dir=repo_dir)
    return GitRepository(repo_dir, branch, redact_credentials(remote_url) if remote_url else None)


def _open_mirror(url: str, repos_dir: Path, branch: str | None, fetch: bool) -> GitRepository:
    public_url = redact_credentials(url)
    mirror = repos_dir / _mirror_dir_name(public_url)
    if not mirror.exists():
        _clone_mirror(url, public_url, mirror)
    elif fetch:
        _fetch_mirror(url, public_url, mirror, follow_remote_head=branch is None)
    if branch is None:
        branch = _head_branch(mirror, public_url)
    _require_branch(mirror, branch, public_url)
    return GitRepository(mirror, branch, public_url)


def _clone_mirror(url: str, public_url: str, mirror: Path) -> None:
    """Clone bare into a temporary directory, then move it in: a failed clone leaves nothing behind."""
    try:
        mirror.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{mirror.name}.", dir=mirror.parent))
    except OSError as exc:
        raise StoreError(f"cache directory {mirror.parent} is not usable: {exc.strerror or exc}") from exc
    try:
        _git_text(["clone", "--bare", "--quiet", "--", url, str(staging)], failure=f"cannot clone {public_url}")
        # Keep tokens out of the cache: fetches pass the URL they are given instead.
        _git_text(["config", "remote.origin.url", public_url], git_dir=staging, failure=f"cannot set up {mirror}")
        staging.rename(mirror)
    except OSError as exc:
        if not mirror.exists():  # a concurrent run that won the race is fine
            raise SourceError(f"cannot create the mirror of {public_url} at {mirror}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _fetch_mirror(url: str, public_url: str, mirror: Path, *, follow_remote_head: bool) -> None:
    """Bring the mirror's branches up to date; optionally move its HEAD to the remote's default branch."""
    _git_text(
        ["fetch", "--quiet", "--prune", "--no-tags", "--", url, "+refs/heads/*:refs/heads/*"],
        git_dir=mirror,
        failure=f"cannot fetch {public_url}",
    )
    if not follow_remote_head:
        return
    listing = _git_text(["ls-remote", "--symref", "--", url, "HEAD"], git_dir=mirror, failure=f"cannot query {public_url}")
    symref = re.match(r"ref: (refs/heads/\S+)\tHEAD", listing)
    if symref:
        _git_text(["symbolic-ref", "HEAD", symref.group(1)], git_dir=mirror, failure=f"cannot update {mirror}")


def _head_branch(git_dir: Path, location: str) -> str:
    head = _git_text_or_none(["symbolic-ref", "-q", "--short", "HEAD"], git_dir=git_dir)
    if head is None:
        raise SourceError(f"cannot tell the default branch of {location} (detached HEAD); name a branch")
    return head


def _branch_ref(git_dir: Path, branch: str) -> str | None:
    """The full ref a branch name means: the local branch, else origin's branch of that name."""
    candidates = [f"refs/heads/{branch}", f"refs/remotes/origin/{branch}", f"refs/remotes/{branch}"]
    listed = _git_text_or_none(["for-each-ref", "--format=%(refname)", *candidates], git_dir=git_dir) or ""
    existing = set(listed.splitlines())
    return next((ref for ref in candidates if ref in existing), None)


def _require_branch(git_dir: Path, branch: str, location: str) -> str:
    ref = _branch_ref(git_dir, branch)
    if ref is None:
        raise SourceError(f"branch {branch!r} not found in {location}")
    return ref


# --------------------------------------------------------------------------- the window

# ``git log --since`` stops at the first commit older than the bound, and committer
# dates on a first-parent line are not monotonic (a fast-forward push can carry a
# commit made days earlier). So the listing walks past the window and only stops
# after a run of commits that are all well before it.
_WINDOW_SLACK = timedelta(days=2)
_OLD_RUN_TO_STOP = 20


def collect_commits(
    repo: GitRepository, start: datetime, end: datetime, *, max_patch_bytes: int = 1_000_000
) -> list[Commit]:
    """Commits first-parent on ``repo.branch`` whose committer date is in [start, end], newest first.

    ``start`` and ``end`` must be timezone-aware. Each commit carries its diff against
    its first parent (merges included), patches cut at ``max_patch_bytes`` per file.
    A many-day window costs the same two git processes as a single day, so callers
    that need many days collect once and split by ``committed_at``.
    """
    if start.tzinfo is None or end.tzinfo is None:
        raise ValueError("start and end must be timezone-aware datetimes")
    ref = _require_branch(repo.git_dir, repo.branch, str(repo.git_dir))
    shas = _shas_in_window(repo.git_dir, ref, start, end)
    return _read_commits(repo.git_dir, shas, max_patch_bytes) if shas else []


def _shas_in_window(git_dir: Path, ref: str, start: datetime, end: datetime) -> list[str]:
    """First-parent SHAs committed in [start, end], newest first, from a listing without diffs."""
    first, last = start.timestamp(), end.timestamp()
    stop_before = (start - _WINDOW_SLACK).timestamp()
    shas: list[str] = []
    old_run = 0
    args = ["log", "--first-parent", "--no-show-signature", "--format=%H %ct", ref, "--"]
    with _GitProcess(args, git_dir=git_dir) as git:
        for line in git.stdout:
            sha, _, stamp = line.decode("ascii").partition(" ")
            committed = int(stamp)
            if first <= committed <= last:
                shas.append(sha)
            old_run = old_run + 1 if committed < stop_before else 0
            if old_run >= _OLD_RUN_TO_STOP:
                return shas
        error = git.error()
    if error is not None:
        raise SourceError(f"cannot list commits of {ref} in {git_dir}: {error}")
    return shas


# --------------------------------------------------------------------------- the diff stream

_HEADER_START = b"\x00\x01commit\x00"
_HEADER_END = b"\x00\x01end"
_FORMAT = "%x00%x01commit%x00%H%x00%P%x00%an%x00%ae%x00%aI%x00%cn%x00%cI%x00%B%x00%x01end"
# Diff options shared by the stream and by the missing-blob fallback, so both read alike.
_DIFF_OPTIONS = [
    "-M",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
]
_PATCH_LOG = [
    "log",
    "--no-walk=unsorted",
    "--stdin",
    "-p",
    "--root",
    "--diff-merges=first-parent",
    "--encoding=UTF-8",
    "--no-show-signature",
    f"--format={_FORMAT}",
    *_DIFF_OPTIONS,
]
# Lines outside hunks (headers, paths) are read whole up to this size even when the
# patch cap is smaller.
_MIN_LINE_CAP = 64 * 1024


def _read_commits(git_dir: Path, shas: list[str], max_patch_bytes: int) -> list[Commit]:
    """Every commit of ``shas``, in that order, from one ``git log -p`` stream.

    When git dies inside a commit because blobs are absent (a partial clone that
    cannot reach its remote), that commit is rebuilt without them and the stream
    resumes after it; any other failure is a SourceError.
    """
    commits: list[Commit] = []
    while len(commits) < len(shas):
        todo = shas[len(commits) :]
        with _GitProcess(_PATCH_LOG, git_dir=git_dir, stdin="\n".join(todo).encode("ascii") + b"\n") as git:
            last: _ParsedCommit | None = None
            for parsed in _parse_log(_LineReader(git.stdout, max_patch_bytes), max_patch_bytes):
                if last is not None:
                    commits.append(last.commit())
                last = parsed
            error = git.error()
        if error is None and last is not None:
            commits.append(last.commit())
        elif last is None or (rescued := _commit_with_missing_blobs(git_dir, last, max_patch_bytes)) is None:
            raise SourceError(f"cannot read diffs in {git_dir}: {error or 'git printed no commits'}")
        else:
            commits.append(rescued)
    if [c.sha for c in commits] != shas:
        raise SourceError(f"git returned other commits than asked in {git_dir}")
    return commits


class _LineReader:
    """Lines of git's stdout, each cut at a cap so one enormous line cannot fill memory.

    A line longer than the cap is returned cut (without its newline) and the rest of
    it is skipped; the cap is above ``max_patch_bytes``, so a cut line never enters a
    kept patch, and it still counts as one line.
    """

    def __init__(self, stream: IO[bytes], max_patch_bytes: int) -> None:
        self._stream = stream
        self._cap = max(max_patch_bytes + 1, _MIN_LINE_CAP)

    def line(self) -> bytes:
        """The next line (b"" at the end)."""
        line = self._stream.readline(self._cap)
        if len(line) == self._cap and not line.endswith(b"\n"):
            rest = line
            while rest and not rest.endswith(b"\n"):
                rest = self._stream.readline(self._cap)
        return line

    def whole_line(self) -> bytes:
        """The next line, however long: commit messages are never cut."""
        return self._stream.readline()


@dataclass
class _Header:
    """A commit's metadata as git printed it, decoded."""

    sha: str
    parents: list[str]
    author_name: str
    author_email: str
    authored_at: datetime
    committer_name: str
    committed_at: datetime
    message: str
    encoding_issues: list[str]


@dataclass
class _ParsedCommit:
    header: _Header
    files: list[_FileDraft]

    def commit(self) -> Commit:
        issues = list(self.header.encoding_issues)
        files = [draft.finish(issues) for draft in self.files]
        return _build_commit(self.header, files, issues)


def _parse_log(lines: _LineReader, max_patch_bytes: int) -> Iterator[_ParsedCommit]:
    """Commits from a ``git log -p --format=_FORMAT`` stream, each as soon as it has been read."""
    line = lines.line()
    while line:
        if not line.startswith(_HEADER_START):
            line = lines.line()  # the blank line between a message and its diff
            continue
        header_lines = [line]
        while line and _HEADER_END not in line:
            line = lines.whole_line()
            header_lines.append(line)
        if not line:
            return  # git stopped inside a header; its exit status tells why
        header = _parse_header(b"".join(header_lines))
        files, line = _parse_files(lines, lines.line(), max_patch_bytes)
        yield _ParsedCommit(header, files)


def _parse_header(raw: bytes) -> _Header:
    start, end = len(_HEADER_START), raw.find(_HEADER_END)
    sha, parents, author, email, authored, committer, committed, message = raw[start:end].split(b"\x00", 7)
    issues: list[str] = []
    return _Header(
        sha=sha.decode("ascii"),
        parents=parents.decode("ascii").split(),
        author_name=_decode(author, "author", issues),
        author_email=_decode(email, "author", issues),
        authored_at=datetime.fromisoformat(authored.decode("ascii")),
        committer_name=_decode(committer, "committer", issues),
        committed_at=datetime.fromisoformat(committed.decode("ascii")),
        message=_decode(message, "message", issues),
        encoding_issues=issues,
    )


def _decode(raw: bytes, field_name: str, issues: list[str]) -> str:
    """UTF-8 text of ``raw``; when it is not valid UTF-8, U+FFFD replacements and ``field_name`` noted once."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        if field_name not in issues:
            issues.append(field_name)
        return raw.decode("utf-8", "replace")


def _decode_path(raw: bytes, issues: list[str]) -> str:
    """A path's text; a non-UTF-8 path is noted as ``path:<its text with replacements>``."""
    text = raw.decode("utf-8", "replace")
    return _decode(raw, f"path:{text}", issues)


def _build_commit(header: _Header, files: list[FileChange], issues: list[str]) -> Commit:
    subject, body = _split_message(header.message)
    return Commit(
        sha=header.sha,
        parents=header.parents,
        author_name=header.author_name,
        author_email=header.author_email,
        authored_at=header.authored_at,
        committer_name=header.committer_name,
        committed_at=header.committed_at,
        subject=subject,
        body=body,
        trailers=_trailers(header.message),
        files=files,
        encoding_issues=issues,
    )


# --------------------------------------------------------------------------- messages and trailers

_TRAILER_RE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*)$")
_GIT_TRAILER_KEYS = {"signed-off-by", "co-authored-by"}


def _split_message(message: str) -> tuple[str, str]:
    """Subject (the first line) and body (the rest, without surrounding blank lines)."""
    subject, _, body = message.strip("\n").partition("\n")
    return subject.rstrip(), body.lstrip("\n").rstrip()


def _trailers(message: str) -> list[Trailer]:
    """``Key: value`` lines of the message's last paragraph, as ``git interpret-trailers`` reads them.

    The paragraph counts when every line is a trailer (or continues one), or when at
    least a quarter are and one is a git-generated kind such as ``Signed-off-by``; the
    subject paragraph never does.
    """
    paragraphs = [p for p in re.split(r"\n[ \t]*\n", message.strip()) if p.strip()]
    if len(paragraphs) < 2:
        return []
    trailers: list[Trailer] = []
    others = 0
    for line in paragraphs[-1].splitlines():
        if line[:1].isspace() and trailers:
            trailers[-1].value = f"{trailers[-1].value} {line.strip()}"
        elif match := _TRAILER_RE.match(line):
            trailers.append(Trailer(key=match.group(1), value=match.group(2).strip()))
        else:
            others += 1
    if not others:
        return trailers
    generated = any(t.key.lower() in _GIT_TRAILER_KEYS for t in trailers)
    return trailers if generated and 3 * len(trailers) >= others else []


# --------------------------------------------------------------------------- files and hunks

_HUNK_RE = re.compile(rb"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_QUOTE_ESCAPES = {
    ord("a"): b"\a",
    ord("b"): b"\b",
    ord("f"): b"\f",
    ord("n"): b"\n",
    ord("r"): b"\r",
    ord("t"): b"\t",
    ord("v"): b"\v",
    ord('"'): b'"',
    ord("\\"): b"\\",
}


@dataclass
class _FileDraft:
    """One file's diff while it is being read: paths as bytes, counts, and the kept patch."""

    path: bytes
    max_patch_bytes: int
    old_path: bytes | None = None
    status: FileStatus = FileStatus.modified
    binary: bool = False
    content_missing: bool = False
    additions: int = 0
    deletions: int = 0
    patch: list[bytes] = field(default_factory=list)
    patch_size: int = 0
    truncated: bool = False

    def keep(self, line: bytes) -> None:
        """Add a patch line while it fits the cap; after the first that does not, keep nothing more."""
        if self.truncated:
            return
        if self.patch_size + len(line) > self.max_patch_bytes:
            self.truncated = True
            return
        self.patch.append(line)
        self.patch_size += len(line)

    def finish(self, issues: list[str]) -> FileChange:
        path = _decode_path(self.path, issues)
        return FileChange(
            path=path,
            old_path=_decode_path(self.old_path, issues) if self.old_path is not None else None,
            status=self.status,
            additions=self.additions,
            deletions=self.deletions,
            binary=self.binary,
            patch=_decode(b"".join(self.patch), f"patch:{path}", issues),
            patch_truncated=self.truncated,
            content_missing=self.content_missing,
        )


def _parse_files(lines: _LineReader, line: bytes, max_patch_bytes: int) -> tuple[list[_FileDraft], bytes]:
    """The file sections of one commit's diff; returns them and the next commit's first line."""
    files: list[_FileDraft] = []
    while line and not line.startswith(_HEADER_START):
        if line.startswith(b"diff --git "):
            draft, line = _parse_file(lines, line, max_patch_bytes)
            files.append(draft)
        else:
            line = lines.line()
    return files, line


def _parse_file(lines: _LineReader, diff_line: bytes, max_patch_bytes: int) -> tuple[_FileDraft, bytes]:
    """One file's section, from its ``diff --git`` line; returns it and the first line after it."""
    path = _diff_git_path(diff_line[len(b"diff --git ") :].rstrip(b"\n"))
    draft = _FileDraft(path=path, max_patch_bytes=max_patch_bytes)
    line = lines.line()
    while line and not line.startswith((b"diff --git ", _HEADER_START)):
        if line.startswith(b"@@"):
            line = _parse_hunk(lines, line, draft)
            continue
        if line.startswith(b"\\"):  # "\ No newline at end of file" after a hunk's last line
            draft.keep(line)
        elif line.startswith(b"new file mode "):
            draft.status = FileStatus.added
        elif line.startswith(b"deleted file mode "):
            draft.status = FileStatus.deleted
        elif line.startswith(b"rename from "):
            draft.status, draft.old_path = FileStatus.renamed, _path_token(line[len(b"rename from ") :])
        elif line.startswith(b"rename to "):
            draft.path = _path_token(line[len(b"rename to ") :])
        elif line.startswith(b"Binary files "):
            draft.binary = True
        line = lines.line()
    return draft, line


def _parse_hunk(lines: _LineReader, hunk_header: bytes, draft: _FileDraft) -> bytes:
    """Count and keep one hunk, reading exactly the lines its header announces.

    Counting by the header rather than by a line's first character means content
    that looks like a header (``diff --git`` inside a patched file) cannot confuse us.
    """
    match = _HUNK_RE.match(hunk_header)
    if match is None:
        raise SourceError(f"unreadable hunk header in git's output: {hunk_header[:80]!r}")
    old_left = int(match.group(1) or 1)
    new_left = int(match.group(2) or 1)
    draft.keep(hunk_header)
    while old_left > 0 or new_left > 0:
        line = lines.line()
        if not line:
            break
        marker = line[:1]
        if marker == b"+":
            new_left -= 1
            draft.additions += 1
        elif marker == b"-":
            old_left -= 1
            draft.deletions += 1
        elif marker != b"\\":
            old_left -= 1
            new_left -= 1
        draft.keep(line)
    return lines.line()


def _diff_git_path(rest: bytes) -> bytes:
    """The path named by what follows ``diff --git``: ``a/P b/P``, both sides C-quoted when P is unusual.

    Outside renames both sides are the same path, which settles paths that contain
    `` b/`` themselves. A rename names its paths again on ``rename from/to`` lines,
    which replace this guess.
    """
    if rest.startswith(b'"'):
        _, new = _unquote(rest)
        return _path_token(new.removeprefix(b" ")).removeprefix(b"b/")
    half, odd = divmod(len(rest) - len(b"a/ b/"), 2)
    same = rest[2 : 2 + half]
    if not odd and rest == b"a/" + same + b" b/" + same:
        return same
    return rest.partition(b" b/")[2]


def _path_token(raw: bytes) -> bytes:
    raw = raw.rstrip(b"\n")
    return _unquote(raw)[0] if raw.startswith(b'"') else raw


def _unquote(quoted: bytes) -> tuple[bytes, bytes]:
    """Undo git's C-quoting of a path (``"t\\303\\251st"`` → ``tést`` as bytes); returns it and what follows."""
    out = bytearray()
    i = 1
    while i < len(quoted):
        char = quoted[i]
        if char == ord('"'):
            return bytes(out), quoted[i + 1 :]
        if char == ord("\\") and i + 1 < len(quoted):
            octal = quoted[i + 1 : i + 4]
            if len(octal) == 3 and all(ord("0") <= c <= ord("7") for c in octal):
                out.append(int(octal, 8) & 0xFF)
                i += 4
                continue
            out += _QUOTE_ESCAPES.get(quoted[i + 1], quoted[i + 1 : i + 2])
            i += 2
            continue
        out.append(char)
        i += 1
    return bytes(out), b""


# --------------------------------------------------------------------------- partial clones

_RAW_STATUS = {"A": FileStatus.added, "D": FileStatus.deleted}
_NULL_OID = re.compile(r"^0+$")


def _commit_with_missing_blobs(git_dir: Path, parsed: _ParsedCommit, max_patch_bytes: int) -> Commit | None:
    """The commit git could not diff, rebuilt around the blobs it lacks; None when none are lacking.

    Files whose content is present get their patch as usual; each absent one is
    listed with its status and ``content_missing`` set, counts unknown (0).
    """
    header = parsed.header
    trees = [header.parents[0], header.sha] if header.parents else ["--root", header.sha]
    raw = _git(["diff-tree", "-r", "-z", "--no-abbrev", "--no-renames", *trees], git_dir=git_dir)
    entries = _raw_entries(raw.stdout)
    oids = {oid for _, old, new, _ in entries for oid in (old, new) if not _NULL_OID.match(oid)}
    missing = _missing_objects(git_dir, oids)
    absent = [(status, path) for status, old, new, path in entries if old in missing or new in missing]
    if not absent:
        return None
    excludes = [f":(exclude,literal){os.fsdecode(path)}" for _, path in absent]
    diff = _git(["diff-tree", "-r", "-p", *_DIFF_OPTIONS, *trees, "--", *excludes], git_dir=git_dir)
    if diff.returncode != 0:
        return None
    lines = _LineReader(io.BytesIO(diff.stdout), max_patch_bytes)
    present, _ = _parse_files(lines, lines.line(), max_patch_bytes)
    unreadable = [
        _FileDraft(path=path, max_patch_bytes=max_patch_bytes, status=status, content_missing=True)
        for status, path in absent
    ]
    return _ParsedCommit(header, sorted(present + unreadable, key=lambda draft: draft.path)).commit()


def _raw_entries(raw: bytes) -> list[tuple[FileStatus, str, str, bytes]]:
    """(status, old blob, new blob, path) from ``git diff-tree --raw -z --no-renames``."""
    fields = raw.split(b"\x00")
    entries = []
    for meta, path in zip(fields[0::2], fields[1::2], strict=False):
        if not meta.startswith(b":"):
            continue
        _, _, old, new, status = meta.decode("ascii").split(" ")
        entries.append((_RAW_STATUS.get(status[:1], FileStatus.modified), old, new, path))
    return entries


def _missing_objects(git_dir: Path, oids: set[str]) -> set[str]:
    if not oids:
        return set()
    listing = _git(["cat-file", "--batch-check"], git_dir=git_dir, stdin="".join(f"{o}\n" for o in oids).encode())
    lines = listing.stdout.decode("ascii", "replace").splitlines()
    return {line.split(" ")[0] for line in lines if line.endswith(" missing")}
