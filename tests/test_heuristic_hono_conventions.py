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


def test_a_patch_that_only_adds_a_type_assertion_is_a_low_type_check_fix(repo: Repo) -> None:
    repo.change("Add the edge adapter", {"src/adapter/edge/handler.ts": _HANDLER})
    result = analyse(
        repo.change(
            "fix(edge): satisfy Deno lib types for the body encoding", {"src/adapter/edge/handler.ts": _ASSERTED}
        )
    )
    # The emitted JavaScript is the same: the fix the title names, of a type check, low.
    assert result.type == ChangeType.fix
    assert result.importance == Importance.low


def test_an_assertion_added_beside_a_changed_expression_is_code(repo: Repo) -> None:
    repo.change("Add the edge adapter", {"src/adapter/edge/handler.ts": _HANDLER})
    changed = _ASSERTED.replace("bytes.length.toString()", "(bytes.length + 1).toString()")
    result = analyse(repo.change("fix(edge): count the body length", {"src/adapter/edge/handler.ts": changed}))
    assert result.type == ChangeType.fix
    assert result.importance == Importance.medium


def test_a_regrouped_expression_with_an_assertion_is_code(repo: Repo) -> None:
    before = "export const ready = (a: boolean, b: boolean, c: boolean) => a || b && c\n"
    repo.change("Add the readiness check", {"src/ready.ts": before})
    after = "export const ready = (a: boolean, b: boolean, c: boolean) => ((a || b) && c) as boolean\n"
    result = analyse(repo.change("fix(ready): require the last condition", {"src/ready.ts": after}))
    # Parentheses that regroup the operands, more than the one pair the assertion needs, change what runs.
    assert result.importance == Importance.medium


# --------------------------------------------------------------------------- reverts by number


_CONTEXT = "export const text = (body: string): Response => new Response(body)\n"


def test_a_conventional_title_reverting_a_pull_request_by_number_is_a_revert(repo: Repo) -> None:
    fast = _CONTEXT.replace("new Response(body)", "body ? new Response(body) : EMPTY")
    repo.change("perf(context): a fast path for text responses (#47)", {"src/context.ts": fast})
    result = analyse(repo.change("fix(context): revert PR #47 (#52)", {"src/context.ts": _CONTEXT}))
    assert result.type == ChangeType.revert
    assert result.importance == Importance.medium


def test_a_fix_that_reverts_a_behaviour_it_describes_is_no_revert(repo: Repo) -> None:
    repo.change("Add the context", {"src/context.ts": _CONTEXT})
    changed = _CONTEXT.replace("new Response(body)", "new Response(body, { status: 200 })")
    result = analyse(repo.change("fix(context): revert to an explicit status for text", {"src/context.ts": changed}))
    assert result.type == ChangeType.fix


# --------------------------------------------------------------------------- configuration files


def test_a_configuration_file_changed_by_a_ci_commit_is_a_ci_change(repo: Repo) -> None:
    config = '{\n  "extends": "../tsconfig.json",\n  "include": ["client.ts"]\n}\n'
    repo.change("Add the type-check benchmark", {"perf/type-check/tsconfig.build.json": config})
    checked = config.replace('["client.ts"]', '["client.ts"],\n  "compilerOptions": { "skipLibCheck": true }')
    result = analyse(
        repo.change("ci: skip lib check in the type-check benchmark", {"perf/type-check/tsconfig.build.json": checked})
    )
    assert result.type == ChangeType.ci
    assert result.importance == Importance.low


def test_a_configuration_file_changed_by_a_feature_title_stays_configuration(repo: Repo) -> None:
    table = '{\n  "block_size": 64,\n  "num_warps": 4\n}\n'
    repo.change("Add the tuned table", {"configs/tuned.json": table})
    result = analyse(
        repo.change("feat: tune the table for the new card", {"configs/tuned.json": table.replace("64", "128")})
    )
    assert result.type == ChangeType.chore
