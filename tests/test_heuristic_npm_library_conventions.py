"""The heuristic on the conventions of a JavaScript library published to npm.

Such a library keeps its code in ``lib/``, commits the bundles it builds into
``dist/`` (for CDNs and bower), lets release tooling make each release commit
(``chore(release): v1.6.3``: the version in ``package.json`` and a version module,
a changelog section generated from the commits, the bundles rebuilt), and names
the weakness a fix closes in its Conventional Commits scope, and keeps the
messages it prints in each language as one JSON file per language in ``locales/``.
Every commit is made
by git in a temporary repository and read by the git source, as a report reads it
(:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance


def _package(version: str, redirects: str = "^1.15.5") -> str:
    return (
        '{\n  "name": "acme-http",\n'
        f'  "version": "{version}",\n'
        '  "main": "index.js",\n  "typings": "./index.d.ts",\n'
        '  "dependencies": {\n'
        f'    "follow-redirects": "{redirects}",\n'
        '    "form-data": "^4.0.0"\n  }\n}\n'
    )


def _bundle(version: str, header_check: str) -> str:
    """A built bundle: every helper of ``lib/`` inlined, and the version it was built at."""
    helpers = "".join(
        f"  function helper{i}(value) {{\n    return {header_check}(value) ? value * {i} : null;\n  }}\n"
        for i in range(30)
    )
    return f"// acme-http v{version}\n(function () {{\n{helpers}}})();\n"


def _source_map(version: str, guard: str) -> str:
    """A bundle's source map: the sources it maps, as JSON strings on one line."""
    source = f"export const isHeader = (value) => /^[\\\\w-]+$/.test(value){guard} // header"
    return f'{{"version":3,"file":"acme-http.cjs","sourcesContent":["// v{version}\\n{source}"]}}\n'


def _error_handler(indent: str) -> str:
    """A fallback error handler whose call arguments are indented by ``indent`` under the ternary."""
    return (
        "export function fallback (error, serializer) {\n"
        "  const payload = serializer === false\n"
        "    ? serializeError({\n"
        f"    {indent}error: error.name,\n"
        f"    {indent}message: error.message\n"
        f"  {indent}}})\n"
        "    : serializer(error)\n"
        "  return payload\n"
        "}\n"
    )


def _locale(count: str) -> str:
    """The German messages the library prints."""
    return f'{{\n  "Commands:": "Kommandos:",\n  "count": "{count}",\n  "required": "erforderlich"\n}}\n'


_CHANGELOG = (
    "# Changelog\n\n## [1.6.2](https://example.com/compare/v1.6.1...v1.6.2) (2023-11-14)\n\n"
    "### Bug Fixes\n\n* **http:** keep the port of IPv6 hosts\n"
)

_RELEASE_NOTES = (
    "# Changelog\n\n## [1.6.3](https://example.com/compare/v1.6.2...v1.6.3) (2023-12-26)\n\n"
    "### Bug Fixes\n\n"
    "* Regular Expression Denial of Service (ReDoS) in the header parser ([#6132](https://example.com/6132))\n"
    "* **types:** fix the request config typings ([#6120](https://example.com/6120))\n\n"
) + _CHANGELOG.removeprefix("# Changelog\n\n")


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# acme-http\n",
            "locales/de.json": _locale("Anzahl"),
            "CHANGELOG.md": _CHANGELOG,
            "package.json": _package("1.6.2"),
            "lib/env/data.js": 'export const VERSION = "1.6.2";\n',
            "lib/helpers.js": "export const isHeader = (value) => /^[\\w-]+$/.test(value);\n",
            "lib/error-handler.js": _error_handler("  "),
            "dist/acme-http.js": _bundle("1.6.2", "isHeader"),
            "dist/esm/acme-http.mjs": _bundle("1.6.2", "isHeader"),
            "dist/node/acme-http.cjs": _bundle("1.6.2", "isHeader"),
            "dist/node/acme-http.cjs.map": _source_map("1.6.2", ""),
        },
    )


