"""Where commits come from.

Each source turns a repository location and a time window into ``list[Commit]``
(:mod:`repodaily.models`). :mod:`repodaily.sources.git` reads a local clone or a
bare mirror it keeps under the cache directory; that is the default and the fast
path, because one ``git log -p`` stream carries a whole window of diffs.
:mod:`repodaily.sources.github` reads GitHub's REST API instead, a request per
commit, for those who cannot clone. Every source parses messages with
:mod:`repodaily.sources.message` and cuts days with :mod:`repodaily.sources.windows`,
so a commit's pull request, revert target, series and trailers, and the day it
belongs to, are the same whichever source read it.
"""
