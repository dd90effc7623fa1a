"""The heuristic on the conventions of a TypeScript web framework published to npm and JSR.

Such a package lists every module its users may import in the ``exports`` map of
its manifests (``package.json``, ``jsr.json``), commits its dependency lock as
Bun's binary ``bun.lockb``, and titles its commits by Conventional Commits. Every
commit is made by git in a temporary repository and read by the git source, as a
report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_heuristic_libraries import rewritten
from test_surface import Repo, analyse

from repodaily.models import ChangeType, Importance

_EXPORTS = {
    ".": "./src/index.ts",
    "./types": "./src/types.ts",
    "./cors": "./src/middleware/cors/index.ts",
    "./legacy-router": "./src/router/legacy/index.ts",
}


def _jsr(exports: dict[str, str]) -> str:
    return json.dumps({"name": "@acme/web", "version": "1.4.0", "exports": exports}, indent=2) + "\n"


def _package(exports: dict[str, str]) -> str:
    conditional = {
        key: {"types": f"./dist/types/{key[2:] or 'index'}.d.ts", "import": path} for key, path in exports.items()
    }
    manifest = {
        "name": "@acme/web",
        "version": "1.4.0",
        "type": "module",
        "exports": conditional,
        "typesVersions": {"*": {key[2:]: [f"./dist/types/{key[2:]}"] for key in exports if key != "."}},
    }
    return json.dumps(manifest, indent=2) + "\n"


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# web\n",
            "jsr.json": _jsr(_EXPORTS),
            "package.json": _package(_EXPORTS),
            "src/request.ts": "export class Request {}\n",
            "bun.lockb": "bun-lockfile\x00\x01\x02binary\n",
        },
    )


# --------------------------------------------------------------------------- the exports map


def test_a_subpath_added_to_the_jsr_exports_map_is_a_new_entry_point(repo: Repo) -> None:
    exports = {**_EXPORTS, "./request": "./src/request.ts"}
    result = analyse(repo.change("feat(request): make request.ts importable from JSR", {"jsr.json": _jsr(exports)}))
    # The map is configuration, but what it adds is a module users import: a feature, not a chore.
    assert result.type == ChangeType.feat
    assert result.importance == Importance.medium
    assert result.flags.user_facing
    assert not result.flags.breaking


def test_a_subpath_dropped_from_the_package_exports_map_breaks_its_imports(repo: Repo) -> None:
    exports = {key: path for key, path in _EXPORTS.items() if key != "./legacy-router"}
    result = analyse(repo.change("Stop shipping the legacy router", {"package.json": _package(exports)}))
    assert result.type == ChangeType.feat
    assert result.flags.breaking
    assert result.importance in (Importance.medium, Importance.high)


def test_a_subpath_renamed_in_the_exports_map_breaks_its_imports(repo: Repo) -> None:
    exports = {("./router-legacy" if key == "./legacy-router" else key): path for key, path in _EXPORTS.items()}
    result = analyse(repo.change("Rename an entry of the manifest", {"jsr.json": _jsr(exports)}))
    assert result.flags.breaking


def test_an_exports_map_put_in_another_order_changes_no_entry_point(repo: Repo) -> None:
    exports = dict(reversed(list(_EXPORTS.items())))
    result = analyse(repo.change("chore: sort the exports of the manifests", {"jsr.json": _jsr(exports)}))
    assert result.type == ChangeType.chore
    assert result.importance == Importance.low
    assert not result.flags.breaking


def test_a_types_versions_entry_for_old_compilers_is_no_new_entry_point(repo: Repo) -> None:
    manifest = json.loads(_package(_EXPORTS))
    manifest["typesVersions"]["*"]["jsx-runtime"] = ["./dist/types/jsx-runtime.d.ts"]
    result = analyse(
        repo.change("fix: add a missing typesVersions entry", {"package.json": json.dumps(manifest, indent=2) + "\n"})
    )
    assert result.type != ChangeType.feat
    assert not result.flags.breaking


# --------------------------------------------------------------------------- the lockfile


def test_bun_binary_lockfile_refreshed_alone_is_a_low_build_change(repo: Repo) -> None:
    result = analyse(repo.change("chore: update the lockfile", {"bun.lockb": "bun-lockfile\x00\x03\x04binary\n"}))
    # The binary lock is a dependency lock, not an image or a weight file: a build change whatever the prefix.
    assert result.type == ChangeType.build
    assert result.importance == Importance.low


# --------------------------------------------------------------------------- type assertions

_HANDLER = """export const createRequest = (rawBody: string | Uint8Array | undefined): Request => {
  const headers = new Headers()
  let body: string | Uint8Array | undefined = rawBody
  if (rawBody !== undefined) {
    const bytes = typeof rawBody === 'string' ? new TextEncoder().encode(rawBody) : rawBody
    body = bytes
    headers.set('content-length', bytes.length.toString())
  }
  return new Request('http://localhost/', { method: 'POST', headers, body })
}
"""

_ASSERTED = _HANDLER.replace(
    "    const bytes = typeof rawBody === 'string' ? new TextEncoder().encode(rawBody) : rawBody\n",
    "    const bytes =\n      typeof rawBody === 'string'\n"
    "        ? (new TextEncoder().encode(rawBody) as Uint8Array<ArrayBuffer>)\n        : rawBody\n",
)


_READY = "export const ready = (a: boolean, b: boolean, c: boolean) => a || b && c\n"
_CONTEXT = "export const text = (body: string): Response => new Response(body)\n"
_FAST = _CONTEXT.replace("new Response(body)", "body ? new Response(body) : EMPTY")
_STATUS = _CONTEXT.replace("new Response(body)", "new Response(body, { status: 200 })")
_HANDLER_PATH, _READY_PATH, _CONTEXT_PATH = "src/adapter/edge/handler.ts", "src/ready.ts", "src/context.ts"


_LONGER = _ASSERTED.replace("bytes.length.toString()", "(bytes.length + 1).toString()")
_REGROUPED = _READY.replace("a || b && c", "((a || b) && c) as boolean")
_FIX_LOW, _FIX_MEDIUM = (ChangeType.fix, Importance.low), (ChangeType.fix, Importance.medium)
#: Each case: the file, its text before and after, the commit's title, and the type and importance expected.
#: The emitted JavaScript is the same when only an assertion comes: the type-check fix the title names, low.
#: Parentheses that regroup operands (more than the pair an assertion needs) change what runs. A pull
#: request reverted by number is a revert whose importance the title does not show.
_CASES = {
    "assertion-only": (_HANDLER_PATH, _HANDLER, _ASSERTED, "fix(edge): satisfy Deno lib types", _FIX_LOW),
    "assertion-beside-code": (_HANDLER_PATH, _HANDLER, _LONGER, "fix(edge): count the body length", _FIX_MEDIUM),
    "regrouped-with-assertion": (_READY_PATH, _READY, _REGROUPED, "fix(ready): require c", _FIX_MEDIUM),
    "revert-by-number": (
        _CONTEXT_PATH,
        _FAST,
        _CONTEXT,
        "fix(context): revert PR #47 (#52)",
        (ChangeType.revert, Importance.medium),
    ),
    "revert-of-a-behaviour": (
        _CONTEXT_PATH,
        _CONTEXT,
        _STATUS,
        "fix(context): revert to an explicit status",
        _FIX_MEDIUM,
    ),
}


@pytest.mark.parametrize(("path", "before", "after", "message", "expected"), _CASES.values(), ids=_CASES.keys())
def test_type_assertions_and_reverts_by_number(
    repo: Repo, path: str, before: str, after: str, message: str, expected: tuple[ChangeType, Importance]
) -> None:
    result = rewritten(repo, path, before, after, message)
    assert (result.type, result.importance) == expected


# --------------------------------------------------------------------------- configuration files


def test_a_configuration_file_changed_by_a_ci_commit_is_a_ci_change(repo: Repo) -> None:
    config = '{\n  "extends": "../tsconfig.json",\n  "include": ["client.ts"]\n}\n'
    checked = config.replace('["client.ts"]', '["client.ts"],\n  "compilerOptions": { "skipLibCheck": true }')
    message = "ci: skip lib check in the type-check benchmark"
    result = rewritten(repo, "perf/type-check/tsconfig.build.json", config, checked, message)
    assert result.type == ChangeType.ci
    assert result.importance == Importance.low


def test_a_configuration_file_changed_by_a_feature_title_stays_configuration(repo: Repo) -> None:
    table = '{\n  "block_size": 64,\n  "num_warps": 4\n}\n'
    tuned = table.replace("64", "128")
    result = rewritten(repo, "configs/tuned.json", table, tuned, "feat: tune the table for the new card")
    assert result.type == ChangeType.chore


def test_a_subpath_added_to_a_test_fixture_package_is_no_entry_point(repo: Repo) -> None:
    fixture = _jsr({".": "./index.ts", "./extra": "./extra.ts"})
    result = analyse(
        repo.change("test: a fixture package with two entry points", {"tests/fixtures/pkg/jsr.json": fixture})
    )
    assert result.type == ChangeType.test
    assert result.importance == Importance.low
