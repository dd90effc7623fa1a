"""On a real week of vLLM, the offline summaries say more than which files changed, and no advice restates a title.

Needs the real vLLM history (a clone or bare mirror) at $REPODAILY_VLLM_REPO;
skipped otherwise. The week is collected and analysed by the pipeline as a
report would be (:func:`pipeline_days.analysed_days`), in both languages.

Two measures, over the commits judged high or medium (the ones whose summary and
advice a report shows):

- **only a file list**: every bullet of the summary, once the code spans that
  hold a path (one with a ``/``, or a path of the commit), the numbers (line counts) and the
  words of the language's file-list sentences (``files_added`` … ``more_files``
  of the rule table) are taken out, has nothing left: no other code span, no
  other word. An empty summary counts as one (the report then shows the one-line
  summary, a file list). At most :data:`MAX_FILE_LIST_SHARE` of the summaries.
- **advice that restates the title**: the title's description (the title without
  its ``[Tag]`` prefixes, Conventional Commits prefix and ``(#N)`` suffix) as
  lower-case words; advice restates it when those words appear in a row in the
  advice, or when at least :data:`RESTATED_OVERLAP` of their distinct words are
  among the advice's. Titles of fewer than three words are left out: any advice
  on the same subject shares two words with them. None may.
"""

from __future__ import annotations

import os
import re
from datetime import date, timedelta
from pathlib import Path

import pytest
from pipeline_days import analysed_days

from repodaily.analyzers.heuristic import RuleSet
from repodaily.models import Analysis, Commit, Importance

VLLM = os.environ.get("REPODAILY_VLLM_REPO")

pytestmark = [pytest.mark.vllm, pytest.mark.skipif(not VLLM, reason="REPODAILY_VLLM_REPO is not set")]

#: Seven consecutive report days (Asia/Shanghai).
WEEK = [date(2026, 1, 5) + timedelta(days=n) for n in range(7)]
MAX_FILE_LIST_SHARE = 0.20
RESTATED_OVERLAP = 0.8

_SPAN = re.compile(r"(`+)(.+?)\1")
_WORD = re.compile(r"\w+")
_TAGS = re.compile(r"^\s*(\[[^\]]*\]\s*)+")
_CONVENTIONAL = re.compile(r"^[A-Za-z]+(\([^)]*\))?!?:\s*")
_PR_SUFFIX = re.compile(r"\s*\(#\d+\)\s*$")
_FILE_LIST_MESSAGES = ("files_added", "files_modified", "files_deleted", "files_moved", "lines", "more_files")


def _words(text: str) -> list[str]:
    return [word.lower() for word in _WORD.findall(text)]


def file_list_words(language: str) -> set[str]:
    """The words of the file-list sentences of ``language``, placeholders left out."""
    messages = RuleSet.load(None).messages[language]
    return {word for key in _FILE_LIST_MESSAGES for word in _words(re.sub(r"\{\w+\}", " ", getattr(messages, key)))}


def only_a_file_list(summary: list[str], vocabulary: set[str], paths: set[str]) -> bool:
    for bullet in summary:
        if any("/" not in span and span.strip() not in paths for _, span in _SPAN.findall(bullet)):
            return False
        if any(word not in vocabulary for word in _words(_SPAN.sub(" ", bullet)) if not word.isdigit()):
            return False
    return True


def description_words(title: str) -> list[str]:
    return _words(_CONVENTIONAL.sub("", _TAGS.sub("", _PR_SUFFIX.sub("", title)), count=1))


def restates(title: str, advice: str) -> bool:
    described, said = description_words(title), _words(advice)
    if len(described) < 3:
        return False
    if f" {' '.join(described)} " in f" {' '.join(said)} ":
        return True
    return len(set(described) & set(said)) >= RESTATED_OVERLAP * len(set(described))


@pytest.fixture(scope="module", params=["zh", "en"])
def week(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, list[tuple[Commit, Analysis]]]:
    language: str = request.param
    assert VLLM is not None
    cache: Path = tmp_path_factory.mktemp(f"vllm-{language}")
    analysed = analysed_days(VLLM, "vllm-project/vllm", WEEK, language, cache)
    shown = [(commit, analysis) for commit, analysis in analysed if analysis.importance != Importance.low]
    assert len(shown) >= 50, "a week of vLLM has dozens of high and medium commits"
    return language, shown


def test_the_measures_tell_a_file_list_and_a_restated_title_apart() -> None:
    vocabulary = file_list_words("en")
    paths = {"vllm/a.py", "b.py"}
    assert only_a_file_list(["Changes `vllm/a.py`, `b.py` and 3 more (+10/−2 lines in all)."], vocabulary, paths)
    assert only_a_file_list([], vocabulary, paths)
    assert not only_a_file_list(["Changes `Scheduler.step`."], vocabulary, paths)
    assert not only_a_file_list(["Changes `c.py`."], vocabulary, paths)
    assert not only_a_file_list(["Changes `vllm/a.py`.", "The message says: the cache was stale."], vocabulary, paths)
    title = "[Bugfix] Fix crash in the scheduler step (#123)"
    assert restates(title, 'If you hit the problem in "Fix crash in the scheduler step", verify the fix.')
    assert restates(title, "Verify the scheduler step crash fix after upgrading.")
    assert not restates(title, "Set `max_num_seqs` to `256` explicitly to keep the old behaviour.")
    assert not restates("[Build] Upgrade torch", "Upgrade `torch` to `2.11` or later before updating.")


def test_few_summaries_are_only_a_file_list(week: tuple[str, list[tuple[Commit, Analysis]]]) -> None:
    language, shown = week
    vocabulary = file_list_words(language)
    lists = [
        commit.subject
        for commit, analysis in shown
        if only_a_file_list(analysis.summary, vocabulary, {p for f in commit.files for p in (f.path, f.old_path) if p})
    ]
    share = len(lists) / len(shown)
    print(f"{language}: {len(lists)}/{len(shown)} high/medium summaries are only a file list ({share:.1%})")
    assert share <= MAX_FILE_LIST_SHARE, lists


def test_no_recommendation_restates_the_title(week: tuple[str, list[tuple[Commit, Analysis]]]) -> None:
    _, shown = week
    restated = [
        (commit.subject, advice.text)
        for commit, analysis in shown
        for advice in analysis.recommendations
        if restates(commit.subject, advice.text)
    ]
    assert restated == []
