"""A commit message is parsed once, by the source, into the parts later stages read."""

from __future__ import annotations

import pytest

from repodaily.models import RevertRef, SeriesRef
from repodaily.sources.message import (
    parse_message,
    parse_subject,
    reverted_title,
    split_tags,
    without_revert_notice,
)

# --------------------------------------------------------------------------- pull request


@pytest.mark.parametrize(
    ("subject", "title", "number"),
    [
        ("[Model] Add X (#34110)", "[Model] Add X", 34110),
        ("faster startup of vLLM  (#982)   ", "faster startup of vLLM", 982),
        ("Align LoRA code (fixes #2875) (#2880)", "Align LoRA code (fixes #2875)", 2880),
        ("Revert #34208", "Revert #34208", None),
        ("Merge pull request #498 from MoeedDar/main", "Merge pull request #498 from MoeedDar/main", 498),
        ("Merge branch 'main' into feature", "Merge branch 'main' into feature", None),
        ("(#12)", "", 12),
        ("", "", None),
    ],
)
def test_pull_request_number_and_title_without_its_suffix(subject: str, title: str, number: int | None) -> None:
    parsed = parse_message(subject)
    assert (parsed.title, parsed.pr_number) == (title, number)


def test_subject_and_body_lose_surrounding_blank_lines() -> None:
    parsed = parse_message("\n\nFix the cache   \n\n\nThe key ignored the dtype.\n\n\n")
    assert (parsed.subject, parsed.body) == ("Fix the cache", "The key ignored the dtype.")


def test_empty_subject_keeps_the_body_apart() -> None:
    parsed = parse_message("   \n\nBody text")
    assert (parsed.subject, parsed.title, parsed.body) == ("", "", "Body text")
    assert parsed.headline_lines == ["Body text"]


# --------------------------------------------------------------------------- reverts


def test_revert_by_sha_and_by_quoted_title() -> None:
    parsed = parse_message(
        'Revert "[Perf] Cache the tokenizer (#99)" (#107)\n\nThis reverts commit 07B7FD4D991FF015.\nIt went stale.'
    )
    assert parsed.revert == RevertRef(sha="07b7fd4d991ff015", title="[Perf] Cache the tokenizer")
    assert parsed.pr_number == 107


def test_sha_in_the_body_of_a_title_that_does_not_say_revert() -> None:
    parsed = parse_message("Undo the cache\n\nThis reverts commit abcdef1.")
    assert parsed.revert == RevertRef(sha="abcdef1", title=None)


def test_nested_revert_keeps_the_inner_title_whole_for_the_next_reading() -> None:
    outer = parse_message('Revert "Revert "[Perf] Cache (#99)" (#107)" (#110)').revert
    assert outer == RevertRef(title='Revert "[Perf] Cache (#99)"')
    assert outer.title is not None
    assert parse_subject(outer.title).reverts == "[Perf] Cache"


@pytest.mark.parametrize(
    ("subject", "reverts"),
    [
        ('[Bugfix] Revert "Zero-init MLA attention output buffers" (#38359)', "Zero-init MLA attention output buffers"),
        ("[Frontend][Core]: Revert Add shutdown timeout", "Add shutdown timeout"),
        ("revert: feat: add streaming", "feat: add streaming"),
        ('Revert:"x"', "x"),
        ("Revert #34208 (#34216)", "#34208"),
        ("Revert", ""),
        ("Reverting re-direction to amd_mi355_X. (#29914)", None),
        ("[Revert] Remove DeepGEMM availability check", None),
        ("Fix the revert of the cache", None),
    ],
)
def test_what_a_title_says_it_reverts(subject: str, reverts: str | None) -> None:
    assert parse_subject(subject).reverts == reverts
    assert parse_message(subject).revert == (None if reverts is None else RevertRef(title=reverts))


def test_words_after_revert_name_a_quoted_title_or_themselves() -> None:
    assert reverted_title(' "Cache the tokenizer (#99)" ') == "Cache the tokenizer"
    assert reverted_title(': "unbalanced quote') == "unbalanced quote"
    assert reverted_title("add streaming") == "add streaming"


def test_revert_notice_is_cut_from_the_start_of_a_text_only() -> None:
    assert without_revert_notice("This reverts commit 07b7fd4. The cache kept stale tokenizers.") == (
        "The cache kept stale tokenizers."
    )
    assert without_revert_notice("The cache went stale. This reverts commit 07b7fd4.") == (
        "The cache went stale. This reverts commit 07b7fd4."
    )


# --------------------------------------------------------------------------- series


