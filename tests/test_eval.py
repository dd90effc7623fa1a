"""Evaluation against a labelled set: the metrics by hand, and `repodaily eval` on a real repository."""

from __future__ import annotations

import json
import re
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner
from registered import analyzer_plugin

from repodaily.analyzers import Analyzer
from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.errors import ProviderError
from repodaily.evaluation.labels import GoldLabel
from repodaily.evaluation.metrics import (
    JudgedCommit,
    accuracy,
    confusion_matrix,
    coverage_scores,
    disagreements,
    f1_by_class,
    flag_scores,
    macro_f1,
    off_by_two_share,
    score,
)
from repodaily.models import (
    Analysis,
    AnalysisInput,
    ChangeType,
    Coverage,
    CoverageReceipt,
    FileCategory,
    FileReceipt,
    Flags,
    Importance,
)

SHANGHAI = ZoneInfo("Asia/Shanghai")
H, M, L = Importance.high, Importance.medium, Importance.low


# --------------------------------------------------------------------------- pure metrics


def test_accuracy_is_the_share_of_matching_positions_and_undefined_when_empty():
    assert accuracy(["a", "b", "c", "d"], ["a", "b", "x", "d"]) == 0.75
    assert accuracy([], []) is None


def test_mismatched_lengths_are_refused_rather_than_truncated():
    with pytest.raises(ValueError, match="3 gold values but 2 predictions"):
        accuracy(["a", "b", "c"], ["a", "b"])


def test_macro_f1_averages_over_the_gold_classes_only():
    gold = ["a", "a", "b", "c"]
    predicted = ["a", "b", "b", "d"]
    # a: TP 1, FP 0, FN 1 -> 2/3; b: TP 1, FP 1, FN 0 -> 2/3; c: TP 0 -> 0; d is not a gold class.
    assert f1_by_class(gold, predicted) == {"a": 2 / 3, "b": 2 / 3, "c": 0.0}
    assert macro_f1(gold, predicted) == pytest.approx(4 / 9)
    assert macro_f1(["a", "b"], ["a", "b"]) == 1.0
    assert macro_f1([], []) is None


def test_confusion_matrix_has_gold_rows_and_predicted_columns():
    matrix = confusion_matrix(["fix", "fix", "docs", "feat"], ["fix", "docs", "docs", "fix"], ["feat", "fix", "docs"])
    assert matrix.counts == [
        [0, 1, 0],  # gold feat: predicted fix once
        [0, 1, 1],  # gold fix: right once, predicted docs once
        [0, 0, 1],  # gold docs: right
    ]
    assert matrix.count("fix", "docs") == 1
    assert matrix.count("docs", "fix") == 0


def test_confusion_matrix_refuses_values_outside_its_labels():
    with pytest.raises(ValueError, match="perf"):
        confusion_matrix(["fix"], ["perf"], ["fix"])


def test_off_by_two_counts_high_for_low_and_low_for_high_only():
    gold = [H, L, M, H, L]
    predicted = [L, H, L, M, L]
    assert off_by_two_share(gold, predicted) == (2, 0.4)
    assert off_by_two_share([], []) == (0, None)


def test_flag_recall_and_precision_from_counts():
    scores = flag_scores([True, True, True, False, False], [True, False, True, True, False])
    assert (scores.gold_positives, scores.predicted_positives, scores.true_positives) == (3, 3, 2)
    assert scores.recall == 2 / 3
    assert scores.precision == 2 / 3


def test_flag_without_gold_positives_has_no_recall_but_a_precision():
    scores = flag_scores([False, False, False], [True, False, False])
    assert scores.recall is None
    assert scores.precision == 0.0


def test_flag_never_predicted_has_no_precision_but_a_recall():
    scores = flag_scores([True, False], [False, False])
    assert scores.recall == 0.0
    assert scores.precision is None
    assert flag_scores([], []).recall is None


def _label(sha: str, type_: ChangeType, importance: Importance, **fields: object) -> GoldLabel:
    base = {"security": False, "breaking": False, "user_facing": False}
    return GoldLabel(sha=sha, date="2026-03-02", type=type_, importance=importance, **{**base, **fields})


def _analysis(
    type_: ChangeType, importance: Importance, files: dict[str, Coverage] | None = None, **flags: bool
) -> Analysis:
    receipt = CoverageReceipt(
        budget_tokens=100,
        tokens_sent=10,
        files=[
            FileReceipt(path=path, category=FileCategory.source, coverage=coverage, tokens_total=5, tokens_sent=5)
            for path, coverage in (files or {}).items()
        ],
    )
    return Analysis(
        type=type_, importance=importance, flags=Flags(**flags), one_line="x", coverage=receipt, analyzer="hand"
    )


