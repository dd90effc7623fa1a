"""Files a user names — a config, conventions, labels, a batch's files, a template — opened only when regular.

A path can name anything the file system holds. A FIFO no one writes to blocks
``open()`` for ever; a device such as ``/dev/zero`` or ``/dev/urandom`` never
ends, so a reader that skips what it cannot use (a batch output's overlong
lines) reads on for ever; a directory fails later with a message about
something else. No file repodaily reads is any of these, so anything but a
regular file is refused before a byte is read: the FIFO is opened without
waiting for a writer, and what was opened is checked, not the path, which
could change in between. The one device let through is the null device
(``--config /dev/null``, the shell's way of saying "no config"), which reads as
an empty file at once.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

__all__ = ["NotRegularFile", "kind_of", "open_regular", "write_named"]

_KINDS = (
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def kind_of(mode: int) -> str:
    """What a file of ``mode`` (``st_mode``) is, in words: "a FIFO", "a directory", …"""
    return next((name for test, name in _KINDS if test(mode)), "a regular file" if stat.S_ISREG(mode) else "unknown")


class NotRegularFile(OSError):
    """An OSError, so every reader's handling of unreadable files (``strerror``) says it in one line."""

    def __init__(self, path: str | Path, mode: int) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({kind_of(mode)})", os.fspath(path))


def open_regular(path: str | Path) -> BinaryIO:
    """``path`` opened for reading in binary; a :class:`NotRegularFile` when it is not a regular file."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode) and not _is_null_device(opened):
            raise NotRegularFile(path, opened.st_mode)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _is_null_device(opened: os.stat_result) -> bool:
    try:
        return os.path.samestat(opened, os.stat(os.devnull))
    except OSError:
        return False


def write_named(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a file a user named to be written: a file, or a pipe someone reads (``/dev/stdout``).

    A FIFO no one reads would hold ``open()`` until someone does, for ever: it is
    refused (ENXIO) instead, since the file is opened without waiting for a reader.
    """
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NONBLOCK | os.O_CLOEXEC, 0o666)
    except OSError as exc:
        if exc.errno == errno.ENXIO:
            raise OSError(errno.ENXIO, "a FIFO no one reads", os.fspath(path)) from None
        raise
    with os.fdopen(fd, "wb") as stream:
        os.set_blocking(fd, True)
        stream.write(data)
