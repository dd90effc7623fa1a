"""Publish to GitHub: each report committed as files (``github-file``) or kept as one issue per day (``github-issue``).

:mod:`.client` is the REST client both share (headers, deadlines, rate limits,
errors); :mod:`.split` cuts a report that is too long for one issue body into
parts whose links still lead where they did; :mod:`.plugin` registers both
publishers and defers importing the HTTP client until one is made.
"""