@pytest.mark.parametrize(
    ("subject", "series"),
    [
        ("[XPU][2/N] add kernel (#2)", SeriesRef(part=2, total=None, key="[XPU]")),
        ("[Frontend][last/5] Improve pooling entrypoints (#39675)", SeriesRef(part="last", total=5, key="[Frontend]")),
        ("[Model][Last/4] Automatic conversion", SeriesRef(part="last", total=4, key="[Model]")),
        ("[Kernel] [1 / 3] fused RMSNorm", SeriesRef(part=1, total=3, key="[Kernel]")),
        ("Batch invariant kernels [2/n] (#26373)", SeriesRef(part=2, total=None, key="Batch invariant kernels")),
        ("[2/3] first steps", SeriesRef(part=2, total=3, key="")),
        ("[Kernel] Add 2/3 of the ops", None),
    ],
)
def test_series_marker_part_total_and_key(subject: str, series: SeriesRef | None) -> None:
    assert parse_message(subject).series == series


# --------------------------------------------------------------------------- trailers


def test_trailers_come_from_the_last_paragraph_only() -> None:
    parsed = parse_message(
        "[Bugfix] Fix the cache (#123)\n\nThe cache key ignored the dtype.\nNote: not a trailer here.\n\n"
        "Signed-off-by: Ada <ada@example.invalid>\n\n* second commit\n\n"
        "Signed-off-by: Ada <ada@example.invalid>\nCo-authored-by: Bob\n  Builder <bob@example.invalid>\n"
    )
    assert [(t.key, t.value) for t in parsed.trailers] == [
        ("Signed-off-by", "Ada <ada@example.invalid>"),
        ("Co-authored-by", "Bob Builder <bob@example.invalid>"),
    ]


@pytest.mark.parametrize(
    "message",
    [
        "Fixes: everything",
        "Refactor\n\nThis moves code.\nReason: it was in the wrong place.\n",
        "Refactor\n\nOne\nTwo\nThree\nFour\nSigned-off-by: Ada",
    ],
)
def test_a_prose_last_paragraph_or_a_subject_alone_has_no_trailers(message: str) -> None:
    assert parse_message(message).trailers == []


def test_a_sign_off_makes_a_mostly_trailer_paragraph_count() -> None:
    parsed = parse_message("Fix\n\nBody\n\nFixes #12\nSigned-off-by: Ada\nTested-by : Bob")
    assert [(t.key, t.value) for t in parsed.trailers] == [("Signed-off-by", "Ada"), ("Tested-by", "Bob")]


def test_crlf_message_is_read_like_lf() -> None:
    parsed = parse_message(
        "Add support for aquila (#663)\r\n\r\n* add aquila\r\n\r\nSigned-off-by: shunxing <s@example.invalid>\r\n"
        "\r\n* format\r\n\r\n---------\r\n\r\nSigned-off-by: ftgreat <f@example.invalid>\r\n"
        "Co-authored-by: ftgreat <f@example.invalid>\r\n"
    )
    assert (parsed.subject, parsed.title, parsed.pr_number) == (
        "Add support for aquila (#663)",
        "Add support for aquila",
        663,
    )
    assert [t.key for t in parsed.trailers] == ["Signed-off-by", "Co-authored-by"]
    assert parsed.headline_lines == ["Add support for aquila (#663)", "* add aquila"]
    assert [line for line in parsed.prose.splitlines() if line] == ["* add aquila", "* format", "---------"]


# --------------------------------------------------------------------------- table lines and prose


def test_headline_lines_stop_at_the_first_sign_off_in_any_case_and_drop_blank_lines() -> None:
    message = "[Core] Split the scheduler | executor settings (#115)\n\nFirst line\n\n  second line\n"
    assert parse_message(message + "co-authored-by: Omar\nA line after the trailers").headline_lines == [
        "[Core] Split the scheduler | executor settings (#115)",
        "First line",
        "  second line",
    ]
    assert parse_message(message + "    Signed-off-by: Omar").headline_lines[-1] == "  second line"
    # As the reference tool cut the table: a sign-off has its colon right after the key.
    assert parse_message(message + "Signed-off-by : Omar").headline_lines[-1] == "Signed-off-by : Omar"


def test_prose_drops_attribution_lines_wherever_they_stand() -> None:
    parsed = parse_message(
        "Fix\n\nThe key ignored the dtype.\nReviewed-by: Ada\ncc: Bob\n\n* second commit\n\n"
        "Signed-off-by: Ada\nFixes: #12\nChange-Id: I0123"
    )
    assert parsed.prose == "The key ignored the dtype.\n\n* second commit\n\nFixes: #12"


def test_leading_tags_split_from_the_rest() -> None:
    assert split_tags("[Bugfix][ROCm]: Fix the sampler") == (("Bugfix", "ROCm"), "Fix the sampler")
    assert split_tags("Fix [the] sampler") == ((), "Fix [the] sampler")
