"""The heuristic on the conventions of Python machine-learning libraries.

New methods arrive as a subpackage whose classes the package's root module
exports; titles start with numpy's capitalised abbreviations (``ENH``, ``TST``,
``MAINT``) or capitalised Conventional types, with or without a colon; a
loaded checkpoint's keyword arguments are stripped of ``trust_remote_code``.
Every commit is made by git in a temporary repository and read by the git
source, as a report reads it (:class:`test_surface.Repo`).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_surface import Repo, analyse

from repodaily.analyzers.heuristic import RuleSet
from repodaily.analyzers.heuristic.title import parse_title
from repodaily.models import ChangeType, Importance, SurfaceAction, SurfaceKind
from repodaily.sources.message import parse_subject

_ROOT = (
    '"""Adapters for pretrained models."""\n\nfrom .lowrank import LowRankConfig, LowRankModel\n\n'
    '__all__ = [\n    "LowRankConfig",\n    "LowRankModel",\n{extra}]\n'
)
_LOWRANK = (
    "class LowRankConfig:\n    rank: int = 8\n\n\nclass LowRankModel:\n    def forward(self, x):\n        return x\n"
)


@pytest.fixture
def repo(tmp_path: Path) -> Repo:
    return Repo(
        tmp_path,
        {
            "src/tunekit/__init__.py": _ROOT.format(extra=""),
            "src/tunekit/lowrank.py": _LOWRANK,
            "tests/test_lowrank.py": "def test_rank():\n    assert True\n",
            "README.md": "# tunekit\n",
        },
    )


def _method(name: str) -> dict[str, str]:
    """A new method's subpackage: its config, its layer and its model, each in a module of its own."""
    base = f"src/tunekit/{name.lower()}"
    return {
        f"{base}/__init__.py": f"from .config import {name}Config\nfrom .model import {name}Model\n",
        f"{base}/config.py": f"class {name}Config:\n    sparsity: float = 0.99\n    seed: int = 0\n",
        f"{base}/layer.py": f"class {name}Layer:\n    def update(self, weight):\n        return weight * 2\n",
        f"{base}/model.py": f"class {name}Model:\n    def forward(self, x):\n        return x + 1\n",
    }


# --------------------------------------------------------------------------- new methods


def test_a_new_subpackage_the_root_module_exports_is_a_new_public_api(repo: Repo) -> None:
    exports = '    "SparseConfig",\n    "SparseModel",\n'
    files = {**_method("Sparse"), "src/tunekit/__init__.py": _ROOT.format(extra=exports)}
    analysis = analyse(repo.change("Add sparse adapters (#3518)", files))
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.high)
    exported = {(c.name, c.path) for c in analysis.surface if c.kind == SurfaceKind.public_api}
    assert ("SparseConfig", "src/tunekit/__init__.py") in exported
    assert all(c.change == SurfaceAction.added for c in analysis.surface if c.kind == SurfaceKind.public_api)


def test_a_new_subpackage_the_root_module_does_not_export_is_no_new_public_api(repo: Repo) -> None:
    analysis = analyse(repo.change("Add sparse adapters (#3518)", _method("Sparse")))
    assert analysis.type == ChangeType.feat
    assert analysis.importance == Importance.medium


# --------------------------------------------------------------------------- capitalised title words


@pytest.mark.parametrize(
    ("title", "expected", "cited"),
    [
        ("ENH Make the compile check optional", ChangeType.feat, "ENH"),
        ("ENH: Make the compile check optional", ChangeType.feat, "ENH:"),
        ("MAINT Bump the stale bot", ChangeType.chore, "MAINT"),
        ("TST Cover the empty batch", ChangeType.test, "TST"),
        ("FIX Deleting adapters on wrapped modules", ChangeType.fix, "FIX"),
        ("CHORE Drop the old helper", ChangeType.chore, "CHORE"),
    ],
)
def test_a_capitalised_title_word_reads_as_the_type_it_abbreviates(
    title: str, expected: ChangeType, cited: str
) -> None:
    parsed = parse_title(parse_subject(title), RuleSet.load())
    assert parsed.conventional == expected
    assert parsed.prefix == cited
    assert not parsed.description.startswith(cited.rstrip(":"))


@pytest.mark.parametrize("title", ["Enh Make the compile check optional", "ENHANCED logging", "Tst the empty batch"])
def test_a_title_word_not_in_capitals_or_not_an_abbreviation_is_no_prefix(title: str) -> None:
    assert parse_title(parse_subject(title), RuleSet.load()).conventional is None


def test_a_capitalised_revert_word_names_what_it_reverts() -> None:
    parsed = parse_title(parse_subject('REV: "ENH Add the sparse method"'), RuleSet.load())
    assert (parsed.conventional, parsed.revert_of) == (ChangeType.revert, "ENH Add the sparse method")


def test_a_docstring_fix_under_a_doc_word_is_documentation(repo: Repo) -> None:
    before = '"""Adapters for pretrained models."""\n\n'
    fixed = _LOWRANK.replace(
        "class LowRankConfig:\n", 'class LowRankConfig:\n    """The rank of the update; 8 by default."""\n\n'
    )
    repo.change(
        "Document",
        {
            "src/tunekit/lowrank.py": before
            + _LOWRANK.replace("class LowRankConfig:\n", 'class LowRankConfig:\n    """The rank of teh update."""\n\n')
        },
    )
    analysis = analyse(repo.change("DOC Fix the LowRankConfig docstring", {"src/tunekit/lowrank.py": before + fixed}))
    assert (analysis.type, analysis.importance) == (ChangeType.docs, Importance.low)