def _judged(label: GoldLabel, analysis: Analysis) -> JudgedCommit:
    return JudgedCommit(sha=label.sha.ljust(40, "0"), title=f"commit {label.sha}", label=label, analysis=analysis)


def test_key_paths_are_read_when_the_receipt_shows_them_full_or_clipped():
    items = [
        _judged(
            _label("aaaaaaa", ChangeType.fix, M, key_paths=["src/a.py", "src/b.py", "src/gone.py"]),
            _analysis(ChangeType.fix, M, {"src/a.py": Coverage.full, "src/b.py": Coverage.clipped}),
        ),
        _judged(
            _label("bbbbbbb", ChangeType.fix, M, key_paths=["uv.lock"]),
            _analysis(ChangeType.fix, M, {"uv.lock": Coverage.stats_only, "src/c.py": Coverage.full}),
        ),
    ]
    cov = coverage_scores(items)
    assert (cov.key_paths, cov.full, cov.clipped, cov.stats_only, cov.absent) == (4, 1, 1, 1, 1)
    assert cov.read_share == 0.5
    unlabelled = coverage_scores([_judged(_label("ccccccc", ChangeType.fix, M), _analysis(ChangeType.fix, M))])
    assert unlabelled.key_paths == 0 and unlabelled.read_share is None


def test_score_of_nothing_is_all_undefined_not_a_crash():
    scores = score([])
    assert scores.scored == 0
    assert scores.type.accuracy is None and scores.type.macro_f1 is None
    assert scores.importance.accuracy is None and scores.importance.off_by_two_share is None
    assert scores.security.recall is None and scores.security.precision is None
    assert scores.user_facing_accuracy is None and scores.coverage.read_share is None


def test_disagreements_name_every_differing_field_and_only_those():
    agree = _judged(_label("aaaaaaa", ChangeType.docs, L), _analysis(ChangeType.docs, L))
    differ = _judged(
        _label("bbbbbbb", ChangeType.fix, H, security=True, user_facing=True, confidence="unsure"),
        _analysis(ChangeType.fix, M, user_facing=True),
    )
    (only,) = disagreements([agree, differ])
    assert only.sha.startswith("bbbbbbb") and only.confidence == "unsure"
    assert [(d.field, d.gold, d.predicted) for d in only.differences] == [
        ("importance", "high", "medium"),
        ("security", "true", "false"),
    ]


# --------------------------------------------------------------------------- end to end

_INITIAL_FILES = {
    "inferno/scheduler.py": "def schedule(queue):\n    return queue.pop()\n",
    "inferno/ipc.py": "import pickle\n\n\ndef decode(payload):\n    return pickle.loads(payload)\n",
    "inferno/cli.py": "import argparse\n\n\ndef parser():\n    p = argparse.ArgumentParser()\n"
    "    p.add_argument('--max-batch', type=int)\n    return p\n",
    "docs/quickstart.md": "# Quickstart\n\nInstal inferno with pip.\n",
    "tests/test_scheduler.py": "from inferno.scheduler import schedule\n",
    "uv.lock": "version = 1\n",
}
_MISSING_SHA = "0123456789abcdef0123456789abcdef01234567"


def _at(day: int, hour: int) -> datetime:
    return datetime(2026, 3, day, hour, 0, tzinfo=SHANGHAI)


