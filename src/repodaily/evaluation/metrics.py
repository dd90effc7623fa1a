"""Scoring an analyzer against gold labels: pure functions and the typed scores they make.

Every figure is defined for every input: a share with an empty denominator is
``None`` (shown as "n/a"), never 0/0 and never a made-up 0 or 1, because "no
security fix in the set" must not read as "every security fix missed". Counts
travel next to each share so a reader can see what it was computed over.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from pydantic import BaseModel, Field

from repodaily.evaluation.labels import GoldLabel
from repodaily.models import Analysis, ChangeType, Coverage, Importance

__all__ = [
    "ConfusionMatrix",
    "CoverageScores",
    "Disagreement",
    "FieldDifference",
    "FlagScores",
    "ImportanceScores",
    "JudgedCommit",
    "Scores",
    "TypeScores",
    "accuracy",
    "confusion_matrix",
    "coverage_scores",
    "disagreements",
    "f1_by_class",
    "flag_scores",
    "macro_f1",
    "off_by_two_share",
    "score",
]

T = TypeVar("T", bound=Hashable)


def _share(part: int, whole: int) -> float | None:
    return part / whole if whole else None


def _same_length(gold: Sequence[object], predicted: Sequence[object]) -> None:
    if len(gold) != len(predicted):
        raise ValueError(f"{len(gold)} gold values but {len(predicted)} predictions")


# --------------------------------------------------------------------------- the scores


class ConfusionMatrix(BaseModel):
    """``counts[i][j]``: how many items of gold class ``labels[i]`` were predicted as ``labels[j]``."""

    labels: list[str]
    counts: list[list[int]]

    def count(self, gold: str, predicted: str) -> int:
        return self.counts[self.labels.index(gold)][self.labels.index(predicted)]


class FlagScores(BaseModel):
    """A yes/no flag scored as retrieval: did the analyzer find the gold positives, and only them?"""

    gold_positives: int
    predicted_positives: int
    true_positives: int
    recall: float | None = Field(description="true/gold positives; None when the gold has no positive.")
    precision: float | None = Field(description="true/predicted positives; None when nothing was predicted positive.")


class TypeScores(BaseModel):
    correct: int
    accuracy: float | None
    macro_f1: float | None = Field(description="Mean F1 over the change types present in the gold labels.")
    f1_by_type: dict[str, float]
    confusion: ConfusionMatrix


class ImportanceScores(BaseModel):
    correct: int
    accuracy: float | None
    off_by_two: int = Field(description="Items whose gold and predicted importance are high and low, either way.")
    off_by_two_share: float | None
    confusion: ConfusionMatrix


class CoverageScores(BaseModel):
    """Where the labelled key paths ended up in the context budget's receipts."""

    key_paths: int
    full: int
    clipped: int
    stats_only: int
    absent: int = Field(description="Key paths the receipt does not list at all.")
    read_share: float | None = Field(description="(full + clipped) / key_paths; None when no key paths are labelled.")


class Scores(BaseModel):
    scored: int
    type: TypeScores
    importance: ImportanceScores
    security: FlagScores
    breaking: FlagScores
    user_facing_correct: int
    user_facing_accuracy: float | None
    coverage: CoverageScores


class FieldDifference(BaseModel):
    field: str
    gold: str
    predicted: str


class Disagreement(BaseModel):
    """One commit where the analyzer and the label differ, with every differing field."""

    sha: str
    title: str
    differences: list[FieldDifference]
    confidence: str | None = None


@dataclass(frozen=True)
class JudgedCommit:
    """A labelled commit next to what the analyzer made of it."""

    sha: str
    title: str
    label: GoldLabel
    analysis: Analysis


# --------------------------------------------------------------------------- pure metrics


def _agreements(gold: Sequence[T], predicted: Sequence[T]) -> int:
    _same_length(gold, predicted)
    return sum(g == p for g, p in zip(gold, predicted))


def accuracy(gold: Sequence[T], predicted: Sequence[T]) -> float | None:
    """Share of positions where prediction equals gold; None for no items."""
    return _share(_agreements(gold, predicted), len(gold))


def confusion_matrix(gold: Sequence[str], predicted: Sequence[str], labels: Sequence[str]) -> ConfusionMatrix:
    """Counts of (gold row, predicted column) over ``labels``, which must name every value seen."""
    _same_length(gold, predicted)
    index = {label: i for i, label in enumerate(labels)}
    unknown = sorted((set(gold) | set(predicted)) - set(index))
    if unknown:
        raise ValueError(f"values outside the matrix labels: {unknown}")
    counts = [[0] * len(labels) for _ in labels]
    for g, p in zip(gold, predicted):
        counts[index[g]][index[p]] += 1
    return ConfusionMatrix(labels=list(labels), counts=counts)


def f1_by_class(gold: Sequence[T], predicted: Sequence[T]) -> dict[T, float]:
    """F1 of every class present in ``gold``: 2·TP / (2·TP + FP + FN).

    A class in the gold labels has TP + FN > 0, so its F1 is always defined; it
    is 0 when the class was never predicted right (whatever its precision).
    """
    _same_length(gold, predicted)
    result: dict[T, float] = {}
    for cls in dict.fromkeys(gold):
        tp = sum(g == cls and p == cls for g, p in zip(gold, predicted))
        fp = sum(g != cls and p == cls for g, p in zip(gold, predicted))
        fn = sum(g == cls and p != cls for g, p in zip(gold, predicted))
        result[cls] = 2 * tp / (2 * tp + fp + fn)
    return result