def test_an_enhancement_word_on_a_new_option_is_a_feature(repo: Repo) -> None:
    option = _LOWRANK.replace("    rank: int = 8\n", '    rank: int = 8\n    check_compiled: str = "error"\n')
    analysis = analyse(
        repo.change("ENH Make the error on a compiled model optional", {"src/tunekit/lowrank.py": option})
    )
    assert analysis.type == ChangeType.feat


def test_a_test_word_on_a_test_only_change_stays_a_test(repo: Repo) -> None:
    tests = "def test_rank():\n    assert True\n\n\ndef test_empty():\n    assert [] == []\n"
    analysis = analyse(repo.change("TST Cover the empty batch", {"tests/test_lowrank.py": tests}))
    assert (analysis.type, analysis.importance) == (ChangeType.test, Importance.low)


# --------------------------------------------------------------------------- trust_remote_code


_PROMPT = (
    "from transformers import AutoTokenizer\n\n\n"
    "def load_tokenizer(config):\n"
    "    tokenizer_kwargs = config.tokenizer_kwargs or {{}}\n"
    "{guard}"
    "    return AutoTokenizer.from_pretrained(config.tokenizer_name_or_path, **tokenizer_kwargs)\n"
)


@pytest.mark.parametrize(
    ("guard", "security"),
    [
        (
            "    # security: disallow trust_remote_code, as this could allow code execution when loading a checkpoint\n"
            '    tokenizer_kwargs.pop("trust_remote_code", None)\n',
            True,
        ),
        ('    tokenizer_kwargs.pop("trust_remote_code", None)\n', False),
    ],
)
def test_trust_remote_code_dropped_under_a_comment_naming_the_threat_is_security(
    repo: Repo, guard: str, security: bool
) -> None:
    repo.change("Prompt init", {"src/tunekit/prompt.py": _PROMPT.format(guard="")})
    analysis = analyse(repo.change("Tokenizer kwargs", {"src/tunekit/prompt.py": _PROMPT.format(guard=guard)}))
    assert analysis.flags.security is security


# --------------------------------------------------------------------------- wide refactors


def _modules(count: int, body: str) -> dict[str, str]:
    """``count`` source modules of one package, each with ``body`` as its code (60 lines)."""
    return {f"src/tunekit/method{i}/layer.py": body for i in range(count)}


_OLD_LAYER = "".join(
    f"def init_{i}(r, alpha, dropout, bias):\n    return (r, alpha, dropout, bias)\n\n\n" for i in range(15)
)
_NEW_LAYER = "".join(f"def init_{i}(config):\n    return (config.r, config.alpha)\n\n\n" for i in range(15))


@pytest.mark.parametrize(
    ("modules", "title", "importance"),
    [
        (12, "Refactor layer initialization to take the config", Importance.medium),
        (12, "Refactor layer initialization with type hints", Importance.low),
        (4, "Refactor layer initialization to take the config", Importance.low),
    ],
)
def test_a_refactor_across_many_source_modules_is_a_large_change_of_core_code(
    repo: Repo, modules: int, title: str, importance: Importance
) -> None:
    repo.change("Layers", _modules(modules, _OLD_LAYER))
    analysis = analyse(repo.change(title, _modules(modules, _NEW_LAYER)))
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, importance)


# --------------------------------------------------------------------------- type annotations


@pytest.mark.parametrize(
    "title",
    ["ENH Improve type annotations in the low-rank module", "chore: add missing return type annotations"],
)
def test_a_title_that_improves_type_annotations_is_a_low_refactor(repo: Repo, title: str) -> None:
    annotated = _LOWRANK.replace("def forward(self, x):", "def forward(self, x: int) -> int:")
    analysis = analyse(repo.change(title, {"src/tunekit/lowrank.py": annotated}))
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)


def test_a_feature_that_reads_annotations_is_no_typing_change(repo: Repo) -> None:
    support = _LOWRANK + "\n\ndef fields_from_annotations(cls):\n    return dict(cls.__annotations__)\n"
    analysis = analyse(repo.change("Support annotations-only config classes", {"src/tunekit/lowrank.py": support}))
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.medium)


# --------------------------------------------------------------------------- deprecated, under a fix


_EXAMPLE = "from transformers import TrainingArguments\n\nargs = TrainingArguments(output_dir='out', {arg}='epoch')\n"


@pytest.mark.parametrize(
    ("title", "expected"),
    [
        ("FIX Deprecated evaluation_strategy argument", ChangeType.fix),
        ("Deprecated evaluation_strategy argument", ChangeType.feat),
    ],
)
def test_a_deprecated_word_under_a_fix_prefix_names_what_is_fixed(repo: Repo, title: str, expected: ChangeType) -> None:
    repo.change("Example", {"examples/train.py": _EXAMPLE.format(arg="evaluation_strategy")})
    analysis = analyse(repo.change(title, {"examples/train.py": _EXAMPLE.format(arg="eval_strategy")}))
    assert (analysis.type, analysis.importance) == (expected, Importance.low)
