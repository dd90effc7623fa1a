"""A commit message parsed once, into the parts every later stage reads.

A source hands each commit's message to :func:`parse_message` (the git source
does; a GitHub source would parse the same text the same way), and the parts
(:class:`~repodaily.models.MessageParts`) travel as fields of
:class:`~repodaily.models.Commit` and then :class:`~repodaily.models.AnalysisInput`,
so the digest and the analyzers read fields instead of each keeping its own copy
of these patterns:

- the **subject** (first line) and **body** (the rest, without surrounding blank lines);
- the **pull request**: the ``(#N)`` suffix GitHub's squash merge appends, or a
  ``Merge pull request #N from …`` subject; the **title** is the subject without that suffix;
- the **revert** target: the SHA of the ``This reverts commit <sha>`` line ``git revert``
  writes, and the title a ``Revert "<title>"`` subject quotes — after any leading
  ``[Tag]``s, with or without quotes or a colon; a nested ``Revert "Revert "…""`` keeps
  its inner title whole, quotes and all, for whoever reads it to parse again;
- the ``[k/N]`` **series** marker (``[2/N]``, ``[last/5]``, ``[1 / 3]``), keyed by the
  title before it (usually the tags);
- the **trailers**, the ``Key: value`` lines of the last paragraph as
  ``git interpret-trailers`` reads them;
- the commit table's **headline lines**, the message up to its first sign-off (the
  reference reports' cell), and the body's **prose**, without the sign-off and other
  attribution lines wherever they stand: they say who, not what.

Analyzers that read titles they derive themselves (a pull-request merge's title in its
body, the inner title of a revert) parse them with :func:`parse_subject`, and split
tags with :func:`split_tags`, so that a title means the same wherever it comes from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from repodaily.models import MessageParts, RevertRef, SeriesRef, Trailer

__all__ = ["SubjectParts", "parse_message", "parse_subject", "reverted_title", "split_tags", "without_revert_notice"]

#: Started only where a run of blanks starts: tried inside a long run too, it would cost time quadratic in it.
_PR_SUFFIX = re.compile(r"(?<!\s)\s*\(#(?P<number>\d+)\)\s*$")
_PR_MERGE = re.compile(r"^Merge pull request #(?P<number>\d+) from ")
_LEADING_TAG = re.compile(r"^\s*\[([^\[\]]{1,80})\]\s*[:\-–—]?\s*")
_REVERT_WORD = re.compile(r"^revert\b(?P<words>.*)$", re.IGNORECASE)
_QUOTED = re.compile(r'^\s*:?\s*"(?P<title>.*)"\s*$')
_REVERT_NOTICE = re.compile(r"This reverts commit (?P<sha>[0-9a-f]{7,40})\.?", re.IGNORECASE)
_SERIES = re.compile(r"\[(?P<part>\d+|last)\s*/\s*(?P<total>\d+|n)\]", re.IGNORECASE)
# git allows blanks before a trailer's colon; a sign-off line, as the reference reports cut the
# table at it, has the colon right after the key, and may be indented.
_KEY_VALUE = re.compile(r"^(?P<indent>\s*)(?P<key>[A-Za-z0-9][A-Za-z0-9-]*)(?P<gap>[ \t]*):[ \t]*(?P<value>.*)$")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")

# The sign-offs git writes itself: the commit table stops at the first, and a last
# paragraph holding one is read as trailers even with other lines in it.
_SIGN_OFF_KEYS = frozenset({"signed-off-by", "co-authored-by"})
# Lines that credit people and say nothing about the change; prose drops them wherever they
# stand, because a squash merge pastes each squashed commit's sign-offs into the middle of its body.
_ATTRIBUTION_KEYS = _SIGN_OFF_KEYS | {
    "reviewed-by",
    "acked-by",
    "tested-by",
    "reported-by",
    "suggested-by",
    "helped-by",
    "cc",
    "change-id",
}


@dataclass(frozen=True)
class SubjectParts:
    """What a title line says: its pull request, the title without it, what it reverts, its series."""

    title: str
    pr_number: int | None = None
    reverts: str | None = None  # None: not a revert; "": a revert that names nothing
    series: SeriesRef | None = None


def parse_message(message: str) -> MessageParts:
    """The parts of a commit message; ``\\r\\n`` line ends read like ``\\n`` (the body keeps them)."""
    subject, _, body = message.strip("\n").partition("\n")
    subject, body = subject.rstrip(), body.lstrip("\n").rstrip()
    parts = parse_subject(subject)
    notice = _REVERT_NOTICE.search(body)
    sha = notice.group("sha").lower() if notice else None
    whole = f"{subject}\n\n{body}" if body else subject
    return MessageParts(
        subject=subject,
        body=body,
        title=parts.title,
        pr_number=parts.pr_number,
        revert=RevertRef(sha=sha, title=parts.reverts) if sha or parts.reverts is not None else None,
        series=parts.series,
        trailers=_trailers(message),
        headline_lines=_headline_lines(whole),
        prose="\n".join(line for line in body.splitlines() if _sign_off_key(line) not in _ATTRIBUTION_KEYS),
    )


def parse_subject(subject: str) -> SubjectParts:
    """The parts of one title line, leading and trailing blanks aside."""
    line = subject.strip()
    suffix = _PR_SUFFIX.search(line)
    title = line[: suffix.start()] if suffix else line
    pull_request = suffix or _PR_MERGE.match(line)
    words = _REVERT_WORD.match(split_tags(title)[1])
    series = _SERIES.search(title)
    return SubjectParts(
        title=title,
        pr_number=int(pull_request.group("number")) if pull_request else None,
        reverts=reverted_title(words.group("words")) if words else None,
        series=_series(title, series) if series else None,
    )


def split_tags(title: str) -> tuple[tuple[str, ...], str]:
    """A title's leading ``[Tag]`` prefixes (vLLM style, each maybe followed by ``:`` or a dash) and the rest."""
    tags: list[str] = []
    while match := _LEADING_TAG.match(title):
        tags.append(match.group(1).strip())
        title = title[match.end() :]
    return tuple(tags), title


