"""Which kind of file a changed path is: product source, build/config, tests, docs, generated, binary.

The budget reads files in :class:`~repodaily.models.FileCategory` order, so a wrong
class costs the analyzer the files that matter. The classes come from a table of
:class:`PathRule` — data, not code — that a caller may replace or extend; the first
rule that matches wins, and a path no rule matches is treated as source: an
unexpected file is better read than hidden.

Pattern syntax (matched case-insensitively, so ``README*`` finds ``Readme.md``):

- no ``/`` in the pattern: matched against the file name, in any directory
  (``*.md``, ``Dockerfile*``, ``test_*.py``);
- with a ``/``: matched against the whole path from the repository root;
  a leading ``**/`` lets it start in any directory, and a trailing ``/`` takes
  everything below (``**/tests/``, ``.github/``);
- ``*`` and ``?`` stay within one path component; ``**`` crosses them;
  ``[abc]`` and ``[!abc]`` are character classes.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import groupby

from repodaily.models import FileCategory

__all__ = ["DEFAULT_PATH_RULES", "PathRule", "classify_path"]


@dataclass(frozen=True)
class PathRule:
    """Paths matching ``pattern`` (see the module docstring) belong to ``category``."""

    pattern: str
    category: FileCategory


def _rules(category: FileCategory, *patterns: str) -> tuple[PathRule, ...]:
    return tuple(PathRule(pattern, category) for pattern in patterns)


# Order matters: the first match wins, so the most specific evidence comes first.
DEFAULT_PATH_RULES: tuple[PathRule, ...] = (
    # Binary by extension, or as good as binary to a reader: images (SVG too), archives,
    # compiled objects, model weights, media, fonts.
    *_rules(
        FileCategory.binary,
        *(
            f"*.{ext}"
            for ext in (
                "png",
                "jpg",
                "jpeg",
                "gif",
                "bmp",
                "ico",
                "webp",
                "svg",
                "tif",
                "tiff",
                "icns",
                "psd",
                "ai",
                "pdf",
                "zip",
                "tar",
                "gz",
                "tgz",
                "bz2",
                "xz",
                "zst",
                "7z",
                "rar",
                "whl",
                "egg",
                "jar",
                "so",
                "dylib",
                "dll",
                "exe",
                "o",
                "a",
                "lib",
                "pyc",
                "pyd",
                "class",
                "wasm",
                "bin",
                "pt",
                "pth",
                "safetensors",
                "onnx",
                "gguf",
                "ckpt",
                "h5",
                "npy",
                "npz",
                "pkl",
                "pickle",
                "parquet",
                "arrow",
                "tflite",
                "engine",
                "mp3",
                "mp4",
                "wav",
                "flac",
                "ogg",
                "webm",
                "mov",
                "avi",
                "woff",
                "woff2",
                "ttf",
                "otf",
                "eot",
            )
        ),
    ),
    # Generated, locked or vendored: machine-written or someone else's code.
    *_rules(
        FileCategory.generated,
        "*.lock",
        "package-lock.json",
        "npm-shrinkwrap.json",
        "pnpm-lock.yaml",
        "go.sum",
        "*.min.js",
        "*.min.css",
        "*.js.map",
        "*.css.map",
        "*_pb2.py",
        "*_pb2.pyi",
        "*_pb2_grpc.py",
        "*.pb.go",
        "*.pb.h",
        "*.pb.cc",
        "*.pb.ts",
        "*.generated.*",
        "*_generated.*",
        "zz_generated*",
        "*.g.dart",
        "**/vendor/",
        "**/vendored/",
        "**/third_party/",
        "**/third-party/",
        "**/node_modules/",
        "**/__snapshots__/",
    ),
    # Prose is documentation wherever it lives (`examples/**/*.md`, `.github/*.md`).
    *_rules(FileCategory.docs, "*.md", "*.mdx", "*.rst", "*.adoc"),
    # CI and dependency pins, before the test rules so that
    # `.buildkite/test-pipeline.yaml` and `requirements/test.txt` stay here. CI counts
    # as build: it decides what gets built and shipped.
    *_rules(
        FileCategory.build,
        ".github/",
        ".gitlab/",
        ".buildkite/",
        ".circleci/",
        ".azure-pipelines/",
        ".ci/",
        ".gitlab-ci.yml",
        ".travis.yml",
        "azure-pipelines.yml",
        "Jenkinsfile",
        "codecov.yml",
        "requirements/",
        "docker/",
    ),
    # Tests, and code that supports the product without being it. Top-level
    # benchmarks/ and examples/ are neither the product nor its documentation; they
    # rank with tests. Only at the root: a package's own `benchmarks/` or `testing/`
    # module (vllm/benchmarks, torch/testing) is shipped, user-facing code.
    *_rules(
        FileCategory.test,
        "**/tests/",
        "**/test/",
        "**/__tests__/",
        "**/__mocks__/",
        "**/testdata/",
        "**/spec/",
        "testing/",
        "benchmarks/",
        "benchmark/",
        "examples/",
        "example/",
        "test_*.py",
        "*_test.py",
        "conftest.py",
        "*_test.go",
        "*_test.rs",
        "*_test.cc",
        "*_test.cpp",
        "*_test.cu",
        "*_unittest.cc",
        "*.test.[jt]s",
        "*.test.[jt]sx",
        "*.spec.[jt]s",
        "*.spec.[jt]sx",
        "*.test.mjs",
        "*.spec.mjs",
        "*Test.java",
        "*Tests.java",
        "*Test.kt",
        "*_spec.rb",
    ),
    # Build, packaging and repository configuration.
    *_rules(
        FileCategory.build,
        "requirements*.txt",
        "requirements*.in",
        "constraints*.txt",
        "setup.py",
        "setup.cfg",
        "pyproject.toml",
        "MANIFEST.in",
        "tox.ini",
        "noxfile.py",
        "Pipfile",
        "environment*.yml",
        "CMakeLists.txt",
        "*.cmake",
        "cmake/",
        "Makefile",
        "GNUmakefile",
        "*.mk",
        "meson.build",
        "BUILD",
        "BUILD.bazel",
        "WORKSPACE",
        "MODULE.bazel",
        "*.bzl",
        "*.bazel",
        "Dockerfile",
        "Dockerfile.*",
        "*.Dockerfile",
        "docker-compose*.y*ml",
        "compose*.y*ml",
        "Cargo.toml",
        "go.mod",
        "go.work",
        "package.json",
        "tsconfig*.json",
        "*.gemspec",
        "Gemfile",
        "build.gradle*",
        "settings.gradle*",
        "pom.xml",
        # Developer tooling at the root: lint, release and CI helpers.
        "tools/",
        "scripts/",
        # Dotfiles configure tools (.gitignore, .pre-commit-config.yaml, .clang-format).
        ".*",
    ),
    *_rules(
        FileCategory.docs,
        "README*",
        "CHANGELOG*",
        "CHANGES*",
        "HISTORY*",
        "NEWS*",
        "LICENSE*",
        "LICENCE*",
        "COPYING*",
        "NOTICE*",
        "AUTHORS*",
        "CONTRIBUTORS*",
        "CODEOWNERS",
        "CITATION*",
        "*.ipynb",
        "mkdocs.y*ml",
        "**/docs/",
        "**/doc/",
    ),
    # Configuration and data tables read at run time (tuned kernel configs, YAML
    # configs), and plain text; after the tests so that test fixtures stay tests.
    *_rules(
        FileCategory.build,
        *(f"*.{ext}" for ext in ("toml", "yaml", "yml", "json", "ini", "cfg", "conf", "csv", "tsv", "properties")),
    ),
    *_rules(FileCategory.docs, "*.txt"),
)


def classify_path(path: str, *, binary: bool = False, rules: Sequence[PathRule] = DEFAULT_PATH_RULES) -> FileCategory:
    """The category of ``path``: binary if git says so, else the first matching rule's, else source."""
    if binary:
        return FileCategory.binary
    matcher, categories = _DEFAULT_MATCHER if rules is DEFAULT_PATH_RULES else _compile_rules(tuple(rules))
    path = path.strip("/")
    match = matcher.fullmatch(f"{path.rsplit('/', 1)[-1]}\0{path}")
    if match is None or match.lastgroup is None:
        return FileCategory.source
    return categories[int(match.lastgroup[1:])]


