"""Evaluation: how far an analyzer agrees with a labelled set of commits.

``labels`` reads and validates the set, ``runner`` finds and analyses its commits
the way reports do, ``metrics`` scores them (pure functions), ``table`` prints
the figures. ``repodaily eval`` is the command line over these.
"""

from repodaily.evaluation.labels import GoldLabel, load_labels
from repodaily.evaluation.metrics import Scores, score
from repodaily.evaluation.runner import EvalRun, evaluate
from repodaily.evaluation.table import print_evaluation

__all__ = ["EvalRun", "GoldLabel", "Scores", "evaluate", "load_labels", "print_evaluation", "score"]
