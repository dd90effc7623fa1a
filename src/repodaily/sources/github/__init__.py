"""The ``github`` source: a repository's commits and diffs from GitHub's REST API, without a clone.

For users who cannot or will not clone, and for small repositories: each
reported commit costs a request (the git source reads a whole span with a few
git processes), and GitHub lists at most 3,000 files of a commit.

Modules, lowest first: ``settings`` (the ``[[repos]]`` keys), ``files`` (a
commit's JSON into a :class:`~repodaily.models.Commit`, patches shaped as the
git source's), ``reader`` (the requests, and the first-parent walk),
``session`` (the client on a private loop; errors mapped), ``source`` (the
:class:`~repodaily.sources.base.Source`), ``plugin`` (the registration).
"""
