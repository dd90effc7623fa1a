"""Whether a code file's patch only adds rows to a lookup table keyed by file names.

Tools that list, show or search files keep tables in their code keyed by a file
name, an extension or a glob: the icon for each (``"mix.lock" => Icons::ELIXIR,``),
the language of each (``"*.gemspec": "ruby",``), the globs of a file type
(``("rust", "*.rs"),``). A patch that adds rows to such a table (perhaps
re-aligning or re-valuing the rows around them) teaches the tool a few more file
names and changes nothing else it does: a feature or fix as narrow as a change
can be. A patch that also removes a row, changes rows without adding a key, adds
no key that names a file (a registry of modes or backends: ``"fastokens": ...``
makes an option work), or touches any other line, is none of these.
"""

from __future__ import annotations

import re

from repodaily.analyzers.heuristic.layout import changed_lines, whole_hunks
from repodaily.models import ContextFile

__all__ = ["entries_only"]

#: A key that names a file: a dotfile (``.norg``), a glob (``*.rs``) or a name with an extension of a
#: few letters (``mix.lock``, ``brewfile.lock.json``); not a version (``3.10``, ``v1.2``), which keys
#: a table of supported releases, nor a dotted setting (``cpp.dynamic_threads``).
_FILE_KEY = re.compile(r"""^["'](?:\.[\w.+-]*\w|\*[\w.*+-]*|(?!v?\d)[\w+-]+(?:\.[\w+-]+)*\.[a-z0-9]{1,6})["']$""", re.I)

#: One row a line: a quoted key, ``=>``, ``:`` or a tuple's ``,``, a value, the row's closing comma,
#: and maybe a trailing comment. The value holds no statement's ``;``.
# The blanks before the key are taken whole: given back one at a time, a line of blanks costs quadratic time.
_ENTRY = re.compile(r"""^(?>\s*\(?\s*)(?P<key>"[^"\n]+"|'[^'\n]+')\s*(?:=>|:|,)[^;\n]*,\s*(?://.*|#.*)?$""")
#: The cheap test every row passes before the regex runs.
_MARKS = ("=>", '":', "':", '",', "',")


def entries_only(file: ContextFile) -> bool:
    """Every changed line of the file's whole patch is a table row, and the patch adds a key that names a file."""
    if not any(mark in file.text for mark in _MARKS):
        return False
    hunks = whole_hunks(file)
    if not hunks:
        return False
    removed_keys: set[str] = set()
    added_keys: set[str] = set()
    for hunk in hunks:
        removed, added = changed_lines(hunk)
        for lines, keys in ((removed, removed_keys), (added, added_keys)):
            for line in lines:
                if not line.strip():
                    continue
                row = _ENTRY.match(line)
                if row is None:
                    return False
                keys.add(row.group("key"))
    new = added_keys - removed_keys
    return removed_keys <= added_keys and any(_FILE_KEY.match(key) for key in new)
