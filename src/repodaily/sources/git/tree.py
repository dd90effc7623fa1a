"""The file names of a commit's tree: what the repository context counts the primary language from."""

from __future__ import annotations

from repodaily.sources.git.process import git_text
from repodaily.sources.git.repository import GitRepository

__all__ = ["tree_paths"]


def tree_paths(repo: GitRepository, sha: str) -> list[str]:
    """Every file path in the tree of ``sha``: one ``git ls-tree``, which reads trees and no blob.

    NUL-separated, so a name with a line break or a quote is one name; a
    submodule is listed by its path, as its tree entry is.
    """
    listing = git_text(
        ["ls-tree", "-r", "-z", "--name-only", sha, "--"],
        failure=f"cannot list the tree of {sha[:7]}",
        git_dir=repo.git_dir,
    )
    return [path for path in listing.split("\0") if path]
