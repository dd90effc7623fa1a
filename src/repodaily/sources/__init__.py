"""Where commits come from.

Each source turns a repository location and a time window into ``list[Commit]``
(:mod:`repodaily.models`). :mod:`repodaily.sources.git` reads a local clone or a
bare mirror it keeps under the cache directory; that is the default and the fast
path, because one ``git log -p`` stream carries a whole window of diffs. Every
source parses messages with :mod:`repodaily.sources.message`, so a commit's pull
request, revert target, series and trailers mean the same whichever source read it.
"""
