"""How long git may wait on a silent remote: git sets no deadline of its own.

A remote that takes the connection and then sends nothing — a hung server, a
proxy that swallows the request, a firewall that drops the replies — would hold
a clone or fetch, and the run with it, for ever. So git is told to give up
after :data:`STALL_S` seconds without a byte: over HTTP(S) through its own
``GIT_HTTP_LOW_SPEED_LIMIT``/``GIT_HTTP_LOW_SPEED_TIME``, over ssh through the
ssh client's ``ConnectTimeout`` (which also bounds the wait for the server's
greeting) and keep-alives. A user's own choice wins: those variables when the
environment sets them, and ``GIT_SSH_COMMAND``, ``GIT_SSH`` or a configured
``core.sshCommand``, which are left alone.
"""

from __future__ import annotations

import functools
import subprocess
from collections.abc import Mapping

__all__ = ["STALL_S", "remote_deadlines"]

#: Seconds a remote may send nothing at all before the clone or fetch is given up.
STALL_S = 60
# An ssh connection whose server stops answering its keep-alives is given up after STALL_S too.
_KEEPALIVE_S = 15


def remote_deadlines(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables that bound git's waits on a remote, for an environment that does not set its own."""
    deadlines = {"GIT_HTTP_LOW_SPEED_LIMIT": "1", "GIT_HTTP_LOW_SPEED_TIME": str(STALL_S)}
    if not {"GIT_SSH_COMMAND", "GIT_SSH"} & environ.keys() and not _ssh_command_configured():
        probes = max(STALL_S // _KEEPALIVE_S, 1)
        deadlines["GIT_SSH_COMMAND"] = (
            f"ssh -o ConnectTimeout={STALL_S} -o ServerAliveInterval={_KEEPALIVE_S} -o ServerAliveCountMax={probes}"
        )
    return {key: value for key, value in deadlines.items() if key not in environ}


@functools.cache
def _ssh_command_configured() -> bool:
    """Whether the user's git config names its own ssh command (``core.sshCommand``): asked once a process."""
    try:
        found = subprocess.run(
            ["git", "config", "--get", "core.sshCommand"], capture_output=True, stdin=subprocess.DEVNULL, check=False
        )
    except OSError:  # no git: whatever runs next says so
        return False
    return found.returncode == 0 and bool(found.stdout.strip())
