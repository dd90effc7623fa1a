"""The heuristic on a Go server that builds a native engine from upstream: its conventions, read from the diff.

Such a project registers model architectures by blank-importing their
packages, pins the upstream revision of the engine it compiles in a file of
its own, carries its HTTP API as JSON-tagged structs, and fetches from
registries with credentials. Titles are often a bare component prefix
(``server:``, ``api:``) or no prefix at all, so each class is recognised from
the patch. Every commit is made by git in a temporary repository and read by
the git source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse, heuristic_input

from repodaily.analyzers.heuristic import HeuristicAnalyzer
from repodaily.models import ChangeType, Commit, Importance, SurfaceAction, SurfaceKind

_REGISTRY = """package models

import (
\t_ "example.com/engine/model/models/llama"
\t_ "example.com/engine/model/models/qwen"
)
"""

_MODEL = """package {name}

type Model struct {{
\tLayers []Layer
}}

func New() *Model {{
\treturn &Model{{}}
}}
"""

_TYPES = """package api

// GenerateRequest describes a request sent to the generate endpoint.
type GenerateRequest struct {
\tModel   string `json:"model"`
\tPrompt  string `json:"prompt"`
\tLowVRAM bool   `json:"low_vram,omitempty"`
\tNumCtx  int    `json:"num_ctx,omitempty"`
}
"""

_AUTH = """package server

func getToken(ctx context.Context, challenge registryChallenge) (string, error) {
\tredirectURL, err := challenge.URL()
\tif err != nil {
\t\treturn "", err
\t}

\treq, err := http.NewRequestWithContext(ctx, http.MethodGet, redirectURL.String(), nil)
\tif err != nil {
\t\treturn "", err
\t}
\treturn fetchToken(req)
}
"""

_ROUTES = """package server