def reverted_title(words: str) -> str:
    """What the words after ``Revert`` name: a title quoted whole (without its ``(#N)``), else the words unquoted."""
    if match := _QUOTED.match(words):
        return _PR_SUFFIX.sub("", match.group("title").strip())
    return words.strip().removeprefix(":").strip().strip('"').strip()


def without_revert_notice(text: str) -> str:
    """``text`` without the ``This reverts commit <sha>.`` it opens with, if it does: a quote should give the reason."""
    match = _REVERT_NOTICE.match(text)
    return text[match.end() :].lstrip() if match else text


def _series(title: str, match: re.Match[str]) -> SeriesRef:
    part, total = match.group("part"), match.group("total")
    return SeriesRef(
        part="last" if part.lower() == "last" else int(part),
        total=None if total.lower() == "n" else int(total),
        key=title[: match.start()].strip(),
    )


def _sign_off_key(line: str) -> str | None:
    """The lower-case key of a line written like a sign-off (``Key:`` with the colon right after it), if it is one."""
    match = _KEY_VALUE.match(line)
    return match.group("key").lower() if match and not match.group("gap") else None


def _headline_lines(message: str) -> list[str]:
    """The lines before the first sign-off, blank ones dropped: the commit table's cell, as the reference has it."""
    lines: list[str] = []
    for line in message.splitlines():
        if _sign_off_key(line) in _SIGN_OFF_KEYS:
            break
        if line.strip():
            lines.append(line)
    return lines


def _trailers(message: str) -> list[Trailer]:
    """``Key: value`` lines of the message's last paragraph, as ``git interpret-trailers`` reads them.

    The paragraph counts when every line is a trailer (or an indented continuation of
    one), or when at least a quarter are and one is a sign-off git writes; the subject
    paragraph never does.
    """
    paragraphs = [p for p in _PARAGRAPH_BREAK.split(message.replace("\r\n", "\n").strip()) if p.strip()]
    if len(paragraphs) < 2:
        return []
    pairs: list[list[str]] = []
    others = 0
    for line in paragraphs[-1].splitlines():
        if line[:1].isspace() and pairs:
            pairs[-1][1] = f"{pairs[-1][1]} {line.strip()}"
        elif (match := _KEY_VALUE.match(line)) and not match.group("indent"):
            pairs.append([match.group("key"), match.group("value").strip()])
        else:
            others += 1
    trailers = [Trailer(key=key, value=value) for key, value in pairs]
    if not others:
        return trailers
    signed = any(t.key.lower() in _SIGN_OFF_KEYS for t in trailers)
    return trailers if signed and 3 * len(trailers) >= others else []
