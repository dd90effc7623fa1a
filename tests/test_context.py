"""The context stage: token estimate and the budgeted analysis input (path classes: test_paths.py).

The stage is pure, so commits are built directly from the models: no git needed.
"""

from __future__ import annotations

import random
import re
import time
from datetime import UTC, datetime

import pytest

from repodaily.context import MIN_CLIP_TOKENS, build_input, count_tokens, refit
from repodaily.models import Commit, Coverage, FileChange, FileStatus
from repodaily.sources.message import parse_message

# --------------------------------------------------------------------------- tokens

# Real diffs with their cl100k_base token counts (counted once with the real tokenizer).
_CL100K_SAMPLES = [
    (
        "@@ -12,7 +12,9 @@ class SchedulerConfig:\n     max_num_seqs: int = 256\n"
        "-    max_num_batched_tokens: int | None = None\n+    max_num_batched_tokens: int | None = None\n"
        '+    """Maximum number of tokens to be processed in a single iteration."""\n'
        "+    enable_chunked_prefill: bool = True\n \n     def __post_init__(self) -> None:\n"
        "         if self.max_num_seqs <= 0:\n",
        100,
    ),
    (
        "@@ -40,6 +40,8 @@ __global__ void paged_attention_kernel(\n   const int head_idx = blockIdx.x;\n"
        "   const int seq_idx = blockIdx.y;\n+  const int num_heads = gridDim.x;\n"
        "+  __shared__ float red_smem[2 * NUM_WARPS];\n"
        "   for (int i = threadIdx.x; i < HEAD_SIZE; i += blockDim.x) {\n"
        "     q_vecs[i] = reinterpret_cast<const Q_vec*>(q_ptr)[i];\n   }\n",
        105,
    ),
    (
        "@@ -1,5 +1,6 @@\n steps:\n - label: Kernels Test %N\n   timeout_in_minutes: 35\n"
        "+  mirror_hardwares: [amdexperimental]\n   source_file_dependencies:\n   - csrc/\n   - vllm/attention\n",
        57,
    ),
    (
        "@@ -3,4 +3,6 @@\n ## Supported Models\n \n"
        "-vLLM supports generative and pooling models across various tasks.\n"
        "+vLLM supports generative and pooling models across various tasks. If a model\n"
        "+supports more than one task, you can set the task via the `--task` argument.\n",
        64,
    ),
    (
        "@@ -20,6 +20,10 @@ func (c *Command) Execute() error {\n"
        '\tif c.args == nil && filepath.Base(os.Args[0]) != "cobra.test" {\n\t\targs = os.Args[1:]\n\t}\n'
        "+\tif err := c.validateRequiredFlags(); err != nil {\n"
        '+\t\treturn fmt.Errorf("required flag(s) not set: %w", err)\n+\t}\n \treturn c.execute(args)\n }\n',
        92,
    ),
]


def test_empty_text_has_no_tokens():
    assert count_tokens("") == 0


@pytest.mark.parametrize(("text", "cl100k"), _CL100K_SAMPLES)
def test_token_estimate_is_within_fifteen_percent_of_cl100k_on_real_diffs(text, cl100k):
    assert abs(count_tokens(text) - cl100k) <= 0.15 * cl100k


def test_token_estimate_grows_with_the_text():
    text = _CL100K_SAMPLES[0][0]
    counts = [count_tokens(text[:end]) for end in range(0, len(text) + 1, 7)]
    assert all(later >= earlier - 1 for earlier, later in zip(counts, counts[1:]))
    assert count_tokens(text * 10) == pytest.approx(10 * count_tokens(text), rel=0.02)


def test_long_identifiers_cost_about_one_token_per_four_letters():
    assert count_tokens("return") == 1
    assert 5 <= count_tokens("ThisIsAVeryLongCamelCaseIdentifierName") <= 11


def test_numbers_split_into_groups_of_three_digits():
    assert count_tokens("1234567890") >= 4


def test_each_cjk_character_costs_about_one_token():
    text = "修复了在多卡推理时因为显存碎片导致的崩溃问题，并补充了单元测试。"  # cl100k: 38 tokens
    assert 0.8 * len(text) <= count_tokens(text) <= 1.3 * len(text)


def test_other_non_ascii_text_is_counted_by_bytes():
    russian = "Привет, мир! Это тестовая строка на русском языке."
    ascii_of_same_length = "Hello, world! This is a test string in plain English."[: len(russian)]
    assert count_tokens(russian) > count_tokens(ascii_of_same_length)


