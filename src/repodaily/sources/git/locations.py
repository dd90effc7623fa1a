"""Locations and names: telling a URL from a path, naming a repository, keeping tokens out of text."""

from __future__ import annotations

import hashlib
import re
from urllib.parse import unquote, urlsplit

_URL_RE = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
_SCP_RE = re.compile(r"^[\w.+-]+@[\w.-]+:")  # git@github.com:owner/repo.git
_USERINFO_RE = re.compile(r"(?P<scheme>[A-Za-z][A-Za-z0-9+.-]*://)(?P<userinfo>[^/\s]*)@")
# A user name this long, with no password, is a token used as one (``https://<token>@github.com/…``).
_TOKEN_AS_USER_CHARS = 20


def redact_credentials(text: str) -> str:
    """``text`` with the user-info of every URL in it removed (``https://user:token@host`` → ``https://host``).

    Tokens travel in clone URLs; they must never reach a log line, an error or a report.
    """
    return _USERINFO_RE.sub(lambda m: m["scheme"], text)


def url_credentials(text: str) -> list[str]:
    """The secrets in the user-info of the URLs in ``text``: each password, or a user name long enough to be a token."""
    found = []
    for match in _USERINFO_RE.finditer(text):
        user, colon, password = match["userinfo"].partition(":")
        if colon:
            found.append(unquote(password))
        elif len(user) >= _TOKEN_AS_USER_CHARS:
            found.append(unquote(user))
    return found


def is_url(location: str) -> bool:
    """Whether ``location`` is a URL or an scp-like address (``git@host:path``) rather than a local path."""
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


def mirror_dir_name(public_url: str) -> str:
    """A directory name for a URL's mirror: readable, and unique by a hash of the whole URL."""
    normal = public_url.rstrip("/").removesuffix(".git")
    readable = re.sub(r"[^A-Za-z0-9._-]+", "_", _URL_RE.sub("", normal)).strip("_.")[:60]
    digest = hashlib.sha256(normal.encode("utf-8")).hexdigest()[:12]
    return f"{readable}-{digest}"
