"""The heuristic on the conventions of a TypeScript library published to npm.

Such a library declares in ``package.json`` what its users install (``dependencies``,
``peerDependencies``) beside what only its own repository installs
(``devDependencies``, and the ``resolutions`` or ``overrides`` that pin a transitive
version in the repository's own install), keeps example applications with manifests
of their own in ``examples/``, and marks an API it deprecates with a TSDoc
``@deprecated`` tag, which editors and the type checker's language service show to
its users. Every commit is made by git in a temporary repository and read by the git
source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_PACKAGE = """{
  "name": "acme-store",
  "version": "4.4.7",
  "types": "./index.d.ts",
  "exports": {
    ".": {
      "types": "./index.d.ts",
      "default": "./index.js"
    }
  },
  "devDependencies": {
    "prettier": "^3.1.0",
    "typescript": "^5.3.2",
    "vitest": "^0.34.6"
  },
  "peerDependencies": {
    "react": ">=16.8"
  },
  "resolutions": {
    "vite": "4.5.0"
  }
}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(tmp_path, {"README.md": "# acme-store\n", "package.json": _PACKAGE})


def test_a_resolution_dropped_from_package_json_is_no_dependency_users_lose(repo: Repo) -> None:
    # Yarn's `resolutions` (npm's `overrides`) pin a transitive version in the repository's own install only.
    dropped = _PACKAGE.replace('  },\n  "resolutions": {\n    "vite": "4.5.0"\n  }\n', "  }\n")
    result = analyse(repo.change("chore(deps): update dev dependencies (#2297)", {"package.json": dropped}))
    assert (result.type, result.importance) == (ChangeType.build, Importance.low)
    assert not result.flags.breaking
    assert not result.flags.user_facing


def test_a_dependency_bump_in_an_example_application_is_not_user_facing(repo: Repo) -> None:
    # The demo under examples/ has a manifest of its own: nothing the published package pulls in.
    demo = '{\n  "name": "demo",\n  "private": true,\n  "dependencies": {\n    "three": "^8.13.5"\n  }\n}\n'
    repo.change("Add the demo", {"examples/demo/package.json": demo})
    bumped = demo.replace("8.13.5", "8.13.7")
    result = analyse(repo.change("upgrade @react-three/fiber (#2042)", {"examples/demo/package.json": bumped}))
    assert (result.type, result.importance) == (ChangeType.build, Importance.low)
    assert not result.flags.user_facing


_REACT = """import type { StoreApi } from './vanilla.ts'

type WithReact<S extends ReadonlyStoreApi<unknown>> = S & {
  getServerState?: () => ExtractState<S>
}

export function useStore<S extends WithReact<StoreApi<unknown>>>(api: S) {
  return api.getState()
}
"""


def test_a_doc_comment_deprecating_an_api_is_a_deprecation_not_a_comment(repo: Repo) -> None:
    # The `@deprecated` tag makes editors strike every use through: users are told to move before a removal.
    repo.change("Add the hook", {"src/react.ts": _REACT})
    tagged = _REACT.replace(
        "  getServerState?:", "  /** @deprecated please use api.getInitialState() */\n  getServerState?:"
    )
    result = analyse(repo.change("Add deprecation notice for getServerState() (#2266)", {"src/react.ts": tagged}))
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)
    assert result.flags.user_facing
    assert not result.flags.breaking
    assert [(s.kind.value, s.name, s.change.value) for s in result.surface] == [
        ("deprecation", "getServerState", "deprecated")
    ]
    # Rewording the notice deprecates nothing new: the comment is prose again.
    reworded = tagged.replace("please use api.getInitialState()", "use `api.getInitialState()` instead")
    result = analyse(repo.change("Reword the deprecation notice", {"src/react.ts": reworded}))
    assert result.surface == []
    assert not result.flags.user_facing