def test_a_release_commit_that_rebuilds_the_dist_bundles_is_a_release_chore(repo: Repo) -> None:
    # The bundles and their source maps carry the fixes released since 1.6.2 (a header
    # value's CR now refused), the changelog section names a denial of service already
    # fixed by its own commit: the release fixes nothing itself.
    files = {
        "CHANGELOG.md": _RELEASE_NOTES,
        "package.json": _package("1.6.3"),
        "lib/env/data.js": 'export const VERSION = "1.6.3";\n',
        "dist/acme-http.js": _bundle("1.6.3", "isHeaderName"),
        "dist/esm/acme-http.mjs": _bundle("1.6.3", "isHeaderName"),
        "dist/node/acme-http.cjs": _bundle("1.6.3", "isHeaderName"),
        "dist/node/acme-http.cjs.map": _source_map("1.6.3", " && !value.includes('\\\\r')"),
    }
    result = analyse(repo.change("chore(release): v1.6.3 (#6151)", files))
    assert result.type == ChangeType.chore
    assert result.importance == Importance.low
    assert not result.flags.security
    assert not result.flags.user_facing


def test_a_scope_that_names_a_vulnerability_makes_a_dependency_floor_a_security_fix(repo: Repo) -> None:
    result = analyse(
        repo.change(
            "fix(vulnerability): update follow-redirects to 1.15.6 (#6300)",
            {"package.json": _package("1.6.2", redirects="^1.15.6")},
        )
    )
    assert result.flags.security
    assert result.importance == Importance.high


def test_a_translation_fixed_in_a_locales_json_file_is_the_low_fix_its_title_names(repo: Repo) -> None:
    result = analyse(repo.change("fix(lang): 'count' for de locale (#2476)", {"locales/de.json": _locale("Zähler")}))
    assert result.type == ChangeType.fix
    assert result.importance == Importance.low
    # German users read the corrected word in the help the program prints.
    assert result.flags.user_facing


def test_a_regenerated_message_catalog_is_no_news_to_users(repo: Repo) -> None:
    catalog = _locale("Anzahl").replace('  "required"', '  "choices": "Möglichkeiten",\n  "required"')
    result = analyse(repo.change("chore: extract new translatable strings", {"locales/de.json": catalog}))
    assert result.type == ChangeType.chore
    assert not result.flags.user_facing


def test_a_funding_file_under_github_is_repository_administration_not_ci(repo: Repo) -> None:
    funding = "github: [acme]\nopen_collective: acme-http\n"
    result = analyse(repo.change("Add FUNDING.yml with funding sources", {".github/FUNDING.yml": funding}))
    assert result.type == ChangeType.chore
    assert result.importance == Importance.low


def test_call_arguments_reindented_for_the_linter_change_no_behaviour(repo: Repo) -> None:
    # In JavaScript indentation means nothing: the handler does what it did, whatever the title's type.
    files = {"lib/error-handler.js": _error_handler("    ")}
    result = analyse(repo.change("fix(errorHandler.js): linting problems in pipeline (#5885)", files))
    assert result.type in (ChangeType.chore, ChangeType.refactor)
    assert result.importance == Importance.low
    assert not result.flags.user_facing


def test_a_statement_moved_out_of_a_javascript_block_is_still_a_change(repo: Repo) -> None:
    handler = _error_handler("  ").replace("  return payload\n}\n", "}\nreturn payload\n")
    result = analyse(repo.change("fix: return the payload", {"lib/error-handler.js": handler}))
    assert result.type == ChangeType.fix


_DEV_PACKAGE = """{
  "name": "acme-http",
  "version": "1.6.3",
  "dependencies": {
    "follow-redirects": "^1.15.5"
  },
  "devDependencies": {
    "eslint": "^8.56.0",
    "mocha": "^10.2.0"
  }
}
"""


def test_a_development_dependency_bump_is_not_user_facing(repo: Repo) -> None:
    # What only the developers install: a dependency change, but of nothing the published package pulls in.
    repo.change("Add package", {"package.json": _DEV_PACKAGE})
    bumped = _DEV_PACKAGE.replace('"mocha": "^10.2.0"', '"mocha": "^10.4.0"')
    result = analyse(repo.change("Bump mocha from 10.2.0 to 10.4.0", {"package.json": bumped}))
    assert (result.type, result.importance) == (ChangeType.build, Importance.low)
    assert not result.flags.user_facing
    # A dependency the package itself pulls in stays what its users get.
    shipped = bumped.replace('"follow-redirects": "^1.15.5"', '"follow-redirects": "^1.15.6"')
    assert analyse(repo.change("Bump follow-redirects", {"package.json": shipped})).flags.user_facing