def test_counting_a_megabyte_of_diff_takes_well_under_a_second():
    text = "".join(sample for sample, _ in _CL100K_SAMPLES)
    megabyte = (text * (1_000_000 // len(text) + 1))[:1_000_000]
    started = time.perf_counter()
    count_tokens(megabyte)
    assert time.perf_counter() - started < 1.0


# --------------------------------------------------------------------------- budget

_WHEN = datetime(2026, 2, 9, 10, 30, tzinfo=UTC)


def _patch(lines: int, *, hunks: int = 1, stem: str = "value") -> str:
    """A realistic patch of ``hunks`` hunks with ``lines`` changed lines in all."""
    out: list[str] = []
    per_hunk = max(lines // hunks, 1)
    for hunk in range(hunks):
        start = 10 + hunk * 100
        out.append(f"@@ -{start},{per_hunk} +{start},{per_hunk} @@ def compute_{stem}_{hunk}(scale):\n")
        out.extend(
            f"+    {stem}_{hunk}_{i} = transform({stem}_{hunk}_{i - 1}, scale=0.5 * {i})  # step {i}\n"
            for i in range(per_hunk)
        )
    return "".join(out)


def _file(path: str, lines: int = 0, **fields) -> FileChange:
    patch = fields.pop("patch", _patch(lines, stem=re.sub(r"\W", "_", path)) if lines else "")
    return FileChange(path=path, additions=lines, deletions=0, patch=patch, **fields)


def _commit(*files: FileChange, body: str = "", subject: str = "[Core] Make the scheduler fair (#123)") -> Commit:
    return Commit(
        sha="a" * 40,
        parents=["b" * 40],
        author_name="Ada Lovelace",
        authored_at=_WHEN,
        committed_at=_WHEN,
        files=list(files),
        **parse_message(f"{subject}\n\n{body}").message_parts(),
    )


def _mixed_commit() -> Commit:
    return _commit(
        _file("vllm/core/scheduler.py", 120),
        _file("vllm/core/block_manager.py", 30),
        _file("csrc/attention/paged.cu", 60),
        _file("CMakeLists.txt", 10),
        _file("tests/core/test_scheduler.py", 200),
        _file("docs/design/scheduler.md", 40),
        _file("uv.lock", 300),
        _file("docs/assets/diagram.png", binary=True),
    )


@pytest.mark.parametrize("budget", [0, 1, 10, 49, 50, 51, 100, 333, 1000, 2500, 6000, 100_000])
def test_tokens_sent_never_exceed_the_budget(budget):
    receipt = build_input("vllm-project/vllm", _mixed_commit(), budget_tokens=budget).receipt
    assert receipt.tokens_sent <= budget
    assert receipt.tokens_sent == sum(file.tokens_sent for file in receipt.files)


def test_tokens_sent_are_the_tokens_of_the_text_sent():
    analysis_input = build_input("vllm-project/vllm", _mixed_commit(), budget_tokens=2500)
    for file, receipt in zip(analysis_input.files, analysis_input.receipt.files, strict=True):
        assert file.path == receipt.path
        assert count_tokens(file.text) == receipt.tokens_sent
        assert receipt.tokens_sent <= receipt.tokens_total or file.coverage == Coverage.clipped


_RANDOM_PATHS = ["vllm/a.py", "vllm/b.py", "csrc/k.cu", "setup.py", "tests/test_a.py", "docs/a.md", "README.md"]


def _random_files(rng: random.Random, most_lines: int) -> list[FileChange]:
    """Some of the paths above, each with up to ``most_lines`` lines, a fifth of them cut at the source."""
    return [
        _file(path, rng.randint(1, most_lines), patch_truncated=rng.random() < 0.2)
        for path in rng.sample(_RANDOM_PATHS, rng.randint(1, len(_RANDOM_PATHS)))
    ]


def test_budget_never_exceeded_for_random_commits_and_budgets():
    rng = random.Random(20260209)
    for _ in range(60):
        files = _random_files(rng, 400)
        budget = rng.choice([1, 10, 60, rng.randint(0, 20_000)])
        receipt = build_input("r/r", _commit(*files), budget_tokens=budget).receipt
        assert receipt.tokens_sent <= budget
        assert len(receipt.files) == len(files)


def test_categories_are_served_in_order_full_then_clipped_then_stats_only():
    commit = _commit(
        _file("docs/guide.md", 40),
        _file("tests/test_big.py", 400),
        _file("vllm/engine.py", 30),
        _file("vllm/worker.py", 20),
    )
    sources = sum(count_tokens(file.patch) for file in commit.files if file.path.startswith("vllm/"))
    receipt = build_input("r/r", commit, budget_tokens=sources + 500).receipt
    coverage = {file.path: file.coverage for file in receipt.files}
    assert coverage == {
        "vllm/engine.py": Coverage.full,
        "vllm/worker.py": Coverage.full,
        "tests/test_big.py": Coverage.clipped,
        "docs/guide.md": Coverage.stats_only,
    }
    assert [file.path for file in receipt.files] == [
        "vllm/engine.py",
        "vllm/worker.py",
        "tests/test_big.py",
        "docs/guide.md",
    ]


def test_lock_files_and_binaries_are_stats_only_even_with_a_huge_budget():
    commit = _commit(
        _file("vllm/a.py", 10),
        _file("uv.lock", 500),
        _file("third_party/lib/x.c", 50),
        _file("docs/logo.png", binary=True),
    )
    analysis_input = build_input("r/r", commit, budget_tokens=1_000_000)
    by_path = {file.path: file for file in analysis_input.receipt.files}
    for path in ("uv.lock", "third_party/lib/x.c", "docs/logo.png"):
        assert by_path[path].coverage == Coverage.stats_only
        assert by_path[path].tokens_sent == 0
    assert by_path["uv.lock"].tokens_total == count_tokens(commit.files[1].patch)
    assert by_path["vllm/a.py"].coverage == Coverage.full
    assert all(file.text == "" for file in analysis_input.files if file.coverage == Coverage.stats_only)


def test_a_patch_truncated_at_the_source_is_never_full():
    truncated = _file("vllm/big.py", 100, patch_truncated=True)
    for budget in (1_000_000, 700, 10):
        (receipt,) = build_input("r/r", _commit(truncated), budget_tokens=budget).receipt.files
        assert receipt.coverage != Coverage.full
    (receipt,) = build_input("r/r", _commit(truncated), budget_tokens=1_000_000).receipt.files
    assert receipt.coverage == Coverage.clipped
    assert receipt.tokens_sent == receipt.tokens_total


def test_every_file_has_a_receipt_and_a_context_file():
    commit = _mixed_commit()
    analysis_input = build_input("r/r", commit, budget_tokens=300)
    expected = sorted(file.path for file in commit.files)
    assert sorted(file.path for file in analysis_input.receipt.files) == expected
    assert sorted(file.path for file in analysis_input.files) == expected


def test_same_commit_gives_the_same_input_whatever_the_file_order():
    commit = _mixed_commit()
    shuffled = commit.model_copy(update={"files": list(reversed(commit.files))})
    first = build_input("r/r", commit, budget_tokens=900)
    assert build_input("r/r", commit, budget_tokens=900) == first
    assert build_input("r/r", shuffled, budget_tokens=900) == first


def test_empty_commit_gives_an_empty_receipt():
    analysis_input = build_input("r/r", _commit(), budget_tokens=6000)
    assert analysis_input.files == []
    assert analysis_input.receipt.files == []
    assert analysis_input.receipt.tokens_sent == 0
    assert analysis_input.receipt.budget_tokens == 6000
    assert analysis_input.parts == [[]]
    assert (analysis_input.total_additions, analysis_input.total_deletions) == (0, 0)


def test_a_file_without_patch_text_is_fully_covered_by_its_counts():
    renamed = FileChange(path="vllm/new.py", old_path="vllm/old.py", status=FileStatus.renamed)
    (receipt,) = build_input("r/r", _commit(renamed), budget_tokens=0).receipt.files
    assert (receipt.coverage, receipt.tokens_total, receipt.tokens_sent) == (Coverage.full, 0, 0)


def test_a_file_whose_content_is_missing_is_stats_only():
    missing = FileChange(path="vllm/a.py", status=FileStatus.modified, content_missing=True)
    (receipt,) = build_input("r/r", _commit(missing), budget_tokens=6000).receipt.files
    assert receipt.coverage == Coverage.stats_only


def test_clipping_keeps_whole_hunks_from_the_top_and_marks_the_cut():
    patch = _patch(300, hunks=6)
    analysis_input = build_input("r/r", _commit(_file("vllm/a.py", 300, patch=patch)), budget_tokens=3000)
    (file,) = analysis_input.files
    assert file.coverage == Coverage.clipped
    body, marker = file.text.rsplit("\n", 1)
    kept = body.split("\n")
    assert patch.startswith(body + "\n")
    assert not kept[-1].startswith("@@")
    total_lines = patch.count("\n")
    assert marker == f"… ({total_lines - len(kept)} more lines clipped)"
    assert sum(line.startswith("@@") for line in kept) >= 2
    # Close to the budget: no room left for another line.
    assert analysis_input.receipt.tokens_sent > 3000 - 2 * count_tokens(kept[-1])


def test_a_clip_never_ends_on_a_bare_hunk_header():
    first_hunk = _patch(6)
    second_header = "@@ -200,3 +200,3 @@ def later():\n"
    long_line = "+" + " ".join(f"argument_{i}=value_{i}" for i in range(200)) + "\n"
    patch = first_hunk + second_header + long_line + "+    return None\n"
    marker = "… (3 more lines clipped)"
    budget = count_tokens(first_hunk + second_header + marker) + 5
    (file,) = build_input("r/r", _commit(_file("vllm/a.py", 9, patch=patch)), budget_tokens=budget).files
    assert file.coverage == Coverage.clipped
    assert file.text == first_hunk + "… (3 more lines clipped)"


def test_a_slice_under_the_minimum_is_not_sent():
    commit = _commit(_file("vllm/a.py", 100))
    (receipt,) = build_input("r/r", commit, budget_tokens=MIN_CLIP_TOKENS - 1).receipt.files
    assert receipt.coverage == Coverage.stats_only
    (receipt,) = build_input("r/r", commit, budget_tokens=MIN_CLIP_TOKENS * 3).receipt.files
    assert receipt.coverage == Coverage.clipped
    assert MIN_CLIP_TOKENS <= receipt.tokens_sent <= MIN_CLIP_TOKENS * 3


def test_one_huge_file_does_not_starve_the_small_ones():
    commit = _commit(_file("vllm/huge.py", 5000), *(_file(f"vllm/small_{i}.py", 8) for i in range(10)))
    receipt = build_input("r/r", commit, budget_tokens=6000).receipt
    coverage = {file.path: file.coverage for file in receipt.files}
    assert coverage.pop("vllm/huge.py") == Coverage.clipped
    assert set(coverage.values()) == {Coverage.full}
    assert receipt.files[0].path == "vllm/huge.py"  # ranked by size within its category


def test_commit_metadata_is_carried_over_and_not_counted():
    commit = _commit(_file("vllm/a.py", 5), _file("tests/test_a.py", 3), body="Long body. " * 500)
    commit.files[0].deletions = 2
    analysis_input = build_input("vllm-project/vllm", commit, budget_tokens=0)
    assert analysis_input.repo == "vllm-project/vllm"
    assert (analysis_input.sha, analysis_input.parents) == (commit.sha, commit.parents)
    assert (analysis_input.subject, analysis_input.body) == (commit.subject, commit.body)
    assert (analysis_input.author_name, analysis_input.committed_at) == ("Ada Lovelace", _WHEN)
    assert (analysis_input.total_additions, analysis_input.total_deletions) == (8, 2)
    assert analysis_input.receipt.tokens_sent == 0


def test_the_parsed_message_travels_to_the_analyzer():
    body = "This reverts commit 0123abcd.\n\nSigned-off-by: Ada <ada@example.invalid>"
    commit = _commit(_file("vllm/a.py", 5), subject='Revert "[XPU][1/N] Add the op (#7)" (#9)', body=body)
    item = build_input("vllm-project/vllm", commit, budget_tokens=100)
    assert (item.title, item.pr_number) == ('Revert "[XPU][1/N] Add the op (#7)"', 9)
    assert (item.revert, item.series) == (commit.revert, commit.series)
    assert item.revert is not None and (item.revert.sha, item.revert.title) == ("0123abcd", "[XPU][1/N] Add the op")
    assert [t.key for t in item.trailers] == ["Signed-off-by"]
    assert item.prose == "This reverts commit 0123abcd.\n"


def test_negative_budget_is_refused():
    with pytest.raises(ValueError, match="budget_tokens"):
        build_input("r/r", _commit(), budget_tokens=-1)
    with pytest.raises(ValueError, match="max_parts"):
        build_input("r/r", _commit(), budget_tokens=6000, max_parts=0)


# --------------------------------------------------------------------------- parts


def test_each_part_fits_one_prompt_and_every_text_is_in_one_part():
    rng = random.Random(20260210)
    for _ in range(60):
        files = _random_files(rng, 200)
        budget, max_parts = rng.choice([1, 60, 500, rng.randint(0, 8000)]), rng.randint(1, 4)
        item = build_input("r/r", _commit(*files), budget_tokens=budget, max_parts=max_parts)
        sent = {index: count_tokens(file.text) for index, file in enumerate(item.files) if file.text}
        assert 1 <= len(item.parts) <= max_parts
        assert sorted(index for part in item.parts for index in part) == sorted(sent)
        assert all(sum(sent[index] for index in part) <= budget for part in item.parts)
        assert item.receipt.budget_tokens == budget * max_parts
        assert item.receipt.tokens_sent == sum(sent.values())


def test_a_file_is_full_only_when_one_part_holds_it_whole():
    # Four files of ~3.9k tokens fit three prompts of 6k together, but never two to a prompt.
    commit = _commit(*(_file(f"vllm/module_{i}.py", 94) for i in range(4)))
    assert all(3_800 < count_tokens(file.patch) < 4_000 for file in commit.files)
    item = build_input("r/r", commit, budget_tokens=6000, max_parts=3)
    assert len(item.parts) == 3
    patches = {file.path: file.patch for file in commit.files}
    full = [file for file in item.files if file.coverage == Coverage.full]
    assert len(full) == 3 and all(file.text == patches[file.path] for file in full)
    assert [file.coverage for file in item.files if file not in full] == [Coverage.clipped]


def test_a_commit_that_fits_one_prompt_is_one_part_whatever_the_parts_allowed():
    commit = _mixed_commit()
    one = build_input("r/r", commit, budget_tokens=100_000)
    three = build_input("r/r", commit, budget_tokens=100_000, max_parts=3)
    assert three.files == one.files
    assert three.parts == one.parts == [[index for index, file in enumerate(one.files) if file.text]]


def test_more_parts_read_more_of_a_big_commit():
    commit = _commit(*(_file(f"vllm/module_{i}.py", 20) for i in range(6)))
    full = [
        build_input("r/r", commit, budget_tokens=2000, max_parts=parts).receipt.count(Coverage.full) for parts in (1, 3)
    ]
    assert full == [0, 6]


def test_a_large_commit_is_budgeted_in_tens_of_milliseconds():
    # About the largest vLLM commit: 100 files, ~75k tokens of diff.
    commit = _commit(*(_file(f"vllm/module_{i}.py", 6 + i // 4) for i in range(100)))
    total = sum(count_tokens(file.patch) for file in commit.files)
    assert 60_000 < total < 90_000
    started = time.perf_counter()
    build_input("r/r", commit, budget_tokens=6000)
    assert time.perf_counter() - started < 0.5


# --------------------------------------------------------------------------- planned again for a smaller window


def test_refit_spends_a_smaller_budget_over_the_texts_an_input_carries():
    commit = _commit(
        _file("src/small.py", 5),
        _file("src/big.py", 400),
        _file("uv.lock", 50),
        _file("src/moved.py", status=FileStatus.renamed, old_path="src/old.py"),
    )
    item = build_input("acme/app", commit, budget_tokens=20_000)
    assert item.receipt.count(Coverage.full) == 3  # all but the lockfile, which is never read
    smaller = refit(item, budget_tokens=600, max_parts=2)
    by_path = {file.path: file for file in smaller.receipt.files}
    assert by_path["src/small.py"].coverage == Coverage.full
    assert by_path["src/big.py"].coverage == Coverage.clipped
    assert by_path["uv.lock"].coverage == Coverage.stats_only
    assert by_path["src/moved.py"].coverage == Coverage.full  # nothing to withhold from a pure rename
    # What each file held stays in the receipt; what was sent is counted again and fits each part.
    totals = {f.path: f.tokens_total for f in item.receipt.files}
    assert {f.path: f.tokens_total for f in smaller.receipt.files} == totals
    for part in smaller.parts:
        assert sum(count_tokens(smaller.files[index].text) for index in part) <= 600
    assert len(smaller.parts) <= 2 and smaller.receipt.tokens_sent <= 1200
    texts = {file.path: file.text for file in smaller.files}
    assert texts["src/small.py"] == {file.path: file.text for file in item.files}["src/small.py"]
    assert texts["src/big.py"].endswith("lines clipped)")


def test_refit_into_a_budget_that_holds_everything_changes_nothing_but_the_budget():
    item = build_input("acme/app", _commit(_file("src/a.py", 20), _file("src/b.py", 30)), budget_tokens=6000)
    same = refit(item, budget_tokens=6000)
    assert [f.text for f in same.files] == [f.text for f in item.files]
    assert [f.coverage for f in same.receipt.files] == [f.coverage for f in item.receipt.files]