func (s *Server) Routes() http.Handler {
\tr := gin.Default()
\tr.POST("/api/generate", s.GenerateHandler)
\tr.POST("/api/chat", s.ChatHandler)
\treturn r
}
"""


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "README.md": "# engine\n",
            "go.mod": "module example.com/engine\n\ngo 1.24\n",
            "ENGINE_CPP_VERSION": "b9509\n",
            "VERSION": "0.9.1\n",
            "model/models/models.go": _REGISTRY,
            "model/models/llama/model.go": _MODEL.format(name="llama"),
            "model/models/qwen/model.go": _MODEL.format(name="qwen"),
            "api/types.go": _TYPES,
            "server/auth.go": _AUTH,
            "server/routes.go": _ROUTES,
        },
    )


def fired(commit: Commit) -> set[str]:
    """The rules that matched the commit: what the analyzer read, before it judged."""
    analyzer = HeuristicAnalyzer(language="en")
    return analyzer.read(heuristic_input(commit, analyzer)).evidence.fired


def _registered(name: str) -> str:
    return _REGISTRY.replace(")\n", f'\t_ "example.com/engine/model/models/{name}"\n)\n')


# --------------------------------------------------------------------------- model architectures


def test_a_model_package_arriving_whole_and_blank_imported_by_the_registry_is_a_new_family(repo: Repo) -> None:
    files = {
        "model/models/models.go": _registered("mamba"),
        "model/models/mamba/model.go": _MODEL.format(name="mamba"),
        "model/models/mamba/ssm.go": "package mamba\n\nfunc scan(x []float32) []float32 {\n\treturn x\n}\n",
        "model/models/mamba/cache.go": "package mamba\n\ntype Cache struct {\n\tstates [][]float32\n}\n",
    }
    result = analyse(repo.change("models: mamba architecture", files))
    assert (result.type, result.importance) == (ChangeType.feat, Importance.high)
    assert any(c.kind == SurfaceKind.model_arch and c.name == "mamba" for c in result.surface)


def test_a_single_module_registered_may_be_a_variant_so_it_stays_medium(repo: Repo) -> None:
    files = {"model/models/models.go": _registered("mamba"), "model/models/mamba/model.go": _MODEL.format(name="mamba")}
    result = analyse(repo.change("mamba", files))
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)


def test_a_blank_import_of_a_driver_registers_no_model(repo: Repo) -> None:
    imports = '\t_ "github.com/lib/pq"\n\t_ "example.com/x/drivers/sqlite"\n'
    files = {"server/db.go": f"package server\n\nimport (\n{imports})\n"}
    assert not analyse(repo.change("server: database drivers", files)).surface


# --------------------------------------------------------------------------- pinned upstream revisions


def test_the_pinned_upstream_revision_moved_is_a_build_change_of_medium_importance(repo: Repo) -> None:
    patch = "diff --git a/src/loader.cpp b/src/loader.cpp\n--- a/src/loader.cpp\n+++ b/src/loader.cpp\n"
    files = {"ENGINE_CPP_VERSION": "b9626\n", "engine/compat/001-hooks.patch": patch}
    result = analyse(repo.change("engine update", files))
    assert (result.type, result.importance) == (ChangeType.build, Importance.medium)
    assert result.flags.user_facing


def test_the_projects_own_version_file_is_no_pin_and_a_pin_file_rewritten_is_no_revision(repo: Repo) -> None:
    assert "revision_pins" not in fired(repo.change("0.9.2", {"VERSION": "0.9.2\n"}))
    rewritten = {"ENGINE_CPP_VERSION": "# pinned by the release script\nb9626\n"}
    assert "revision_pins" not in fired(repo.change("note how the engine is pinned", rewritten))


# --------------------------------------------------------------------------- the JSON API and its routes


def test_an_exported_json_field_removed_from_the_api_types_is_breaking(repo: Repo) -> None:
    files = {"api/types.go": _TYPES.replace('\tLowVRAM bool   `json:"low_vram,omitempty"`\n', "")}
    result = analyse(repo.change("api: drop unsupported options", files))
    assert result.type == ChangeType.feat
    assert result.flags.breaking


def test_a_json_field_moved_to_another_struct_is_not_removed(repo: Repo) -> None:
    runner = '\n// Runner holds the options of the runner.\ntype Runner struct {\n\tLowVRAM bool `json:"low_vram"`\n}\n'
    moved = _TYPES.replace('\tLowVRAM bool   `json:"low_vram,omitempty"`\n', "") + runner
    assert not analyse(repo.change("api: group runner options", {"api/types.go": moved})).flags.breaking


def test_a_route_registered_on_a_go_router_is_a_new_endpoint(repo: Repo) -> None:
    routes = _ROUTES.replace("\treturn r\n", '\tr.GET("/api/ps", s.PsHandler)\n\treturn r\n')
    result = analyse(repo.change("server: list running models", {"server/routes.go": routes}))
    assert result.type == ChangeType.feat
    assert any(c.kind == SurfaceKind.http_route and c.change == SurfaceAction.added for c in result.surface)


# --------------------------------------------------------------------------- credentials


def test_credentials_refused_to_a_host_other_than_the_one_asked_is_a_security_fix(repo: Repo) -> None:
    check = (
        "\t// the realm must be on the host asked, or the token goes to whoever answered\n"
        "\tif redirectURL.Host != originalHost {\n"
        '\t\treturn "", fmt.Errorf("realm host %q does not match %q", redirectURL.Host, originalHost)\n'
        "\t}\n\n"
    )
    auth = _AUTH.replace("challenge registryChallenge)", "challenge registryChallenge, originalHost string)")
    auth = auth.replace("\treq, err :=", check + "\treq, err :=")
    result = analyse(repo.change("server: reject unexpected auth hosts", {"server/auth.go": auth}))
    assert result.flags.security
    assert result.importance == Importance.high


def test_a_host_compared_where_no_credential_is_near_is_no_security_change(repo: Repo) -> None:
    mirror = (
        "package server\n\nfunc pick(mirror, origin string) error {\n"
        '\tif mirror.Host != originHost {\n\t\treturn errors.New("mirror on another host")\n\t}\n\treturn nil\n}\n'
    )
    result = analyse(repo.change("server: pick mirrors on the same host", {"server/mirror.go": mirror}))
    assert not result.flags.security


def test_a_json_field_removed_from_a_struct_declared_in_a_function_is_no_wire_format(repo: Repo) -> None:
    parse = (
        "package convert\n\nfunc arch(data []byte) string {\n\tvar cfg struct {\n"
        '\t\tArchitectures []string `json:"architectures"`\n\t\tModelType     string   `json:"model_type"`\n'
        "\t}\n\t_ = json.Unmarshal(data, &cfg)\n\treturn cfg.ModelType\n}\n"
    )
    repo.change("convert: read the model type", {"convert/arch.go": parse})
    trimmed = parse.replace('\t\tArchitectures []string `json:"architectures"`\n', "")
    assert not analyse(repo.change("convert: only the model type", {"convert/arch.go": trimmed})).flags.breaking


def test_a_go_1_22_pattern_names_its_route_by_method_and_path(repo: Repo) -> None:
    mux = 'package server\n\nfunc routes(mux *http.ServeMux) {\n\tmux.HandleFunc("GET /api/tags", tags)\n}\n'
    repo.change("server: a mux", {"server/mux.go": mux})
    more = mux.replace("}\n", '\tmux.HandleFunc("DELETE /api/delete", remove)\n}\n')
    result = analyse(repo.change("server: delete models", {"server/mux.go": more}))
    assert ("http_route", "added", "DELETE /api/delete") in {(c.kind, c.change, c.name) for c in result.surface}


# --------------------------------------------------------------------------- paths from clients

_BLOBS = """package server

func blobPath(dir, name string) (string, error) {
\tp := filepath.Join(dir, name)
\treturn p, nil
}
"""


def test_a_client_named_path_kept_inside_its_store_is_a_security_fix(repo: Repo) -> None:
    repo.change("server: blob paths", {"server/blobs.go": _BLOBS})
    guarded = _BLOBS.replace(
        "\tp := filepath.Join",
        '\tif !filepath.IsLocal(name) {\n\t\treturn "", fmt.Errorf("invalid blob name")\n\t}\n\tp := filepath.Join',
    )
    result = analyse(repo.change("server: check blob names", {"server/blobs.go": guarded}))
    assert result.flags.security


def test_new_code_that_starts_with_a_path_check_is_no_security_fix(repo: Repo) -> None:
    fresh = _BLOBS.replace(
        "\tp := filepath.Join", '\tif !filepath.IsLocal(name) {\n\t\treturn "", errBad\n\t}\n\tp := filepath.Join'
    )
    assert not analyse(repo.change("server: blob store", {"server/blobs.go": fresh})).flags.security
