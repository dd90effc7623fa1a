"""Running git: the same output on every machine, git's own reason when it fails, and an end to every wait.

A remote that accepts the connection and then sends nothing is given up after a
minute (:mod:`.deadlines`), rather than holding a clone or fetch for ever. Every git
process is stopped when the run is interrupted (:mod:`repodaily.interrupts`), with
the helpers it started (``git-remote-https`` holds our pipes open after git is
gone). They stay in our process group, so ssh can still ask at the terminal.
"""

from __future__ import annotations

import io
import os
import signal
import subprocess
import tempfile
import threading
from contextlib import ExitStack, suppress
from pathlib import Path
from typing import IO

from repodaily.errors import SourceError
from repodaily.interrupts import stoppable
from repodaily.sources.git.deadlines import remote_deadlines
from repodaily.sources.git.locations import redact_credentials

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


def _stop(process: subprocess.Popen[bytes]) -> None:
    """End git and every helper it started, the helpers first (found in /proc, where the system has it)."""
    for pid in reversed(_descendants(process.pid)):
        with suppress(OSError):  # it ended meanwhile
            os.kill(pid, signal.SIGKILL)
    process.kill()


def _descendants(pid: int) -> list[int]:
    """The processes ``pid`` started and theirs, parents before children; none where /proc does not say."""
    found: list[int] = []
    try:
        children = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
    except OSError:
        return found
    for child in map(int, children):
        found += [child, *_descendants(child)]
    return found


def _git_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _GIT_ENV_DROPPED}
    return {**remote_deadlines(env), **env, **_GIT_ENV, **(extra or {})}


def run_git(
    args: list[str],
    *,
    git_dir: Path | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
    stdin: bytes | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """Run git to completion; the caller decides what a non-zero exit means."""
    argv = _git_argv(args, git_dir)
    read_end, write_end = os.pipe()
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=_git_env(env),
            stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=write_end,
        )
    except FileNotFoundError as exc:
        os.close(read_end)
        raise SourceError("git is not installed or not on PATH") from exc
    finally:
        os.close(write_end)
    with open(read_end, "rb") as errors, process, stoppable(lambda: _stop(process)):
        head = _Head(errors)
        head.start()
        stdout, _ = process.communicate(stdin)
        head.join()
    return subprocess.CompletedProcess(argv, process.returncode, stdout, head.kept)


#: How much of git's stderr is kept: its reason for a failure is in the first lines.
_STDERR_KEPT = 64 * 1024


class _Head(threading.Thread):
    """Reads a stream to its end, keeping its first :data:`_STDERR_KEPT` bytes.

    A remote may send progress messages (``remote: …``) for as long as it likes, and
    they keep the connection alive past any stall deadline; git relays each one to
    its stderr. Kept whole, they would grow the run's memory without bound.
    """

    def __init__(self, stream: io.BufferedReader) -> None:
        super().__init__(daemon=True)
        self._stream = stream
        self.kept = b""

    def run(self) -> None:
        kept = bytearray()
        while chunk := self._stream.read1(1 << 16):
            if len(kept) < _STDERR_KEPT:
                kept += chunk[: _STDERR_KEPT - len(kept)]
        self.kept = bytes(kept)


def git_checked(
    args: list[str], *, failure: str, git_dir: Path | None = None, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """Run git to completion; on failure a SourceError of ``failure`` plus git's own reason."""
    result = run_git(args, git_dir=git_dir, env=env)
    if result.returncode != 0:
        raise SourceError(redact_credentials(f"{failure}: {git_reason(result.stderr)}"))
    return result


def git_text(args: list[str], *, failure: str, git_dir: Path | None = None, env: dict[str, str] | None = None) -> str:
    """git's stdout as text; on failure a SourceError of ``failure`` plus git's own reason."""
    return git_checked(args, failure=failure, git_dir=git_dir, env=env).stdout.decode("utf-8", "replace").strip()


def config_env(settings: dict[str, str]) -> dict[str, str]:
    """``settings`` as git config passed in the environment, after any the environment already passes.

    Unlike ``-c key=value`` on the command line, a key may hold ``=`` (a URL with a
    token) and neither key nor value shows in the process list.
    """
    count = int(os.environ.get("GIT_CONFIG_COUNT", "0") or "0")
    env = {"GIT_CONFIG_COUNT": str(count + len(settings))}
    for index, (key, value) in enumerate(settings.items(), start=count):
        env[f"GIT_CONFIG_KEY_{index}"] = key
        env[f"GIT_CONFIG_VALUE_{index}"] = value
    return env


def git_text_or_none(
    args: list[str], *, git_dir: Path | None = None, cwd: Path | None = None, env: dict[str, str] | None = None
) -> str | None:
    """git's stdout as text, or None when git says no (a missing ref, an unset key)."""
    result = run_git(args, git_dir=git_dir, cwd=cwd, env=env)
    if result.returncode != 0:
        return None
    return result.stdout.decode("utf-8", "replace").strip() or None


def git_reason(stderr: bytes) -> str:
    """git's own reason for a failure in one line, credentials removed.

    That is its first line other than warnings and hints: the cause (``fatal: ... does
    not appear to be a git repository``, ``ssh: Could not resolve hostname``); the
    lines after it are generic advice.
    """
    lines = [line.strip() for line in stderr.decode("utf-8", "replace").splitlines() if line.strip()]
    reasons = [line for line in lines if not line.startswith(("warning:", "hint:"))] or lines
    return redact_credentials(reasons[0]) if reasons else "no message from git"


#: How much git may write ahead of its reader: a day or two of a busy repository's diffs.
_PIPE_BYTES = 1 << 20


def _widen(pipe: IO[bytes]) -> None:
    """Let git write up to :data:`_PIPE_BYTES` ahead of us, where the system allows (Linux).

    A reader that analyses one day before it reads the next would otherwise leave
    git waiting on a full 64 KiB pipe, then wait on git in turn: git's work and
    ours would take turns instead of overlapping.
    """
    try:
        import fcntl  # POSIX only
    except ImportError:
        return
    set_size = getattr(fcntl, "F_SETPIPE_SZ", None)  # Linux only
    if set_size is None:
        return
    try:
        fcntl.fcntl(pipe.fileno(), set_size, _PIPE_BYTES)
    except OSError:
        pass  # above the system's limit for us: git still runs, only less far ahead


class GitProcess:
    """A running git whose stdout is read as it comes.

    stderr goes to a temporary file, so a chatty git can never block on a full pipe
    while we are reading stdout.
    """

    def __init__(self, args: list[str], *, git_dir: Path, stdin: bytes | None = None) -> None:
        self._stderr = tempfile.TemporaryFile()
        self._stoppable = ExitStack()
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
        self._stoppable.enter_context(stoppable(lambda: _stop(self._process)))
        if stdin is not None:
            self._feed(stdin)
        assert self._process.stdout is not None
        self.stdout: IO[bytes] = self._process.stdout
        _widen(self.stdout)

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
        return git_reason(self._stderr.read())

    def __enter__(self) -> GitProcess:
        return self

    def __exit__(self, *exc_info: object) -> None:
        if self._process.poll() is None:
            self._process.kill()
        self._process.wait()
        self._stoppable.close()
        self.stdout.close()
        self._stderr.close()