@pytest.fixture(scope="module")
def labelled_repo(tmp_path_factory) -> tuple[Path, dict[str, str]]:
    """Four unambiguous commits over two days, one unlabelled commit, and an import the day before."""
    builder = RepoBuilder(tmp_path_factory.mktemp("eval") / "repo")
    builder.commit("Initial import", when=_at(1, 10), files=_INITIAL_FILES)
    shas = {
        "docs": builder.commit(
            "[Doc] Fix typo in the quickstart (#101)",
            when=_at(2, 9),
            files={"docs/quickstart.md": "# Quickstart\n\nInstall inferno with pip.\n"},
        ),
        "test": builder.commit(
            "[CI] Add a test for schedule (#102)",
            when=_at(2, 11),
            files={
                "tests/test_scheduler.py": "from inferno.scheduler import schedule\n\n\n"
                "def test_schedule_pops_the_last_item():\n    assert schedule([1, 2]) == 2\n"
            },
        ),
        "security": builder.commit(
            "[Security] Refuse pickled payloads on the IPC channel (#103)\n\n"
            "Decoding with pickle lets a peer run arbitrary code; decode JSON instead.",
            when=_at(2, 15),
            files={"inferno/ipc.py": "import json\n\n\ndef decode(payload):\n    return json.loads(payload)\n"},
        ),
        "unlabelled": builder.commit(
            "[Misc] Rename a local variable (#104)",
            when=_at(2, 18),
            files={"inferno/scheduler.py": "def schedule(items):\n    return items.pop()\n"},
        ),
        "breaking": builder.commit(
            "feat(cli)!: rename --max-batch to --max-num-seqs (#105)\n\n"
            "BREAKING CHANGE: --max-batch is gone; use --max-num-seqs.",
            when=_at(3, 10),
            files={
                "inferno/cli.py": _INITIAL_FILES["inferno/cli.py"].replace("--max-batch", "--max-num-seqs"),
                "uv.lock": "version = 2\n",
            },
        ),
    }
    return builder.path, shas


def _labels(shas: dict[str, str]) -> list[dict]:
    """The right answers for the four commits, except the docs commit, labelled wrong on purpose."""
    return [
        {
            # Deliberately wrong: a docs typo fix labelled as a high-importance bug fix.
            "sha": shas["docs"],
            "date": "2026-03-02",
            "title": "[Doc] Fix typo",
            "type": "fix",
            "importance": "high",
            "security": False,
            "breaking": False,
            "user_facing": False,
            "key_paths": ["docs/quickstart.md"],
            "confidence": "unsure",
            "reason": "extra keys are ignored",
        },
        {
            "sha": shas["test"][:10],
            "date": "2026-03-02",
            "type": "test",
            "importance": "low",
            "security": False,
            "breaking": False,
            "user_facing": False,
            "key_paths": ["tests/test_scheduler.py"],
        },
        {
            "sha": shas["security"],
            "date": "2026-03-02",
            "type": "fix",
            "importance": "high",
            "security": True,
            "breaking": False,
            "user_facing": True,
            "key_paths": ["inferno/ipc.py", "inferno/wire.py"],
            "confidence": "sure",
        },
        {
            "sha": shas["breaking"],
            "date": "2026-03-03",
            "type": "feat",
            "importance": "high",
            "security": False,
            "breaking": True,
            "user_facing": True,
            "key_paths": ["inferno/cli.py", "uv.lock"],
        },
        {
            "sha": _MISSING_SHA,
            "date": "2026-03-03",
            "type": "fix",
            "importance": "low",
            "security": False,
            "breaking": False,
            "user_facing": False,
        },
    ]


