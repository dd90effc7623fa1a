"""One path table and one glob dialect: what a changed file is, for the context stage and the heuristic alike."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from message_parts import parsed_parts
from pydantic import ValidationError

from repodaily.analyzers.heuristic import HeuristicAnalyzer, RuleSet
from repodaily.context import build_input
from repodaily.errors import ConfigError
from repodaily.models import Commit, Coverage, FileCategory, FileChange, FileStatus
from repodaily.paths import Globs, PathClass, PathTable
from repodaily.plugins import registry

PACKAGED = PathTable.packaged()

# --------------------------------------------------------------------------- the packaged table: categories


@pytest.mark.parametrize(
    ("path", "category"),
    [
        # vLLM
        ("vllm/model_executor/models/qwen3_5.py", FileCategory.source),
        ("csrc/attention/x.cu", FileCategory.source),
        ("csrc/quantization/fp8/common.cuh", FileCategory.source),
        ("vllm/benchmarks/serve.py", FileCategory.source),
        ("vllm/entrypoints/openai/chat_template.jinja", FileCategory.source),
        ("tests/kernels/test_x.py", FileCategory.test),
        ("tests/tokenizers_/fixtures/test_output_4.txt", FileCategory.test),
        ("tests/conftest.py", FileCategory.test),
        ("benchmarks/kernels/benchmark_moe.py", FileCategory.test),
        ("examples/offline_inference/basic/basic.py", FileCategory.test),
        ("examples/online_serving/dashboards/README.md", FileCategory.docs),
        ("docs/models/supported_models.md", FileCategory.docs),
        ("docs/mkdocs/hooks/url_schemes.py", FileCategory.docs),
        ("README.md", FileCategory.docs),
        ("CHANGELOG.md", FileCategory.docs),
        ("LICENSE", FileCategory.docs),
        (".buildkite/test-pipeline.yaml", FileCategory.build),
        (".github/workflows/pre-commit.yml", FileCategory.build),
        ("requirements/cuda.txt", FileCategory.build),
        ("requirements/test.in", FileCategory.build),
        ("requirements-dev.txt", FileCategory.build),
        ("setup.py", FileCategory.build),
        ("pyproject.toml", FileCategory.build),
        ("CMakeLists.txt", FileCategory.build),
        ("cmake/utils.cmake", FileCategory.build),
        ("docker/Dockerfile.rocm", FileCategory.build),
        ("Dockerfile", FileCategory.build),
        (".pre-commit-config.yaml", FileCategory.build),
        ("vllm/model_executor/layers/fused_moe/configs/E=128,N=384,device_name=NVIDIA_B200.json", FileCategory.build),
        ("vllm/third_party/pynvml.py", FileCategory.generated),
        ("uv.lock", FileCategory.generated),
        ("docs/assets/design/hierarchy.png", FileCategory.binary),
        ("docs/assets/models/pooling_models/score_types.svg", FileCategory.binary),
        # elsewhere
        ("pkg/cmd/root_test.go", FileCategory.test),
        ("src/components/__tests__/Button.tsx", FileCategory.test),
        ("src/api/client.spec.ts", FileCategory.test),
        ("testing/helpers.py", FileCategory.test),
        ("Makefile", FileCategory.build),
        ("Cargo.toml", FileCategory.build),
        ("package.json", FileCategory.build),
        (".gitlab-ci.yml", FileCategory.build),
        ("Cargo.lock", FileCategory.generated),
        ("package-lock.json", FileCategory.generated),
        ("poetry.lock", FileCategory.generated),
        ("static/js/app.min.js", FileCategory.generated),
        ("vendor/github.com/spf13/pflag/flag.go", FileCategory.generated),
        ("third_party/cutlass/include/cutlass.h", FileCategory.generated),
        ("proto/service_pb2.py", FileCategory.generated),
        ("api/v1/service.pb.go", FileCategory.generated),
        ("src/schema.generated.ts", FileCategory.generated),
        ("weights/model.safetensors", FileCategory.binary),
        ("dist/release.tar.gz", FileCategory.binary),
        ("src/main.rs", FileCategory.source),
        ("lib/parser.ts", FileCategory.source),
        ("bin/launch", FileCategory.source),
    ],
)
def test_paths_are_classified_like_a_maintainer_would(path, category):
    assert PACKAGED.category(path) == category


def test_binary_flag_wins_over_the_path():
    assert PACKAGED.category("vllm/model_executor/models/llama.py", binary=True) == FileCategory.binary


def test_path_classes_ignore_case():
    assert PACKAGED.category("Readme.MD") == FileCategory.docs
    assert PACKAGED.category("assets/Logo.PNG") == FileCategory.binary


# --------------------------------------------------------------------------- the packaged table: classes


@pytest.mark.parametrize(
    ("path", "name"),
    [
        (".github/workflows/ci.yml", "ci"),
        (".github/PULL_REQUEST_TEMPLATE/feature.md", "ci"),
        (".github/CONTRIBUTING.md", "community"),  # the project's own document, shown from .github/
        (".github/CODEOWNERS", "owners"),  # who reviews what: no pipeline
        ("CODEOWNERS", "owners"),
        (".github/FUNDING.yml", "owners"),  # who may be funded: no pipeline either
        ("dist/esm/axios.js", "generated"),  # an npm package's built bundle
        ("packages/client/dist/index.cjs", "generated"),
        ("locales/de.json", "translations"),  # a JavaScript project's messages in one language
        ("_locales/en/messages.json", "translations"),
        (".pre-commit-config.yaml", "tooling"),
        ("tox.ini", "ci"),  # the test environments CI runs the suite in
        ("noxfile.py", "ci"),
        ("typing-examples/baseline.py", "test"),  # code only a type checker runs, to test the stubs
        ("changelog/12345.bugfix.rst", "changelog"),
        ("src/project/newsfragments/12345.feature", "changelog"),
        ("docs/changelog/3442.feature.rst", "changelog"),  # fragments where the docs render them
        ("tests/fixtures/changelog/expected.md", "docs"),  # a changelog tool's fixture records no change
        (".buildkite/test-pipeline.yaml", "ci"),
        ("requirements/test.txt", "ci"),
        ("uv.lock", "lockfile"),
        ("CHANGES.rst", "changelog"),
        ("docs/models/supported_models.md", "docs"),
        ("examples/online_serving/dashboards/README.md", "docs"),
        ("docs/.nav.yml", "docs"),  # a docs directory's own files are documentation
        ("docs/contributing/dockerfile/dockerfile.md", "docs"),  # a page about Dockerfiles is not one
        ("docker/Dockerfile.rocm", "build"),
        ("flake.nix", "build"),
        ("nix/default.nix", "build"),
        ("dev-requirements.txt", "build"),
        ("tests/kernels/test_x.py", "test"),
        ("website/src/components/Testimonials/index.tsx", "website"),
        ("benchmarks/kernels/benchmark_moe.py", "benchmarks"),
        ("examples/offline_inference/basic/basic.py", "examples"),
        ("tools/check_repo.sh", "tooling"),
        ("sandbox/client.html", "tooling"),  # a page developers try the library in by hand
        ("playground/src/main.ts", "tooling"),
        ("src/sandbox/process.py", "source"),  # a package's own sandbox module is the product
        ("vllm/model_executor/layers/fused_moe/configs/E=128,N=384.json", "config"),
        (".gitignore", "config"),
        ("vllm/v1/core/sched/scheduler.py", "core"),
        ("git-cliff-core/src/changelog.rs", "core"),  # code named after the changelog is code
        ("LICENSE", "docs"),
        ("notes.txt", "text"),
        ("vllm/third_party/pynvml.py", "generated"),
        ("docs/assets/logo.png", "docs"),  # a picture of the documentation is documentation ...
        ("assets/logo.png", "binary"),
        ("vllm/model_executor/models/llama.py", "source"),
        ("Package.swift", "build"),  # the manifests of other ecosystems are build files too
        ("Package.resolved", "lockfile"),
        ("mix.exs", "build"),
        ("mix.lock", "lockfile"),
        ("composer.json", "build"),
        ("pubspec.yaml", "build"),
        ("Directory.Packages.props", "build"),
        ("src/App/App.fsproj", "build"),
        ("configure.ac", "build"),
        ("lib/Makefile.am", "build"),
        ("gradlew", "build"),
        ("e2e/login.spec.ts", "test"),
        ("e2e/fixtures/user.json", "test"),
        ("cypress/support/commands.js", "test"),
        ("Tests/ParsingTests/ParserTests.swift", "test"),
        ("Sources/Parsing/Parser.swift", "source"),
    ],
)
def test_each_path_belongs_to_the_first_class_that_claims_it(path: str, name: str) -> None:
    assert PACKAGED.classify(path) == name


def test_a_never_read_class_claims_the_category_wherever_it_stands() -> None:
    # ... but it is not worth reading; nor is a vendored test helper or a snapshot.
    assert PACKAGED.category("docs/assets/logo.svg") == FileCategory.binary
    assert (PACKAGED.classify("tests/__snapshots__/app.snap"), PACKAGED.category("tests/__snapshots__/app.snap")) == (
        "test",
        FileCategory.generated,
    )


def test_a_binary_file_no_class_claims_is_binary() -> None:
    assert PACKAGED.classify("vllm/kernels/blob", binary=True) == "binary"
    assert PACKAGED.classify("tests/data/blob", binary=True) == "test"


def test_every_class_the_heuristic_describes_is_a_class_of_the_table() -> None:
    rules = RuleSet.load()
    assert list(rules.paths) == list(PACKAGED.classes)
    for name, path_class in PACKAGED.classes.items():
        assert (rules.paths[name].category, rules.paths[name].globs) == (path_class.category, path_class.globs)


# --------------------------------------------------------------------------- the glob dialect


def _one_class(glob: str) -> PathTable:
    return PathTable({"claimed": PathClass(category=FileCategory.generated, globs=[glob])})


@pytest.mark.parametrize(
    ("glob", "path", "matches"),
    [
        ("*.py", "a/b/c.py", True),  # a name glob matches in any directory
        ("*.py", "a/b.py/c", False),  # ... the file's name, not a directory's
        ("src/*.py", "src/a.py", True),  # a path glob is anchored at the root
        ("src/*.py", "lib/src/a.py", False),
        ("src/*.py", "src/sub/a.py", False),  # * stays within one component
        ("/Makefile", "Makefile", True),  # a leading / only anchors
        ("/Makefile", "docs/Makefile", False),
        ("src/**", "src/sub/a.py", True),
        ("src/**/*.py", "src/a.py", True),  # **/ is any number of directories, none included
        ("src/**/*.py", "src/x/y/a.py", True),
        ("**/gen/", "a/b/gen/x/y.py", True),  # trailing / takes everything below
        ("**/gen/", "gen/y.py", True),
        ("**/gen/", "a/regen/y.py", False),
        ("*.[ch]", "x/y.h", True),
        ("*.[!ch]", "x/y.h", False),
        ("v[0-9].txt", "v7.txt", True),
        ("file?.txt", "file1.txt", True),
        ("file?.txt", "file/.txt", False),
        ("README*", "docs/Readme.MD", True),  # matched case-insensitively
        ("a[b", "x/a[b", True),  # an unclosed bracket is itself
    ],
)
def test_globs_follow_the_documented_dialect(glob: str, path: str, matches: bool) -> None:
    assert Globs([glob]).matches(path) is matches
    assert _one_class(glob).classify(path) == ("claimed" if matches else "source")


def test_the_first_matching_class_wins() -> None:
    first = {"machine_written": PathClass(category=FileCategory.generated, globs=["**/generated/"])}
    table = PathTable(first | PACKAGED.classes)
    assert table.category("tests/generated/test_x.py") == FileCategory.generated
    assert PACKAGED.category("tests/generated/test_x.py") == FileCategory.test


def test_a_path_no_class_claims_is_source() -> None:
    assert PathTable({}).classify("anything/at/all.xyz") == "source"
    assert PathTable({}).category("anything/at/all.xyz") == FileCategory.source


@pytest.mark.parametrize("glob", ["", "/", "//"])
def test_a_glob_that_names_no_file_is_rejected(glob: str) -> None:
    with pytest.raises(ValidationError, match="names no file"):
        PathClass(globs=[glob])


@pytest.mark.parametrize("glob", ["", "/", "//"])
def test_a_glob_that_names_no_file_is_a_config_error(glob: str) -> None:
    with pytest.raises(ConfigError, match=r"paths\.docs\.globs"):
        RuleSet.load({"paths": {"docs": {"globs": [glob]}}})
    with pytest.raises(ConfigError, match=r"dependencies\.manifests"):
        RuleSet.load({"dependencies": {"manifests": [glob]}})


# --------------------------------------------------------------------------- conventions extend the one table


VENDORED = {"paths": {"vendored": {"globs": ["kernels/external/"], "category": "generated", "ignorable": True}}}


def _commit(*paths: str) -> Commit:
    patch = "@@ -1,2 +1,3 @@\n keep()\n-old()\n+new()\n+more()\n"
    return Commit(
        sha="a" * 40,
        parents=["b" * 40],
        author_name="Ada",
        authored_at=datetime(2026, 3, 2, 4, 0, tzinfo=UTC),
        committed_at=datetime(2026, 3, 2, 4, 0, tzinfo=UTC),
        **parsed_parts("Update the kernels"),
        files=[
            FileChange(path=path, status=FileStatus.modified, additions=2, deletions=1, patch=patch) for path in paths
        ],
    )


def test_conventions_extend_the_table_for_the_heuristic_and_the_context_alike() -> None:
    analyzer = HeuristicAnalyzer(language="en", conventions=VENDORED)
    commit = _commit("kernels/external/cutlass.cu", "kernels/attention.cu")
    item = build_input("acme/engine", commit, budget_tokens=6000, paths=analyzer.path_table)
    coverage = {f.path: (f.category, f.coverage) for f in item.receipt.files}
    assert coverage["kernels/external/cutlass.cu"] == (FileCategory.generated, Coverage.stats_only)
    assert coverage["kernels/attention.cu"] == (FileCategory.source, Coverage.full)
    assert analyzer.path_table.classify("kernels/external/cutlass.cu") == "vendored"
    # The packaged table, and so any analyzer without conventions, still reads the file.
    plain = build_input("acme/engine", commit, budget_tokens=6000)
    assert {f.path: f.category for f in plain.receipt.files}["kernels/external/cutlass.cu"] == FileCategory.source
    assert (
        registry()
        .create("analyzer", "heuristic", {}, "test", language="zh", budget_tokens=6000)
        .path_table.classify("kernels/external/cutlass.cu")
        == "source"
    )


def test_a_class_an_extension_adds_is_tried_after_the_tables_own() -> None:
    table = RuleSet.load({"paths": {"kernels": {"globs": ["*.cu"]}}}).path_table
    assert table.classify("csrc/attention.cu") == "kernels"
    assert table.classify("tests/kernels/attention_test.cu") == "test"
    assert table.category("csrc/attention.cu") == FileCategory.source  # a new class is source unless it says otherwise


def test_the_fingerprint_changes_with_the_path_table() -> None:
    default = RuleSet.load()
    assert RuleSet.load({"paths": {"docs": {"globs": ["manual/"]}}}).fingerprint != default.fingerprint
    assert RuleSet.load({"paths": {"tooling": {"category": "test"}}}).fingerprint != default.fingerprint
    # The packaged table itself is part of what the fingerprint hashes.
    assert default.model_dump(mode="json")["paths"]["binary"]["globs"] == PACKAGED.classes["binary"].globs
