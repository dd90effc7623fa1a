"""The git source: a repository location and a time window in, ``list[Commit]`` out.

A location is a local clone (used in place, never modified) or a URL, which is
mirrored as a blobless partial clone under the cache directory and fetched
incrementally; the blobs a span's diffs need are fetched in one request per
few hundred commits.

A span of days is read with a cheap first-parent listing (hashes and committer
timestamps) that picks the exact commits, then ``git log -p`` over those commits
streams every diff, one day at a time (a fresh git per few hundred commits). The stream is parsed as bytes,
line by line, so a 100 MB generated diff costs at most ``max_patch_bytes`` of memory
per file while its ``+``/``-`` counts stay exact. One process per commit would be
about three times slower on a real day of vLLM.

Every field is decoded from bytes; text that is not UTF-8 is decoded with U+FFFD
replacements and named in ``Commit.encoding_issues`` instead of failing the run.

Modules, lowest first: ``locations`` (URLs and names), ``process`` (running git),
``repository`` (opening a clone or mirror), ``stream`` (the log format and its line
reader), ``patch`` (files and hunks), ``commits`` (headers, parsed messages),
``blobs`` (fetching a mirror's absent blobs), ``partial`` (commits with absent blobs),
``log`` (the window), ``tree`` (a commit's file names).
"""

from repodaily.sources.git.locations import infer_repo_name, is_url, redact_credentials
from repodaily.sources.git.log import collect_commits, collect_days
from repodaily.sources.git.repository import GitRepository, open_repository

__all__ = [
    "GitRepository",
    "collect_commits",
    "collect_days",
    "infer_repo_name",
    "is_url",
    "open_repository",
    "redact_credentials",
]