def _invoke(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def _eval(repo: Path, labels_file: Path, *extra: str) -> tuple[int, str, str]:
    return _invoke("eval", str(labels_file), "--repo", str(repo), "--name", "demo-org/inferno", *extra)


def _row(out: str, metric: str) -> list[str]:
    """The printed row of one metric, split into its columns."""
    line = next(line.strip() for line in out.splitlines() if line.strip().startswith(f"{metric}  "))
    return re.split(r"\s{2,}", line)


def test_eval_prints_the_figures_of_a_partly_wrong_labelled_set(labelled_repo, tmp_path):
    repo, shas = labelled_repo
    labels_file = tmp_path / "labels.json"
    labels_file.write_text(json.dumps(_labels(shas)), encoding="utf-8")
    code, out, err = _eval(repo, labels_file)
    assert code == 0, err
    assert _row(out, "n scored") == ["n scored", "4", "of 5 labelled, 1 missing"]
    assert _row(out, "type accuracy") == ["type accuracy", "0.750", "3/4"]
    assert _row(out, "type macro-F1") == ["type macro-F1", "0.889", "over the 3 types in the gold labels"]
    assert _row(out, "importance accuracy") == ["importance accuracy", "0.750", "3/4"]
    assert _row(out, "importance off by two") == ["importance off by two", "0.250", "1/4 high↔low"]
    assert _row(out, "security recall") == ["security recall", "1.000", "1/1 gold positives found"]
    assert _row(out, "breaking precision") == ["breaking precision", "1.000", "1/1 predicted positives right"]
    assert _row(out, "user_facing accuracy") == ["user_facing accuracy", "1.000", "4/4"]
    assert _row(out, "key paths read") == [
        "key paths read",
        "0.667",
        "4/6 full or clipped (full 4, clipped 0, stats only 1, absent 1)",
    ]
    assert "1 labelled SHA(s) not found on main (first parent) between 2026-03-02 and 2026-03-03" in out
    assert _MISSING_SHA in out
    assert "Disagreements" not in out


def test_eval_json_holds_every_number_the_matrices_and_the_missing_sha(labelled_repo, tmp_path):
    repo, shas = labelled_repo
    labels_file = tmp_path / "labels.json"
    labels_file.write_text(json.dumps(_labels(shas)), encoding="utf-8")
    code, _, err = _eval(repo, labels_file, "--json", str(tmp_path / "out.json"))
    assert code == 0, err
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    s = data["scores"]
    assert (data["labelled"], s["scored"], data["missing"], data["degraded"]) == (5, 4, [_MISSING_SHA], 0)
    assert (s["type"]["correct"], s["type"]["accuracy"]) == (3, 0.75)
    # Gold types fix (F1 2/3: one right, one missed), test and feat (1 each).
    assert s["type"]["f1_by_type"] == {"feat": 1.0, "fix": 2 / 3, "test": 1.0}
    assert s["type"]["macro_f1"] == pytest.approx(8 / 9)
    assert s["type"]["confusion"] == {
        "labels": ["feat", "fix", "docs", "test"],
        "counts": [[1, 0, 0, 0], [0, 1, 1, 0], [0, 0, 0, 0], [0, 0, 0, 1]],
    }
    assert s["importance"] == {
        "correct": 3,
        "accuracy": 0.75,
        "off_by_two": 1,
        "off_by_two_share": 0.25,
        "confusion": {"labels": ["high", "medium", "low"], "counts": [[2, 0, 1], [0, 0, 0], [0, 0, 1]]},
    }
    one_of_one = {"gold_positives": 1, "predicted_positives": 1, "true_positives": 1, "recall": 1.0, "precision": 1.0}
    assert s["security"] == one_of_one
    assert s["breaking"] == one_of_one
    assert (s["user_facing_correct"], s["user_facing_accuracy"]) == (4, 1.0)
    assert s["coverage"] == {"key_paths": 6, "full": 4, "clipped": 0, "stats_only": 1, "absent": 1, "read_share": 4 / 6}
    assert [d["sha"] for d in data["disagreements"]] == [shas["docs"]]


def test_eval_diff_lists_the_wrong_label_with_both_sides_and_its_confidence(labelled_repo, tmp_path):
    repo, shas = labelled_repo
    labels_file = tmp_path / "labels.json"
    labels_file.write_text(json.dumps(_labels(shas)), encoding="utf-8")
    code, out, err = _eval(repo, labels_file, "--diff")
    assert code == 0, err
    listing = out[out.index("Disagreements (1)") :]
    row = next(line for line in listing.splitlines() if shas["docs"][:7] in line)
    assert "[Doc] Fix typo in the quickstart (#101)" in row
    assert "type: fix → docs" in row and "unsure" in row
    assert "importance: high → low" in listing
    for other in ("test", "security", "breaking", "unlabelled"):
        assert shas[other][:7] not in listing


def test_eval_reads_json_lines_the_same_as_a_json_array(labelled_repo, tmp_path):
    repo, shas = labelled_repo
    array_file, lines_file = tmp_path / "labels.json", tmp_path / "labels.jsonl"
    array_file.write_text(json.dumps(_labels(shas), indent=2), encoding="utf-8")
    lines_file.write_text("\n".join(json.dumps(entry) for entry in _labels(shas)) + "\n\n", encoding="utf-8")
    assert _eval(repo, array_file, "--json", str(tmp_path / "a.json"))[0] == 0
    assert _eval(repo, lines_file, "--json", str(tmp_path / "l.json"))[0] == 0
    from_array = json.loads((tmp_path / "a.json").read_text(encoding="utf-8"))
    from_lines = json.loads((tmp_path / "l.json").read_text(encoding="utf-8"))
    assert from_lines["scores"] == from_array["scores"]
    assert from_lines["scores"]["scored"] == 4


def test_eval_analyses_are_the_ones_reports_show(labelled_repo, tmp_path):
    repo, shas = labelled_repo
    labels_file = tmp_path / "labels.json"
    labels_file.write_text(json.dumps(_labels(shas)), encoding="utf-8")
    assert _eval(repo, labels_file)[0] == 0
    code, out, err = _invoke(
        "report", str(repo), "--name", "demo-org/inferno", "--date", "2026-03-02", "--format", "json"
    )
    assert code == 0, err
    report = json.loads(out)
    # The three labelled commits of the day were analysed by eval and served to the report from the cache;
    # the unlabelled one was not analysed by eval.
    assert report["run"]["cached"] == 3
    rerun = tmp_path / "rerun.json"
    assert _eval(repo, labels_file, "--json", str(rerun))[0] == 0
    assert json.loads(rerun.read_text(encoding="utf-8"))["cached"] == 4


@analyzer_plugin("test-eval-endpoint-down")
class _EndpointDown(Analyzer):
    name = "test-eval-endpoint-down"

    def __init__(self, **_settings: object) -> None:
        pass

    @property
    def fingerprint(self) -> str:
        return "test-eval-endpoint-down/1"

    async def analyze(self, item: AnalysisInput) -> Analysis:
        raise ProviderError("HTTP 503 from the endpoint")


def test_eval_over_fallback_analyses_says_so_and_exits_1(labelled_repo, tmp_path):
    repo, shas = labelled_repo
    labels_file = tmp_path / "labels.json"
    labels_file.write_text(json.dumps(_labels(shas)), encoding="utf-8")
    code, out, _ = _eval(
        repo, labels_file, "--analyzer", "test-eval-endpoint-down", "--json", str(tmp_path / "out.json")
    )
    assert code == 1
    assert "4 analysis(es) fell back or failed" in out
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert (data["analyzer"], data["degraded"], data["scores"]["scored"]) == ("test-eval-endpoint-down/1", 4, 4)


_GOOD = {
    "sha": "abcdef1",
    "date": "2026-03-02",
    "type": "fix",
    "importance": "low",
    "security": False,
    "breaking": False,
    "user_facing": False,
}


@pytest.mark.parametrize(
    ("name", "content", "fragment"),
    [
        ("bad.json", json.dumps([_GOOD, {**_GOOD, "sha": "abcdef2", "importance": "urgent"}]), "entry 1: importance"),
        ("bad.jsonl", json.dumps(_GOOD) + '\n\n{"sha": "abcdef2", "date": \n', "entry 1 (line 3): not valid JSON"),
        (
            "missing.json",
            json.dumps([{"sha": "abcdef1", "date": "2026-03-02", "type": "fix"}]),
            "entry 0: importance: Field required",
        ),
        ("notsha.json", json.dumps([{**_GOOD, "sha": "xyz"}]), "entry 0: sha"),
        ("baddate.json", json.dumps([{**_GOOD, "date": "2026-02-30"}]), "entry 0: date"),
        (
            "twice.jsonl",
            json.dumps({**_GOOD, "sha": "ABCDEF1"}) + "\n" + json.dumps({**_GOOD, "type": "docs"}),
            "entry 1 (line 2): sha abcdef1 is already labelled in entry 0 (line 1)",
        ),
        ("scalar.json", "[1]", "entry 0: expected an object"),
        ("broken.json", "[{", "not valid JSON"),
        ("empty.json", "[]", "no labels"),
    ],
)
def test_malformed_labels_give_one_line_naming_file_and_entry_and_exit_2(
    labelled_repo, tmp_path, name, content, fragment
):
    repo, _ = labelled_repo
    labels_file = tmp_path / name
    labels_file.write_text(content, encoding="utf-8")
    code, out, err = _eval(repo, labels_file, "--json", str(tmp_path / "out.json"))
    assert code == 2, (out, err)
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"repodaily: error: {labels_file}: ")
    assert fragment in lines[0]
    assert not (tmp_path / "out.json").exists()


def test_eval_that_finds_none_of_the_labelled_commits_is_a_usage_error(labelled_repo, tmp_path):
    repo, shas = labelled_repo
    labels_file = tmp_path / "labels.json"
    labels_file.write_text(json.dumps([label for label in _labels(shas) if label["sha"] == _MISSING_SHA]))
    code, out, err = _eval(repo, labels_file)
    assert code == 2 and out == ""
    assert "none of its 1 labelled commits is on main" in err and len(err.strip().splitlines()) == 1


def test_eval_of_a_missing_labels_file_is_a_usage_error(labelled_repo, tmp_path):
    repo, _ = labelled_repo
    code, _, err = _eval(repo, tmp_path / "nope.json")
    assert code == 2
    assert "labels file not found" in err