@lru_cache(maxsize=16)
def _compile_rules(rules: tuple[PathRule, ...]) -> tuple[re.Pattern[str], tuple[FileCategory, ...]]:
    """All rules as one regex over ``"<file name>\\0<path>"``, and the category of each of its groups.

    A full match tries the alternatives in order, so the first matching rule wins.
    Consecutive rules of one category share one named group ``c<index>``
    (``lastgroup`` tells which matched), and name patterns read the file name
    before the NUL instead of searching the path for its last ``/``: both keep a
    path's classification to a few microseconds.
    """
    categories: list[FileCategory] = []
    groups: list[str] = []
    for category, block in groupby(rules, key=lambda rule: rule.category):
        alternatives = "|".join(_glob_to_regex(rule.pattern) for rule in block)
        groups.append(f"(?P<c{len(categories)}>{alternatives})")
        categories.append(category)
    return re.compile("|".join(groups), re.IGNORECASE | re.DOTALL), tuple(categories)


def _glob_to_regex(pattern: str) -> str:
    """Translate one rule pattern into a regex over ``"<file name>\\0<path>"``."""
    if pattern.endswith("/"):
        pattern += "**"
    if "/" not in pattern:
        return _translate(pattern) + r"\x00.*"
    if pattern.startswith("**/"):
        return r"[^\x00]*\x00(?:.*/)?" + _translate(pattern[3:])
    return r"[^\x00]*\x00" + _translate(pattern)


_GLOB_TOKENS = re.compile(r"\*\*|\*|\?|\[!?[^\]]+\]|[^*?\[]+|\[")


def _translate(glob: str) -> str:
    parts: list[str] = []
    for token in _GLOB_TOKENS.findall(glob):
        if token == "**":
            parts.append(".*")
        elif token == "*":
            parts.append("[^/]*")
        elif token == "?":
            parts.append("[^/]")
        elif token.startswith("[") and token.endswith("]") and len(token) > 2:
            negate = token.startswith("[!")
            members = re.escape(token[2 if negate else 1 : -1]).replace(r"\-", "-")
            parts.append(f"[^/{members}]" if negate else f"[{members}]")
        else:
            parts.append(re.escape(token))
    return "".join(parts)


_DEFAULT_MATCHER = _compile_rules(DEFAULT_PATH_RULES)