def test_a_deprecation_the_diff_shows_outweighs_a_fix_prefix(repo: Repo) -> None:
    # The rubric decides that deprecating a public API is a feature, whatever the title's prefix calls it.
    repo.change("Add the hook", {"src/react.ts": _REACT})
    tagged = _REACT.replace("  getServerState?:", "  /** @deprecated please use api.getState() */\n  getServerState?:")
    title = "fix: Add deprecation notice for getServerState() in WithReact type (#2266)"
    result = analyse(repo.change(title, {"src/react.ts": tagged}))
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)


_COMBINE = """export function combine<T extends object, U extends object>(initialState: T, a: (set: unknown) => U) {
  return (...f: unknown[]) => Object.assign({}, initialState, (a as (...f: unknown[]) => U)(...f))
}
"""


def test_parameters_renamed_by_a_refactor_break_no_caller(repo: Repo) -> None:
    # The `refactor:` prefix says nothing changes for users: arguments are passed by position.
    repo.change("Add combine", {"src/middleware/combine.ts": _COMBINE})
    renamed = _COMBINE.replace("a:", "create:").replace("(a as", "(create as").replace("...f", "...args")
    title = "refactor(middleware): rename argument names like 'a', 'f' (#3032)"
    result = analyse(repo.change(title, {"src/middleware/combine.ts": renamed}))
    assert (result.type, result.importance) == (ChangeType.refactor, Importance.low)
    assert not result.flags.breaking


_TOOLS = ["esbuild", "eslint", "eslint-plugin-import", "eslint-plugin-react", "eslint-plugin-vitest", "immer", "jsdom"]
_TOOLS += ["json", "prettier", "redux", "rollup", "shx", "typescript"]
_LONG_PACKAGE = (
    '{\n  "name": "acme-store",\n  "version": "4.5.0",\n  "devDependencies": {\n'
    + "".join(f'    "{name}": "^1.{i}.0",\n' for i, name in enumerate(_TOOLS))
    + '    "vitest": "^1.0.0"\n  },\n  "peerDependencies": {\n    "react": ">=18.0.0"\n  }\n}\n'
)


def test_a_dependency_line_whose_header_git_does_not_show_is_a_development_one(repo: Repo) -> None:
    # A library's devDependencies object is the long one: a change in its middle shows no header.
    repo.change("Add tooling", {"package.json": _LONG_PACKAGE})
    dropped = _LONG_PACKAGE.replace('    "eslint-plugin-vitest": "^1.4.0",\n', "")
    result = analyse(repo.change("test: use @vitest/eslint-plugin (#2845)", {"package.json": dropped}))
    assert not result.flags.breaking
    assert result.importance == Importance.low
    assert not result.flags.user_facing
    bumped = dropped.replace('"redux": "^1.9.0"', '"redux": "^2.0.0"')
    result = analyse(repo.change("chore(deps): update dev dependencies (#2297)", {"package.json": bumped}))
    assert (result.type, result.importance) == (ChangeType.build, Importance.low)
    assert not result.flags.user_facing


_STORE = """export function createStore<T>(initial: T) {
  let state = initial
  return { getState: () => state, setState: (next: T) => (state = next) }
}
"""


def _changeset(bump: str, summary: str) -> str:
    return f'---\n"acme-store": {bump}\n---\n\n{summary}\n'


@pytest.fixture
def released(repo: Repo) -> Repo:
    repo.change("Add changesets", {"src/vanilla.ts": _STORE, ".changeset/config.json": '{"commit": false}\n'})
    return repo


def test_a_changeset_naming_a_major_bump_declares_a_break(released: Repo) -> None:
    # The release tool bumps the major version for it: existing users' code must change.
    store = _STORE.replace("setState: (next: T) =>", "setState: (next: T, replace: boolean) =>")
    files = {
        "src/vanilla.ts": store,
        ".changeset/brave-lions-sing.md": _changeset("major", "`setState` now requires the `replace` flag."),
    }
    result = analyse(released.change("Store: explicit replace (#2138)", files))
    assert result.flags.breaking
    assert result.type == ChangeType.feat
    assert result.flags.user_facing


