"""What ``git log -p`` is asked to print, and how its bytes are read back.

The stream is parsed as bytes, line by line, so a 100 MB generated diff costs at
most ``max_patch_bytes`` of memory per file while its ``+``/``-`` counts stay exact.
Every field is decoded from bytes; text that is not UTF-8 is decoded with U+FFFD
replacements and named in ``Commit.encoding_issues`` instead of failing the run.
Dates are asked for raw (seconds and offset as the header stores them), not as
ISO text, because git prints whatever offset a commit carries (``+99:99``) and
years past 9999; ``commits`` decides how to read those.
"""

from __future__ import annotations

from typing import IO

HEADER_START = b"\x00\x01commit\x00"
HEADER_END = b"\x00\x01end"
_FORMAT = "%x00%x01commit%x00%H%x00%P%x00%an%x00%ae%x00%ad%x00%cn%x00%cd%x00%B%x00%x01end"
# Diff options shared by the stream and by the missing-blob fallback, so both read alike.
DIFF_OPTIONS = [
    "-M",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--no-relative",
    "--src-prefix=a/",
    "--dst-prefix=b/",
]
# The commits named on stdin, headers only: no diff is made, so no blob is read.
HEADER_LOG = [
    "log",
    "--no-walk=unsorted",
    "--stdin",
    "--encoding=UTF-8",
    "--no-show-signature",
    "--date=raw",
    f"--format={_FORMAT}",
]
PATCH_LOG = [*HEADER_LOG, "-p", "--root", "--diff-merges=first-parent", *DIFF_OPTIONS]
# Lines outside hunks (headers, paths) are read whole up to this size even when the
# patch cap is smaller.
_MIN_LINE_CAP = 64 * 1024


class LineReader:
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


def decode(raw: bytes, field_name: str, issues: list[str]) -> str:
    """UTF-8 text of ``raw``; when it is not valid UTF-8, U+FFFD replacements and ``field_name`` noted once."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        if field_name not in issues:
            issues.append(field_name)
        return raw.decode("utf-8", "replace")
