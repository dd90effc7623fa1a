"""Opening a repository: a local clone read in place, or a bare mirror of a URL kept in the cache.

A location is a local clone (used in place, never modified) or a URL, which is
mirrored as a blobless partial clone under the cache directory (commits and trees;
the blobs of the commits a report reads come later, see ``blobs``) and fetched
incrementally. A server that does not serve partial clones gets a full mirror, and
a full mirror made before stays one.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import stat
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from repodaily.errors import SourceError, StoreError
from repodaily.home import expand_home
from repodaily.sources.git.locations import is_url, mirror_dir_name, redact_credentials
from repodaily.sources.git.process import config_env, git_checked, git_text, git_text_or_none, run_git

# What git prints when the server ignores ``--filter`` (``uploadpack.allowFilter`` off);
# the clone goes on and brings every blob.
_FILTER_IGNORED = b"filtering not recognized by server"
_PARTIAL_SETTINGS = ("remote.origin.promisor", "remote.origin.partialclonefilter")

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class GitRepository:
    """A repository ready to read: where its objects are and which branch is the report's.

    ``blob_url`` is set for a blobless mirror only: the URL as given (credentials
    included, hence out of ``repr``) that the blobs a report reads are fetched from.
    """

    git_dir: Path
    branch: str
    remote_url: str | None
    blob_url: str | None = field(default=None, repr=False, compare=False)


def origin_env(url: str, public_url: str) -> dict[str, str]:
    """The environment that points a mirror's ``origin`` at ``url`` for one git command.

    ``origin`` keeps the URL without credentials on disk; git must still fetch through
    ``origin``, not through a bare URL, to inherit the mirror's blob filter.
    """
    return config_env({f"url.{url}.insteadOf": public_url}) if url != public_url else {}


def open_repository(location: str, *, cache_dir: Path, branch: str | None = None, fetch: bool = True) -> GitRepository:
    """A readable repository for ``location``: a local path, or a URL mirrored under ``cache_dir / "repos"``.

    A URL is cloned bare on first use and, when ``fetch`` is true, fetched on every
    later call (branches only), so a daily run transfers one day of objects. A local
    path is read as it is. ``branch`` defaults to the repository's default branch: the
    remote's HEAD for a mirror; ``origin/HEAD``, else the checked-out branch, for a path.
    Every failure is a :class:`SourceError` with one line naming the location.
    """
    if is_url(location):
        return _open_mirror(location, Path(cache_dir) / "repos", branch, fetch)
    return _open_local(expand_home(location), branch)


def _open_local(path: Path, branch: str | None) -> GitRepository:
    try:
        kind = path.stat().st_mode
    except FileNotFoundError:
        raise SourceError(f"repository path does not exist: {path}") from None
    except OSError as exc:  # a name longer than a file name, a directory we may not enter
        raise SourceError(f"repository path {path} is not usable: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(kind):
        raise SourceError(f"repository path is not a directory: {path}")
    # The ceiling stops git from finding a repository in a parent of ``path``.
    found = run_git(
        ["rev-parse", "--absolute-git-dir"], cwd=path, env={"GIT_CEILING_DIRECTORIES": str(path.resolve().parent)}
    )
    if found.returncode != 0:
        raise SourceError(f"not a git repository: {path}")
    # A path is bytes to the file system: one that is no UTF-8 must come back byte for byte, not as U+FFFD.
    repo_dir = Path(os.fsdecode(found.stdout.rstrip(b"\n")))
    if branch is None:
        origin_head = git_text_or_none(["symbolic-ref", "-q", "--short", "refs/remotes/origin/HEAD"], git_dir=repo_dir)
        branch = origin_head.removeprefix("origin/") if origin_head else _head_branch(repo_dir, str(path))
    require_branch(repo_dir, branch, str(path))
    remote_url = git_text_or_none(["config", "--get", "remote.origin.url"], git_dir=repo_dir)
    return GitRepository(repo_dir, branch, redact_credentials(remote_url) if remote_url else None)


def _open_mirror(url: str, repos_dir: Path, branch: str | None, fetch: bool) -> GitRepository:
    public_url = redact_credentials(url)
    mirror = repos_dir / mirror_dir_name(public_url)
    if not mirror.exists():
        _clone_mirror(url, public_url, mirror)
    elif fetch:
        _fetch_mirror(url, public_url, mirror, follow_remote_head=branch is None)
    if branch is None:
        branch = _head_branch(mirror, public_url)
    require_branch(mirror, branch, public_url)
    blobless = git_text_or_none(["config", "--bool", "--get", _PARTIAL_SETTINGS[0]], git_dir=mirror) == "true"
    return GitRepository(mirror, branch, public_url, blob_url=url if blobless else None)


def _clone_mirror(url: str, public_url: str, mirror: Path) -> None:
    """Clone bare and blobless into a temporary directory, then move it in: a failed clone leaves nothing behind.

    When the server ignores the filter, the clone holds every blob: the mirror is
    then a full one, and later fetches ask for no filter.
    """
    try:
        mirror.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{mirror.name}.", dir=mirror.parent))
    except OSError as exc:
        raise StoreError(f"cache directory {mirror.parent} is not usable: {exc.strerror or exc}") from exc
    try:
        cloned = git_checked(
            ["clone", "--bare", "--filter=blob:none", "--quiet", "--", url, str(staging)],
            failure=f"cannot clone {public_url}",
        )
        if _FILTER_IGNORED in cloned.stderr:
            log.info("%s does not serve partial clones (uploadpack.allowFilter): mirrored in full", public_url)
            for setting in _PARTIAL_SETTINGS:
                git_text(["config", "--unset", setting], git_dir=staging, failure=f"cannot set up {mirror}")
        # Keep tokens out of the cache: each fetch points origin at the URL it is given (origin_env).
        git_text(["config", "remote.origin.url", public_url], git_dir=staging, failure=f"cannot set up {mirror}")
        staging.rename(mirror)
    except OSError as exc:
        if not mirror.exists():  # a concurrent run that won the race is fine
            raise SourceError(f"cannot create the mirror of {public_url} at {mirror}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _fetch_mirror(url: str, public_url: str, mirror: Path, *, follow_remote_head: bool) -> None:
    """Bring the mirror's branches up to date; optionally move its HEAD to the remote's default branch.

    A blobless mirror stays blobless: new commits come with their trees only.
    """
    git_text(
        ["fetch", "--quiet", "--prune", "--no-tags", "origin", "+refs/heads/*:refs/heads/*"],
        git_dir=mirror,
        env=origin_env(url, public_url),
        failure=f"cannot fetch {public_url}",
    )
    if not follow_remote_head:
        return
    listing = git_text(
        ["ls-remote", "--symref", "--", url, "HEAD"], git_dir=mirror, failure=f"cannot query {public_url}"
    )
    symref = re.match(r"ref: (refs/heads/\S+)\tHEAD", listing)
    if symref:
        git_text(["symbolic-ref", "HEAD", symref.group(1)], git_dir=mirror, failure=f"cannot update {mirror}")


def _head_branch(git_dir: Path, location: str) -> str:
    head = git_text_or_none(["symbolic-ref", "-q", "--short", "HEAD"], git_dir=git_dir)
    if head is None:
        raise SourceError(f"cannot tell the default branch of {location} (detached HEAD); name a branch")
    return head


def _branch_ref(git_dir: Path, branch: str) -> str | None:
    """The full ref a branch name means: the local branch, else origin's branch of that name."""
    candidates = [f"refs/heads/{branch}", f"refs/remotes/origin/{branch}", f"refs/remotes/{branch}"]
    listed = git_text_or_none(["for-each-ref", "--format=%(refname)", *candidates], git_dir=git_dir) or ""
    existing = set(listed.splitlines())
    return next((ref for ref in candidates if ref in existing), None)


def require_branch(git_dir: Path, branch: str, location: str) -> str:
    """The full ref of ``branch`` in ``git_dir``; a SourceError naming ``location`` when there is none."""
    ref = _branch_ref(git_dir, branch)
    if ref is None:
        # A repository no one has pushed to yet holds no ref at all: its branch is unborn, not misnamed.
        if not git_text_or_none(["for-each-ref", "--count=1", "--format=%(refname)"], git_dir=git_dir):
            raise SourceError(f"{location} has no commits yet (branch {branch!r} is unborn)")
        raise SourceError(f"branch {branch!r} not found in {location}")
    return ref