def test_a_changeset_naming_a_minor_bump_is_a_feature(released: Repo) -> None:
    # What the diff alone shows (a changed assignment) could be a fix; the minor bump says it is new behaviour.
    store = _STORE.replace("(state = next)", "(state = Object.is(next, state) ? state : next)")
    files = {
        "src/vanilla.ts": store,
        ".changeset/quiet-owls-run.md": _changeset("minor", "Stores keep their state when set to the same value."),
    }
    result = analyse(released.change("Store: identical updates (#2277)", files))
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)
    assert not result.flags.breaking
    assert result.flags.user_facing


def test_the_version_step_gathering_changesets_is_a_release_whatever_sections_it_fills(released: Repo) -> None:
    # Changesets' version step deletes the changesets and files their summaries under "Major Changes" in each
    # package's changelog: a roll-up of changes already reported, released by a title that says only that.
    summary = "`setState` now requires the `replace` flag."
    released.change("Store: explicit replace (#2138)", {".changeset/brave-lions-sing.md": _changeset("major", summary)})
    notes = f"# acme-store\n\n## 5.0.0\n\n### Major Changes\n\n- 1a2b3c4: {summary}\n"
    manifest = '{\n  "name": "acme-store",\n  "version": "5.0.0"\n}\n'
    files = {"packages/store/CHANGELOG.md": notes, "packages/store/package.json": manifest}
    gone = (".changeset/brave-lions-sing.md",)
    result = analyse(released.change("RELEASING: Releasing 1 package(s)", files, removed=gone))
    assert result.type == ChangeType.chore
    assert not result.flags.breaking


def test_the_linter_settings_written_in_javascript_are_developer_tooling(repo: Repo) -> None:
    config = "import js from '@eslint/js'\n\nexport default [\n  js.configs.recommended,\n  { ignores: ['dist'] },\n]\n"
    repo.change("Add the linter", {"eslint.config.mjs": config})
    result = analyse(
        repo.change("Fix the lint setup", {"eslint.config.mjs": config.replace("'dist'", "'dist', 'docs'")})
    )
    assert (result.type, result.importance) == (ChangeType.chore, Importance.low)
    assert not result.flags.user_facing


def test_the_test_runners_settings_are_test_infrastructure(repo: Repo) -> None:
    config = "import { defineConfig } from 'vitest/config'\n\nexport default defineConfig({\n"
    config += "  test: { environment: 'node' },\n})\n"
    repo.change("Add vitest", {"vitest.config.ts": config})
    result = analyse(repo.change("update vitest (#2462)", {"vitest.config.ts": config.replace("'node'", "'jsdom'")}))
    assert (result.type, result.importance) == (ChangeType.ci, Importance.low)
    assert not result.flags.user_facing


_CONNECTOR = """export function connect(enabled: boolean) {
  let extensionConnector:
    | (typeof window)['__REDUX_DEVTOOLS_EXTENSION__']
    | false
  extensionConnector = enabled && window.__REDUX_DEVTOOLS_EXTENSION__
  return extensionConnector
}
"""


def test_a_union_type_prettier_joins_onto_one_line_is_layout(repo: Repo) -> None:
    # Prettier drops a union's leading bar when the union fits on one line: the types read as before.
    repo.change("Add the connector", {"src/middleware/devtools.ts": _CONNECTOR})
    joined = _CONNECTOR.replace(
        "\n    | (typeof window)['__REDUX_DEVTOOLS_EXTENSION__']\n    | false\n",
        "\n    (typeof window)['__REDUX_DEVTOOLS_EXTENSION__'] | false\n",
    )
    result = analyse(repo.change("Apply the new formatter", {"src/middleware/devtools.ts": joined}))
    assert (result.type, result.importance) == (ChangeType.chore, Importance.low)
    assert not result.flags.user_facing
