"""The static site: every stored report browsable, a week at a glance, search, filters and feeds.

``repodaily site OUTDIR`` builds it (:func:`~repodaily.site.builder.build_site`)
from the store alone; see :mod:`repodaily.site.builder` for its pages.
"""