def macro_f1(gold: Sequence[T], predicted: Sequence[T]) -> float | None:
    """Unweighted mean of :func:`f1_by_class`; None for no items.

    Predicted classes absent from the gold labels count only as false positives of
    the classes they took items from: they get no F1 of their own.
    """
    per_class = f1_by_class(gold, predicted)
    return sum(per_class.values()) / len(per_class) if per_class else None


def off_by_two_share(gold: Sequence[Importance], predicted: Sequence[Importance]) -> tuple[int, float | None]:
    """How many items, and what share, were high where the gold says low or the reverse."""
    _same_length(gold, predicted)
    extremes = {Importance.high, Importance.low}
    count = sum(g != p and {g, p} == extremes for g, p in zip(gold, predicted))
    return count, _share(count, len(gold))


def flag_scores(gold: Sequence[bool], predicted: Sequence[bool]) -> FlagScores:
    """Recall and precision of a flag, each None when its denominator is empty."""
    _same_length(gold, predicted)
    gold_positives = sum(gold)
    predicted_positives = sum(predicted)
    true_positives = sum(g and p for g, p in zip(gold, predicted))
    return FlagScores(
        gold_positives=gold_positives,
        predicted_positives=predicted_positives,
        true_positives=true_positives,
        recall=_share(true_positives, gold_positives),
        precision=_share(true_positives, predicted_positives),
    )


def coverage_scores(items: Sequence[JudgedCommit]) -> CoverageScores:
    """Look every labelled key path up in its analysis's coverage receipt."""
    tally = {"full": 0, "clipped": 0, "stats_only": 0, "absent": 0}
    for item in items:
        coverage_of = {f.path: f.coverage for f in item.analysis.coverage.files}
        for path in item.label.key_paths:
            found = coverage_of.get(path)
            tally[found.value if found is not None else "absent"] += 1
    total = sum(tally.values())
    read = tally[Coverage.full.value] + tally[Coverage.clipped.value]
    return CoverageScores(key_paths=total, **tally, read_share=_share(read, total))


# --------------------------------------------------------------------------- all together


def _type_scores(gold: list[ChangeType], predicted: list[ChangeType]) -> TypeScores:
    seen = set(gold) | set(predicted)
    labels = [t.value for t in ChangeType if t in seen]
    f1 = f1_by_class(gold, predicted)
    return TypeScores(
        correct=_agreements(gold, predicted),
        accuracy=accuracy(gold, predicted),
        macro_f1=macro_f1(gold, predicted),
        f1_by_type={t.value: f1[t] for t in ChangeType if t in f1},
        confusion=confusion_matrix([g.value for g in gold], [p.value for p in predicted], labels),
    )


def _importance_scores(gold: list[Importance], predicted: list[Importance]) -> ImportanceScores:
    off, off_share = off_by_two_share(gold, predicted)
    return ImportanceScores(
        correct=_agreements(gold, predicted),
        accuracy=accuracy(gold, predicted),
        off_by_two=off,
        off_by_two_share=off_share,
        confusion=confusion_matrix(
            [g.value for g in gold], [p.value for p in predicted], [i.value for i in Importance]
        ),
    )


def score(items: Sequence[JudgedCommit]) -> Scores:
    """Every figure of an evaluation over the commits that could be scored."""
    labels = [item.label for item in items]
    analyses = [item.analysis for item in items]
    gold_user_facing = [label.user_facing for label in labels]
    predicted_user_facing = [a.flags.user_facing for a in analyses]
    return Scores(
        scored=len(items),
        type=_type_scores([label.type for label in labels], [a.type for a in analyses]),
        importance=_importance_scores([label.importance for label in labels], [a.importance for a in analyses]),
        security=flag_scores([label.security for label in labels], [a.flags.security for a in analyses]),
        breaking=flag_scores([label.breaking for label in labels], [a.flags.breaking for a in analyses]),
        user_facing_correct=_agreements(gold_user_facing, predicted_user_facing),
        user_facing_accuracy=accuracy(gold_user_facing, predicted_user_facing),
        coverage=coverage_scores(items),
    )


def _differences(label: GoldLabel, analysis: Analysis) -> list[FieldDifference]:
    pairs = [
        ("type", label.type.value, analysis.type.value),
        ("importance", label.importance.value, analysis.importance.value),
        ("security", label.security, analysis.flags.security),
        ("breaking", label.breaking, analysis.flags.breaking),
        ("user_facing", label.user_facing, analysis.flags.user_facing),
    ]
    return [
        FieldDifference(field=name, gold=str(gold).lower(), predicted=str(predicted).lower())
        for name, gold, predicted in pairs
        if gold != predicted
    ]


def disagreements(items: Sequence[JudgedCommit]) -> list[Disagreement]:
    """Every commit where type, importance or a flag differs from its label, in input order."""
    found = []
    for item in items:
        differences = _differences(item.label, item.analysis)
        if differences:
            found.append(
                Disagreement(sha=item.sha, title=item.title, differences=differences, confidence=item.label.confidence)
            )
    return found
