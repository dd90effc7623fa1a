"""The offline heuristic analyzer judges commits against the rubric from the message and paths."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from message_parts import parsed_parts
from test_surface import Repo, analyse

from repodaily.analyzers.heuristic import HeuristicAnalyzer, RuleSet
from repodaily.errors import ConfigError
from repodaily.models import (
    Analysis,
    AnalysisInput,
    AnalysisStatus,
    ChangeType,
    ContextFile,
    Coverage,
    CoverageReceipt,
    FileCategory,
    FileStatus,
    Importance,
)
from repodaily.paths import PathTable
from repodaily.plugins import registry
from repodaily.render.labels import EN, ZH

_CJK = re.compile(r"[\u4e00-\u9fff]")
_RECEIPT = CoverageReceipt(budget_tokens=6000, tokens_sent=120)


def change(
    path: str,
    category: FileCategory = FileCategory.source,
    *,
    status: FileStatus = FileStatus.modified,
    additions: int = 10,
    deletions: int = 2,
    text: str = "",
    old_path: str | None = None,
    binary: bool = False,
) -> ContextFile:
    return ContextFile(
        path=path,
        old_path=old_path,
        status=status,
        category=category,
        additions=additions,
        deletions=deletions,
        binary=binary,
        coverage=Coverage.full,
        text=text,
    )


def commit(subject: str, *files: ContextFile, body: str = "", parents: int = 1) -> AnalysisInput:
    return AnalysisInput(
        repo="acme/engine",
        sha="0123456789abcdef0123456789abcdef01234567",
        **parsed_parts(subject, body),
        author_name="Ada",
        committed_at=datetime(2026, 2, 9, 12, 0, tzinfo=UTC),
        parents=[str(n) * 40 for n in range(parents)],
        files=list(files),
        parts=[[index for index, file in enumerate(files) if file.text]],
        receipt=_RECEIPT,
        total_additions=sum(f.additions for f in files),
        total_deletions=sum(f.deletions for f in files),
    )


def judge(subject: str, *files: ContextFile, body: str = "", language: str = "en", parents: int = 1) -> Analysis:
    return HeuristicAnalyzer(language=language).analyze_sync(commit(subject, *files, body=body, parents=parents))


SOURCE = change("engine/core/scheduler.py")


# --------------------------------------------------------------------------- title tags


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ("[Bugfix] Handle empty batch in sampler", ChangeType.fix),
        ("[BugFix] Handle empty batch in sampler", ChangeType.fix),
        ("[Perf] Reuse buffers in the sampler", ChangeType.perf),
        ("[Feature] Sampler callbacks", ChangeType.feat),
        ("[Refactor] Sampler internals", ChangeType.refactor),
        ("[Doc] Sampler docstrings", ChangeType.docs),
        ("[CI/Build] Sampler job matrix", ChangeType.ci),
        ("[Deps] Sampler requirements", ChangeType.build),
        # what a tag announces outweighs the title's "Fix"; a bug-fix tag beside it still wins
        ("[Perf][B200] Fix the DeepGEMM prologue", ChangeType.perf),
        ("[Perf][Bugfix] Fix the DeepGEMM prologue", ChangeType.fix),
        ("[Optimize] Don't send token ids when no connector is used", ChangeType.perf),
        # the title's words: an adverb that says the old code was wrong, what was missing, a typo
        ("[Model] Correctly identify granite-micro as a dense model", ChangeType.fix),
        ("Properly abort pooling requests", ChangeType.fix),
        ("[Model] Implement missing `get_language_model` for Keye-VL", ChangeType.fix),
        ("Add missing import of fused_topk to the MoE layer", ChangeType.fix),
        ("[Bugfix] Fix `weight` -> `w13` typo in the MoE kernel", ChangeType.fix),
        ("[Doc]: fix typos in Python comments", ChangeType.docs),
        ("Integrate Tensorizer into the S3 loading machinery", ChangeType.feat),
        ("[Model Runner V2] Spec decode rejection sampler greedy support", ChangeType.feat),
        ("[Model] Fix gpt-oss pp support", ChangeType.fix),
        ("Fix URL parsing of IPv6 hosts", ChangeType.fix),
        # kernel work is performance unless the title adds support or fixes something
        ("[Kernel] use flashinfer for gdn prefill", ChangeType.perf),
        ("[Kernel] Add cuda kernel for gpt_oss activation", ChangeType.perf),
        ("[Kernel] Add support for fp8 kv cache in trtllm prefill", ChangeType.feat),
        ("[Bugfix][Kernel] Fix bias adding in the fused moe kernel", ChangeType.fix),
    ],
)
def test_title_tags_and_words_decide_type_of_source_change(subject: str, expected: ChangeType) -> None:
    assert judge(subject, SOURCE).type == expected


def test_several_tags_in_any_case_combine_type_and_narrow_area() -> None:
    result = judge("[BUGFIX][rocm] Handle empty batch in sampler (#123)", SOURCE)
    assert result.type == ChangeType.fix
    assert result.importance == Importance.medium
    assert "rocm" in result.importance_reason


def test_misc_tag_alone_does_not_decide_the_type() -> None:
    assert judge("[Misc] Add a --seed option to the sampler", SOURCE).type == ChangeType.feat
    assert judge("[Misc] Fix seed handling in the sampler", SOURCE).type == ChangeType.fix


def test_series_marker_and_unknown_tags_carry_no_evidence() -> None:
    result = judge("[Sampler][2/N] Fix seed handling", SOURCE)
    assert result.type == ChangeType.fix
    assert result.one_line.startswith('"Fix seed handling"')


def test_tiny_tag_caps_importance_at_low() -> None:
    assert judge("[Tiny] Fix crash when the batch is empty", SOURCE).importance == Importance.low


# --------------------------------------------------------------------------- Conventional Commits


def test_conventional_type_decides_type() -> None:
    assert judge("feat(api): add streaming responses", SOURCE).type == ChangeType.feat
    assert judge("perf: cache compiled graphs", SOURCE).type == ChangeType.perf
    assert judge("refactor: split the scheduler", SOURCE).type == ChangeType.refactor


@pytest.mark.parametrize(
    "subject",
    [
        "🐛 fix(config): keep the later value",
        "✨ feat: add streaming responses",
        "♻️ refactor(cli): split the parser",
        ":memo: docs: explain the plugin hooks",
    ],
)
def test_an_emoji_before_a_conventional_prefix_is_decoration(subject: str) -> None:
    result = judge(subject, change("engine/core/scheduler.py", additions=40, deletions=30))
    # The prefix is read as the convention, without its decoration.
    prefix = subject.split(maxsplit=1)[1].split(":")[0]
    assert result.type == ChangeType(prefix.split("(")[0])
    assert f"`{prefix}:`" in result.importance_reason


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ("✨ Streaming responses for the scheduler", ChangeType.feat),
        (":sparkles: Streaming responses for the scheduler", ChangeType.feat),
        ("🐛 Empty batches in the scheduler", ChangeType.fix),
        ("⚡️ Scheduler batches", ChangeType.perf),
        ("♻️ Scheduler internals", ChangeType.refactor),
        (":white_check_mark: Scheduler batches", ChangeType.test),
    ],
)
def test_a_gitmoji_alone_names_the_type_as_a_conventional_prefix_would(subject: str, expected: ChangeType) -> None:
    result = judge(subject, change("engine/core/scheduler.py", additions=40, deletions=30))
    assert result.type == expected
    assert f"`{subject.split()[0]}`" in result.importance_reason


def test_an_emoji_that_names_no_type_takes_none_from_the_title() -> None:
    plain = judge("Scheduler batches", change("engine/core/scheduler.py", additions=40, deletions=30))
    decorated = judge("🚀 Scheduler batches", change("engine/core/scheduler.py", additions=40, deletions=30))
    assert decorated.type == plain.type


def test_a_new_option_named_after_logging_or_verbosity_is_no_wording_change() -> None:
    # What a program says is low; an option that sets it is an option like any other.
    for subject in ("Add --verbose flag", "Add a `--log-level` option", "add `--disable-access-log-for-endpoints`"):
        assert judge(subject, SOURCE).importance == Importance.medium, subject
    for subject in ("More verbose logging in the scheduler", "Improve the log messages of the loader"):
        assert judge(subject, SOURCE).importance == Importance.low, subject


@pytest.mark.parametrize(
    "subject",
    [
        'Reapply "Add streaming responses to the scheduler"',
        "Reapply [Feature] Add streaming responses to the scheduler",
        "Reland: feat: add streaming responses to the scheduler",
    ],
)
def test_a_change_landed_again_after_its_revert_is_judged_as_that_change(subject: str) -> None:
    files = change("engine/core/scheduler.py", additions=40, deletions=5)
    again, first = judge(subject, files), judge("Add streaming responses to the scheduler", files)
    assert (again.type, again.importance) == (first.type, first.importance) == (ChangeType.feat, Importance.medium)


def test_conventional_bang_is_breaking_and_at_least_medium() -> None:
    result = judge("refactor(config)!: read settings from one file", SOURCE)
    assert result.flags.breaking
    assert result.importance in (Importance.medium, Importance.high)


def test_breaking_change_footer_is_breaking_and_high() -> None:
    body = "Settings move to engine.toml.\n\nBREAKING CHANGE: the ENGINE_HOME variable is ignored\n"
    result = judge("chore: move settings", SOURCE, body=body)
    assert result.flags.breaking
    assert result.importance == Importance.high
    assert any("ENGINE_HOME" in bullet for bullet in result.summary)


@pytest.mark.parametrize(
    "said",
    [
        "This is a breaking change for `engine-printer`.",
        "This is a behavioral change: users who relied on the old order now get an error.",
    ],
)
def test_a_body_that_says_the_change_breaks_users_is_breaking_and_high(said: str) -> None:
    body = f"Match limits are now counted where matches are found.\n\n{said}\n"
    result = judge("searcher: move the match limit from the printer to the searcher", SOURCE, body=body)
    assert (result.flags.breaking, result.importance) == (True, Importance.high)
    # A checklist's question, or a denial, declares nothing.
    for said in ("Is this a breaking change? No.", "This is not a breaking change.", "No behavior change."):
        assert not judge("searcher: move the match limit", SOURCE, body=said).flags.breaking


def test_wrapped_breaking_change_footer_is_quoted_whole() -> None:
    body = "BREAKING CHANGE: the ENGINE_HOME variable is ignored;\nset engine.home in engine.toml instead.\n"
    result = judge("feat: read settings from engine.toml", SOURCE, body=body)
    assert any("ignored; set engine.home in engine.toml instead." in bullet for bullet in result.summary)


@pytest.mark.parametrize(
    ("subject", "expected"),
    [
        ("fix(test): ensure the binary is built before the test runs", ChangeType.test),
        ("feat(tests): cover the empty input", ChangeType.test),
        ("fix(clippy): apply the linter's suggestions", ChangeType.refactor),
        ("fix(readme): correct the badge links", ChangeType.docs),
        ("fix(type): cast the value for the type checker", ChangeType.refactor),
    ],
)
def test_a_conventional_scope_naming_tests_a_linter_or_the_readme_keeps_the_change_there(
    subject: str, expected: ChangeType
) -> None:
    assert judge(subject, SOURCE).type == expected


@pytest.mark.parametrize(
    ("path", "old", "new", "expected"),
    [
        ("command.go", "// SetOutput is deprecated.", "// Deprecated: use SetOut instead.", ChangeType.docs),
        ("engine/core/scheduler.py", "# retries twice", "# retries three times", ChangeType.docs),
        ("src/buf.c", " * the old size", " * the new size", ChangeType.docs),
        ("src/buf.c", "*out = 0;", "*out = 1;", ChangeType.fix),  # a dereference, not a comment
        ("engine/core/scheduler.py", "# retries twice", "# type: ignore[arg-type]", ChangeType.fix),  # a directive
        ("csrc/attn.hpp", "#if defined(__x86_64__)", "#if !defined(__powerpc__)", ChangeType.fix),  # the preprocessor
        ("engine/core/scheduler.py", "# if empty, retry", "# if empty, give up", ChangeType.docs),
    ],
)
def test_a_code_file_whose_patch_changes_only_comments_is_documentation(
    path: str, old: str, new: str, expected: ChangeType
) -> None:
    patch = f"@@ -10,3 +10,3 @@ func f() {{\n context\n-{old}\n+{new}\n"
    result = judge("Fix the deprecation comment", change(path, text=patch, additions=1, deletions=1))
    assert result.type == expected
    assert result.importance == (Importance.low if expected == ChangeType.docs else result.importance)


@pytest.mark.parametrize(
    "subject",
    [
        "Import ssl on demand",
        "Defer imports on the cold import path",
        "Load plugins lazily",
        "searcher: fix a performance bug with after-context",
        "Fix a 6-8% throughput regression in the sampler",
        "Move to a faster base64 implementation",
        "[Chore] Replace all json usages with the faster orjson package",
        "Use a cheaper cache key for the model registry",
        "Avoid shared shutdown waiter contention",
        "globset: reduce owned path copying in globset",
    ],
)
def test_work_put_off_a_fixed_slowdown_or_a_faster_implementation_is_a_performance_change(subject: str) -> None:
    edit = "@@ -1,3 +1,4 @@\n-import ssl\n+def _ssl():\n+    import ssl\n+    return ssl\n"
    assert judge(subject, change("engine/config.py", text=edit, additions=3, deletions=1)).type == ChangeType.perf


def test_conventional_scope_deps_is_a_dependency_change() -> None:
    lock = change("poetry.lock", FileCategory.generated, additions=40, deletions=40)
    result = judge("chore(deps): bump requests from 2.31.0 to 2.32.0", lock)
    assert (result.type, result.importance) == (ChangeType.build, Importance.low)


# --------------------------------------------------------------------------- plain sentences


@pytest.mark.parametrize("subject", ["[Misc] Fix typo in llm_engine.py", "[Misc] method name typo fix"])
def test_a_typo_corrected_in_code_is_a_low_refactor(subject: str) -> None:
    result = judge(subject, SOURCE)
    assert (result.type, result.importance) == (ChangeType.refactor, Importance.low)


@pytest.mark.parametrize("subject", ["[pre-commit.ci] pre-commit autoupdate (#3971)", "Update pre-commit hooks"])
def test_hooks_updated_with_the_code_their_new_versions_rewrite_are_a_low_chore(subject: str) -> None:
    hooks = change(".pre-commit-config.yaml", FileCategory.build, additions=3, deletions=3)
    result = judge(subject, hooks, change("src/engine/report.py", additions=6, deletions=6))
    assert (result.type, result.importance) == (ChangeType.chore, Importance.low)


def test_fixing_links_is_documentation_whatever_file_holds_them() -> None:
    files = (change("docs/contributing/model.md", FileCategory.docs), SOURCE)
    assert judge("Fix links in multi-modal model contributing page", *files).type == ChangeType.docs


def test_a_clearer_error_message_is_low_however_abbreviated() -> None:
    edit = change("engine/cli/serve.py", text="@@ -1 +1 @@\n-    raise ValueError(args)\n+    raise ValueError(port)\n")
    assert judge("[Misc] improve error msg", edit).importance == Importance.low


def test_plain_fix_of_a_crash_in_common_code_is_high() -> None:
    result = judge("Fix crash when the request queue is empty", SOURCE)
    assert (result.type, result.importance) == (ChangeType.fix, Importance.high)
    assert "crash" in result.importance_reason


def test_crash_fix_on_one_platform_stays_medium() -> None:
    result = judge("[ROCm] Fix crash when the request queue is empty", SOURCE)
    assert (result.type, result.importance) == (ChangeType.fix, Importance.medium)


@pytest.mark.parametrize(
    "subject",
    ["Fix a hang when used in conjunction with the `--installpkg` option", "Fix crash with the `--frozen` flag"],
)
def test_crash_fix_confined_to_one_option_stays_medium(subject: str) -> None:
    result = judge(subject, SOURCE)
    assert (result.type, result.importance) == (ChangeType.fix, Importance.medium)
    assert judge("Fix a hang when the queue is empty", SOURCE).importance == Importance.high


def test_plain_add_support_is_a_medium_feature() -> None:
    new_backend = change("engine/attention/foo.py", status=FileStatus.added)
    result = judge("Add support for the Foo attention backend", new_backend)
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)
    assert result.flags.user_facing


def test_changed_default_is_high() -> None:
    result = judge("Enable prefix caching by default", SOURCE)
    assert result.importance == Importance.high
    assert result.recommendations[0].audience == "users"


def test_removing_a_public_flag_is_a_high_breaking_feature_change() -> None:
    result = judge("Remove the --legacy-kernels flag", SOURCE)
    assert result.type == ChangeType.feat
    assert result.flags.breaking
    assert result.importance == Importance.high


@pytest.mark.parametrize(
    "subject",
    [
        "The `back` value is no longer a supported redirect target",
        "Positional timeouts can no longer be passed to connect()",
        "Server no longer accepts unsigned cookies",
    ],
)
def test_what_stops_working_is_breaking(subject: str) -> None:
    assert judge(subject, SOURCE).flags.breaking


def test_a_flag_removed_from_another_programs_invocation_breaks_nothing() -> None:
    result = judge("fix(helm): remove deprecated --client flag from helm version command", SOURCE)
    assert (result.type, result.flags.breaking) == (ChangeType.fix, False)
    assert judge("fix(cli): remove deprecated --client flag", SOURCE).flags.breaking


def test_a_fix_for_something_that_no_longer_worked_breaks_nothing() -> None:
    assert not judge("Fix reload: the config file no longer loaded", SOURCE).flags.breaking


def test_removed_argument_definition_in_the_diff_is_breaking() -> None:
    patch = (
        "@@ -10,3 +10,1 @@\n"
        '-    parser.add_argument("--max-batch", type=int)\n'
        '-    parser.add_argument("--seed", type=int)\n'
        '+    parser.add_argument("--seed", type=int, default=0)\n'
    )
    result = judge("Simplify argument parsing", change("engine/cli.py", text=patch))
    assert result.flags.breaking
    assert result.type == ChangeType.feat
    assert "`--max-batch`" in result.recommendations[0].text
    assert "--seed" not in result.recommendations[0].text


_NEW_OPTION = (
    "@@ -10,3 +10,6 @@\n"
    '     parser.add_argument("--seed", type=int)\n'
    '+    parser.add_argument("--sampler-plugins", nargs="*")\n'
    "-    if args.seed:\n"
    "-        random.seed(args.seed)\n"
    "+    if args.seed and not args.sampler_plugins:\n"
)


def test_a_new_option_is_a_feature_when_the_title_names_no_type() -> None:
    # The diff also changes a condition and adds a test without growing (the shape of a fix): the option says more.
    test = change("tests/test_cli.py", FileCategory.test, text="@@ -1 +1,2 @@\n+def test_plugins():\n")
    result = judge("[Core] Sampler plug-ins", change("engine/cli.py", additions=2, deletions=2, text=_NEW_OPTION), test)
    assert result.type == ChangeType.feat


def test_a_new_option_does_not_outvote_the_title() -> None:
    assert judge("Handle a missing seed", change("engine/cli.py", text=_NEW_OPTION)).type == ChangeType.fix
    assert judge("[Perf] Enable fused sampling", change("engine/cli.py", text=_NEW_OPTION)).type == ChangeType.perf


def test_environment_variable_still_used_in_the_patch_is_not_removed() -> None:
    patch = (
        "@@ -3,3 +3,2 @@\n"
        '-    saved = os.environ.get("ENGINE_WORKSPACE")\n'
        '     os.environ["ENGINE_WORKSPACE"] = ":16:8"\n'
    )
    result = judge("Simplify workspace setup", change("engine/setup.py", text=patch))
    assert not result.flags.breaking


def test_logging_change_is_low() -> None:
    result = judge("Add more logging to the scheduler", SOURCE)
    assert result.importance == Importance.low
    assert result.summary == [] and result.recommendations == []


@pytest.mark.parametrize(
    "subject",
    ["[Log] Optimize startup log", "[Log] add log about gpu worker init snapshot", "[Logs] Fix the duplicate log"],
)
def test_a_log_tagged_commit_is_a_chore_whatever_its_verb(subject: str) -> None:
    result = judge(subject, SOURCE)
    assert (result.type, result.importance) == (ChangeType.chore, Importance.low)


# --------------------------------------------------------------------------- reverts


def test_revert_takes_the_importance_of_what_it_reverts() -> None:
    result = judge('Revert "Fix crash when the request queue is empty" (#99)', SOURCE)
    assert (result.type, result.importance) == (ChangeType.revert, Importance.high)
    assert "Fix crash when the request queue is empty" in result.importance_reason


def test_revert_of_unjudgeable_change_is_medium() -> None:
    result = judge('Revert "Scheduler v2"', SOURCE)
    assert (result.type, result.importance) == (ChangeType.revert, Importance.medium)


def test_revert_tag_and_conventional_revert_are_reverts() -> None:
    docs_only = change("docs/usage.md", FileCategory.docs)
    assert judge("[Revert] Fix typo in usage guide", docs_only).type == ChangeType.revert
    assert judge("revert: feat: add streaming", SOURCE).type == ChangeType.revert


@pytest.mark.parametrize("subject", ['fix: Revert "feat: add streaming"', 'fix: revert, "feat: add streaming"'])
def test_a_conventional_title_that_quotes_the_commit_it_reverts_is_a_revert(subject: str) -> None:
    result = judge(subject, SOURCE)
    assert result.type == ChangeType.revert
    assert "feat: add streaming" in result.importance_reason
    # Undoing a piece of code is not reverting a commit.
    assert judge("fix: revert cast to cpu in the encoder", SOURCE).type == ChangeType.fix


# --------------------------------------------------------------------------- security


def test_security_keyword_makes_source_change_high() -> None:
    result = judge("Reject path traversal in the model loader", SOURCE)
    assert result.flags.security
    assert result.importance == Importance.high
    assert [i.aspect for i in result.insights] == ["security"]


@pytest.mark.parametrize(
    ("subject", "body"),
    [
        ("Prevent open redirect after login", ""),
        ("Guard the parser against ReDoS", ""),
        ("Reject ambiguous Transfer-Encoding headers", "Closes a request smuggling hole behind proxies."),
        ("Refuse zip bombs when unpacking uploads", ""),
        ("Stop prototype pollution in option merging", ""),
        ("Update the XML parser", "Avoid the parser vuln wholly."),
    ],
)
def test_weakness_names_flag_security_in_the_title_or_the_body(subject: str, body: str) -> None:
    assert judge(subject, SOURCE, body=body).flags.security


def test_a_dos_like_word_that_names_no_attack_flags_nothing() -> None:
    assert not judge("Support DOS line endings in config files", SOURCE).flags.security


def test_security_in_docs_only_change_is_medium() -> None:
    result = judge("Document SSRF risks of media URLs", change("docs/security.md", FileCategory.docs))
    assert result.flags.security
    assert (result.type, result.importance) == (ChangeType.docs, Importance.medium)


def test_cve_in_body_sets_security() -> None:
    result = judge("Harden the tarball extractor", SOURCE, body="Addresses CVE-2025-12345 in archive handling.")
    assert result.flags.security
    assert result.importance == Importance.high


_BADGE = (
    "[![Dependabot compatibility score](https://dependabot-badges.githubapp.com/badges/compatibility_score)]"
    "(https://docs.github.com/en/github/managing-security-vulnerabilities/about-dependabot-security-updates)"
)


def test_words_in_a_link_target_are_no_evidence_the_link_text_is() -> None:
    workflow = change(".github/workflows/release.yml", FileCategory.build, additions=1, deletions=1)
    bump = judge("build(deps): bump actions/cache from 4 to 5", workflow, body=_BADGE)
    assert not bump.flags.security
    linked = judge(
        "Harden the tarball extractor", SOURCE, body="Fixes a [security vulnerability](https://example.com/advisory)."
    )
    assert linked.flags.security


def test_dependency_injection_is_not_a_security_issue() -> None:
    assert not judge("Use dependency injection for the tokenizer", SOURCE).flags.security


# --------------------------------------------------------------------------- paths


def test_bugfix_that_only_edits_tests_is_a_low_test_change() -> None:
    result = judge("[Bugfix] Fix off-by-one in block counting", change("tests/core/test_blocks.py", FileCategory.test))
    assert (result.type, result.importance) == (ChangeType.test, Importance.low)
    assert not result.flags.user_facing


def test_pure_rename_is_a_low_refactor() -> None:
    moved = change(
        "engine/encoder_budget.py", status=FileStatus.renamed, old_path="engine/budget.py", additions=0, deletions=0
    )
    imports = [change(f"engine/user{i}.py", additions=1, deletions=1) for i in range(6)]
    result = judge("[Feature] Rename budget module", moved, *imports)
    assert (result.type, result.importance) == (ChangeType.refactor, Importance.low)
    assert "`engine/budget.py`" in result.one_line and "`engine/encoder_budget.py`" in result.one_line
    assert result.impact_scope == []  # low shows no impact scope
    breaking = judge("refactor!: Rename budget module", moved, *imports)
    assert breaking.importance != Importance.low and breaking.impact_scope[0] == "engine/encoder_budget.py"


def _settings_class(fields: int) -> str:
    body = "".join(f'    option_{i}: int = {i}\n    """What option {i} tunes."""\n\n' for i in range(fields))
    return f'class EngineSettings:\n    """Every setting of the engine."""\n\n{body}'


_TYPES_TABLE = """pub(crate) const DEFAULT_TYPES: &[(&[&str], &[&str])] = &[
{rows}];

pub fn lookup(name: &str) -> Option<&'static [&'static str]> {{
    DEFAULT_TYPES.iter().find(|(names, _)| names.contains(&name)).map(|(_, globs)| *globs)
}}
"""
_ROWS = "".join(f'    (&["lang{i}"], &["*.l{i}", "*.lang{i}"]),\n' for i in range(12))


def test_an_entry_added_to_a_constant_data_table_is_low(tmp_path: Path) -> None:
    repo = Repo(tmp_path, {"crates/ignore/src/default_types.rs": _TYPES_TABLE.format(rows=_ROWS)})
    rows = _ROWS.replace('"*.lang5"]', '"*.lang5", "*.lang5.ts"]')
    analysis = analyse(
        repo.change(
            "types: add `*.lang5.ts` to lang5", {"crates/ignore/src/default_types.rs": _TYPES_TABLE.format(rows=rows)}
        )
    )
    assert (analysis.type, analysis.importance) == (ChangeType.feat, Importance.low)
    assert "the constant table `DEFAULT_TYPES`" in analysis.importance_reason
    # Code beside the table is more than data.
    code = _TYPES_TABLE.format(rows=rows).replace(".find(", ".rev().find(")
    assert (
        analyse(repo.change("types: prefer the last match", {"crates/ignore/src/default_types.rs": code})).importance
        != Importance.low
    )


def test_a_class_moved_out_of_a_module_into_its_own_is_a_low_refactor(tmp_path: Path) -> None:
    settings = _settings_class(110)
    repo = Repo(tmp_path, {"engine/config/__init__.py": "import os\n\n\n" + settings})
    moved = {
        "engine/config/__init__.py": "import os\n\nfrom engine.config.settings import EngineSettings\n",
        "engine/config/settings.py": settings,
    }
    analysis = analyse(repo.change("Fix the layout: move EngineSettings to engine/config/settings.py", moved))
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)
    # As much code written anew, beside the old, is no move.
    grown = {
        "engine/config/extra.py": _settings_class(110)
        .replace("EngineSettings", "ExtraSettings")
        .replace("option_", "extra_")
    }
    assert analyse(repo.change("Add the extra settings", grown)).type == ChangeType.feat


def _helpers(count: int) -> str:
    return "".join(
        f'def to_dtype_{i}(value):\n    """Cast to dtype {i}."""\n    scaled = value * {i}\n'
        f"    return scaled + {i}\n\n\n"
        for i in range(count)
    )


def test_helpers_moved_to_a_submodule_with_every_caller_importing_them_anew_is_a_low_refactor(
    tmp_path: Path,
) -> None:
    """Moving definitions leaves an import edited in each caller: bookkeeping, not new code."""
    callers = 40

    def caller(i: int, module: str) -> str:
        return (
            f"from engine.{module} import to_dtype_{i % 60}\nfrom engine.{module} import to_dtype_{(i + 1) % 60}\n\n\n"
            f"def run_{i}(value):\n    return to_dtype_{i % 60}(value) + to_dtype_{(i + 1) % 60}(value)\n"
        )

    before = {"engine/utils/__init__.py": "import os\n\n\n" + _helpers(60)}
    before |= {f"engine/stage_{i}.py": caller(i, "utils") for i in range(callers)}
    repo = Repo(tmp_path, before)
    moved = {"engine/utils/__init__.py": "import os\n", "engine/utils/dtypes.py": _helpers(60)}
    moved |= {f"engine/stage_{i}.py": caller(i, "utils.dtypes") for i in range(callers)}
    analysis = analyse(repo.change("Clean up the dtype helpers in `engine.utils`", moved))
    assert (analysis.type, analysis.importance) == (ChangeType.refactor, Importance.low)
    assert "only moves" in analysis.importance_reason


_SERVE_CLI = """import argparse


def make_parser():
    parser = argparse.ArgumentParser()
    parser.add_argument(
        "--config",
        help="Read options from a YAML file."
        "Its keys are listed at:"
        "https://docs.example.org/serving/server.html#cli-reference"
    )
    return parser
"""


def test_a_help_text_rewritten_onto_the_closing_bracket_is_documentation(tmp_path: Path) -> None:
    """Moving the call's `)` onto the help text's last line lays it out anew: still only help text."""
    repo = Repo(tmp_path, {"engine/cli.py": _SERVE_CLI})
    relinked = (
        _SERVE_CLI.replace('file."', 'file. "')
        .replace('at:"', 'at: "')
        .replace('serving/server.html#cli-reference"\n    )', 'configuration/serve_args.html")')
    )
    analysis = analyse(repo.change("[Misc] Correct broken docs link", {"engine/cli.py": relinked}))
    assert (analysis.type, analysis.importance) == (ChangeType.docs, Importance.low)


def test_docs_only_change_is_low_docs() -> None:
    docs = [change("docs/quickstart.md", FileCategory.docs), change("README.md", FileCategory.docs)]
    result = judge("Update the quickstart", *docs)
    assert (result.type, result.importance) == (ChangeType.docs, Importance.low)


def test_ci_only_change_is_low_ci() -> None:
    workflow = change(".github/workflows/test.yml", FileCategory.build)
    result = judge("Fix flaky nightly job", workflow)
    assert (result.type, result.importance) == (ChangeType.ci, Importance.low)


def test_lock_file_only_bump_is_low_build() -> None:
    patch = '@@ -1,2 +1,2 @@\n name = "idna"\n-version = "3.6"\n+version = "3.7"\n'
    result = judge("Update dependencies", change("uv.lock", FileCategory.generated, text=patch))
    assert (result.type, result.importance) == (ChangeType.build, Importance.low)


def test_torch_major_bump_in_requirements_is_high_build() -> None:
    patch = "@@ -1,3 +1,3 @@\n-torch==2.9.1\n+torch==2.10.0\n numpy\n"
    result = judge("Upgrade the framework", change("requirements/cuda.txt", FileCategory.build, text=patch))
    assert (result.type, result.importance) == (ChangeType.build, Importance.high)
    assert "`torch` 2.9.1 → 2.10.0" in result.importance_reason
    assert result.recommendations[0].audience == "operators"
    assert result.risks


def test_torch_major_bump_named_only_in_title_is_high() -> None:
    result = judge("[Release 2.10] Update to Torch 2.10", change("pyproject.toml", FileCategory.build), SOURCE)
    assert (result.type, result.importance) == (ChangeType.build, Importance.high)


def test_torch_patch_bump_is_not_high() -> None:
    patch = "@@ -1 +1 @@\n-torch==2.9.0\n+torch==2.9.1\n"
    result = judge("Bump torch", change("requirements.txt", FileCategory.build, text=patch))
    assert result.importance == Importance.medium


def test_cmake_fetch_tags_name_no_dependency() -> None:
    # Two FetchContent blocks: their `GIT_TAG` lines are not one dependency moved from 3.9 to 52.6.
    patch = (
        "@@ -240,7 +240,7 @@\n"
        "-                GIT_TAG        v52.2.0\n"
        "+                GIT_TAG        v52.6.0\n"
        "@@ -260,7 +260,7 @@\n"
        "-            GIT_TAG v3.9\n"
        "+            GIT_TAG v3.10\n"
    )
    result = judge(
        "Update the CPU extension's oneDNN", change("cmake/cpu_extension.cmake", FileCategory.build, text=patch)
    )
    assert not result.flags.breaking
    assert not result.surface


def test_a_build_script_message_naming_a_version_drops_no_dependency() -> None:
    patch = (
        "@@ -800,6 +800,2 @@\n"
        '-      message(STATUS "Not building the kernels as CUDA Compiler version is "\n'
        '-                     "not >= 12.8, we recommend upgrading to CUDA 12.8 or later.")\n'
    )
    result = judge("Remove the grouped GEMM kernels", change("CMakeLists.txt", FileCategory.build, text=patch))
    assert not result.flags.breaking
    assert not result.surface


def test_config_table_only_change_is_low_chore() -> None:
    table = change("engine/kernels/configs/E=16,device=H200.json", FileCategory.build, additions=140, deletions=0)
    result = judge("Add tuned MoE config for H200", table)
    assert (result.type, result.importance) == (ChangeType.chore, Importance.low)


def test_an_example_is_what_the_title_names_it_and_tooling_otherwise() -> None:
    example = change("examples/offline_inference/batch_llm_inference.py")
    docs = judge("[Docs] Improve docstring for ray data llm example", example)
    fix = judge("[Bugfix] Fix the fps type in the video example", example)
    tidy = judge("Update the batch inference example", example)
    assert (docs.type, docs.importance) == (ChangeType.docs, Importance.low)
    assert (fix.type, fix.importance) == (ChangeType.fix, Importance.low)
    assert (tidy.type, tidy.importance) == (ChangeType.chore, Importance.low)


def test_benchmark_only_change_is_low() -> None:
    result = judge("Add a latency benchmark for decode", change("benchmarks/decode.py"))
    assert result.importance == Importance.low


@pytest.mark.parametrize(
    "beside",
    [
        change("engine/bench/README.md", FileCategory.docs),
        change("tests/bench/test_serve.py", FileCategory.test, additions=300),
    ],
)
def test_a_capped_class_stays_capped_when_its_readme_or_its_test_changes_too(beside: ContextFile) -> None:
    # Shipped benchmark code (no type of its own, capped low) and the README that documents it, or its test.
    bench = {"paths": {"shipped_bench": {"globs": ["engine/bench/**"], "max_importance": "low"}}}
    item = commit("Add a ramp-up request rate to the load generator", change("engine/bench/serve.py"), beside)
    result = HeuristicAnalyzer(language="en", conventions=bench).analyze_sync(item)
    assert (result.type, result.importance) == (ChangeType.feat, Importance.low)
    assert "shipped_bench" in result.importance_reason


def test_impact_scope_puts_source_first_and_folds_crowded_directories() -> None:
    files = [
        change("tests/test_a.py", FileCategory.test, additions=500),
        change("engine/models/a.py", additions=30),
        change("engine/models/b.py", additions=20),
        change("engine/config.py", additions=5),
        change("docs/a.md", FileCategory.docs),
    ]
    expected = ["engine/models/", "engine/config.py", "tests/test_a.py", "docs/a.md"]
    assert judge("Add model A", *files).impact_scope == expected


# --------------------------------------------------------------------------- texts and fingerprint


def test_chinese_texts_are_chinese_and_keep_identifiers() -> None:
    # A security fix: one of the commits that get a recommendation.
    result = judge("Fix path traversal when the request queue is empty", SOURCE, language="zh")
    for text in [result.one_line, result.importance_reason, *result.summary, result.recommendations[0].text]:
        assert _CJK.search(text), text
    assert "`engine/core/scheduler.py`" in result.one_line


def test_english_texts_have_no_chinese() -> None:
    result = judge("Fix path traversal when the request queue is empty", SOURCE, language="en")
    texts = [result.one_line, result.importance_reason, *result.summary, result.recommendations[0].text]
    assert texts and not any(_CJK.search(text) for text in texts)


def test_texts_do_not_open_with_the_type_label() -> None:
    result = judge("[Bugfix] Handle empty batch", SOURCE, language="zh")
    assert not result.one_line.startswith(("Bug修复", "Bug fix"))


def test_fingerprint_changes_with_language_and_with_rules() -> None:
    zh, en = HeuristicAnalyzer(language="zh"), HeuristicAnalyzer(language="en")
    extended = HeuristicAnalyzer(language="zh", rules=RuleSet.load({"moves": {"max_lines_per_other_file": 9}}))
    assert len({zh.fingerprint, en.fingerprint, extended.fingerprint}) == 3
    assert zh.fingerprint.startswith("heuristic/") and zh.fingerprint.endswith("/zh")
    assert HeuristicAnalyzer(language="zh").fingerprint == zh.fingerprint


def test_analysis_carries_receipt_fingerprint_and_ok_status() -> None:
    analyzer = registry().create("analyzer", "heuristic", {}, "test", language="en", budget_tokens=6000)
    result = asyncio.run(analyzer.analyze(commit("Fix a hang", SOURCE)))
    assert result.coverage == _RECEIPT
    assert result.analyzer == analyzer.fingerprint
    assert result.status == AnalysisStatus.ok


# --------------------------------------------------------------------------- security and breaking: type and importance


def test_security_tag_with_no_other_type_evidence_is_a_fix() -> None:
    files = [change("engine/serve/ipc.py"), change("tests/test_ipc.py", FileCategory.test)]
    result = judge("[Security] Refuse pickled payloads on the IPC channel", *files)
    assert (result.type, result.secondary_types) == (ChangeType.fix, [])
    assert result.flags.security
    assert result.importance == Importance.high


def test_security_wording_with_no_other_type_evidence_is_a_fix() -> None:
    result = judge("Refuse unsafe deserialization on the IPC channel", SOURCE)
    assert result.type == ChangeType.fix
    assert result.flags.security


def test_security_tag_does_not_outvote_what_the_title_says() -> None:
    assert judge("[Security] Add a sandbox option for custom code", SOURCE).type == ChangeType.feat


def test_security_fix_whose_title_limits_its_impact_stays_medium() -> None:
    result = judge("Avoid repeated unsafe deserialization warnings", SOURCE)
    assert result.flags.security
    assert result.importance == Importance.medium


def test_a_title_that_only_names_trust_remote_code_is_no_security_fix() -> None:
    # Passing, silencing or testing the flag hardens nothing; gating it is read from the code.
    assert not judge("Pass trust_remote_code to the benchmark tokenizer", SOURCE).flags.security
    assert not judge("Fix BOS token injection for chat templates", SOURCE).flags.security
    assert judge("Prevent header injection in multipart names", SOURCE).flags.security


def test_declared_breaking_change_of_a_user_facing_option_is_high() -> None:
    body = "BREAKING CHANGE: --max-batch is removed; use --max-num-seqs."
    result = judge("feat(cli)!: rename --max-batch to --max-num-seqs", change("engine/serve/cli.py"), body=body)
    assert result.flags.breaking
    assert result.importance == Importance.high


def test_breaking_change_confined_to_one_platform_stays_medium() -> None:
    result = judge("[ROCm] Remove the --rocm-legacy-attention flag", SOURCE)
    assert result.flags.breaking
    assert result.importance == Importance.medium


def test_deprecation_is_breaking_but_medium() -> None:
    result = judge("Deprecate the --legacy-kernels option", SOURCE)
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)
    assert result.flags.breaking


def test_removed_registry_entry_is_a_breaking_feature_change_inferred_from_the_diff() -> None:
    patch = (
        "@@ -38,5 +38,3 @@ METHODS = {\n"
        '     "awq": AWQConfig,\n'
        '-    "cpu_gptq": CPUGPTQConfig,\n'
        '-    "is_zp_float": True,\n'
        '     "gptq": GPTQConfig,\n'
    )
    registry = change("engine/quantization/__init__.py", text=patch, additions=0, deletions=2)
    result = judge("[Refactor] Move the CPU GPTQ kernel into the shared linear layer", registry)
    assert result.flags.breaking
    assert result.type == ChangeType.feat
    # The message does not declare the break: the diff only suggests it.
    assert result.importance == Importance.medium
    assert "`cpu_gptq`" in result.importance_reason
    assert "is_zp_float" not in result.importance_reason


@pytest.mark.parametrize(
    ("path", "removed"),
    [
        ("src/main.rs", '-    let dir = std::env::var("ENGINE_HOME").unwrap_or_default();'),
        ("cmd/engine/main.go", '-\thome := os.Getenv("ENGINE_HOME")'),
        ("lib/config.js", "-const home = process.env.ENGINE_HOME || '.';"),
        ("src/cli.rs", '-    #[arg(long = "engine-home")]'),
    ],
)
def test_removed_environment_variables_and_flags_are_found_in_other_languages(path: str, removed: str) -> None:
    result = judge("Simplify startup", change(path, text=f"@@ -1,2 +1,1 @@\n{removed}\n keep()\n"))
    assert result.flags.breaking


# --------------------------------------------------------------------------- core code


def test_large_refactor_of_core_code_is_medium() -> None:
    core = change("engine/core/scheduler.py", additions=400, deletions=200)
    result = judge("Restructure the scheduler", core)
    assert (result.type, result.importance) == (ChangeType.refactor, Importance.medium)
    assert "engine/core/scheduler.py" in result.importance_reason


def test_small_refactor_of_core_code_and_large_refactor_elsewhere_stay_low() -> None:
    assert judge("Restructure the scheduler", change("engine/core/scheduler.py", additions=40)).importance == (
        Importance.low
    )
    assert judge("Restructure the plotting", change("engine/plots.py", additions=900)).importance == Importance.low


# --------------------------------------------------------------------------- texts: body sentence, punctuation, labels


def test_summary_quotes_the_first_sentence_with_line_wraps_joined() -> None:
    body = (
        "The worker IPC decoded messages with pickle.loads, so any process that could reach\n"
        "the socket could run code in the server. Messages are JSON now.\n"
    )
    result = judge("[Security] Refuse pickled payloads on the IPC channel", SOURCE, body=body, language="zh")
    expected = (
        "The worker IPC decoded messages with pickle.loads, so any process that could reach the socket"
        " could run code in the server."
    )
    assert result.summary[-1] == f"提交说明：{expected}"


@pytest.mark.parametrize("opener", ["(e.g.", "(i.e.", "[e.g.", "e.g."])
def test_an_abbreviation_after_a_bracket_ends_no_sentence(opener: str) -> None:
    body = f"When a plugin uses hooks of a newer release {opener} via `requires`), loading it crashes. It is skipped.\n"
    result = judge("Fix the crash on plugins with unknown hooks", SOURCE, body=body)
    assert result.summary[-1].endswith("loading it crashes.")


def test_long_first_sentence_is_cut_at_a_word_boundary_with_an_ellipsis() -> None:
    body = "This change " + " ".join(f"word{i}" for i in range(80)) + " ends here.\n"
    result = judge("Fix the queue", SOURCE, body=body)
    quoted = result.summary[-1].removeprefix("The message says: ")
    assert quoted.endswith("…") and len(quoted) <= 201
    assert all(re.fullmatch(r"word\d+|This|change", word) for word in quoted.removesuffix("…").split())


def test_body_sentence_skips_revert_boilerplate_and_reads_list_items_alone() -> None:
    revert = judge(
        'Revert "Cache the tokenizer"',
        SOURCE,
        body="This reverts commit 07b7fd4d991ff0150acbcf230497856f8284fb0b.\nThe cache kept stale tokenizers.\n",
    )
    assert revert.summary[-1] == "The message says: The cache kept stale tokenizers."
    listed = judge("Fix the queue", SOURCE, body="- Drain the waiting queue on cancel\n- Add a regression test\n")
    assert listed.summary[-1] == "The message says: Drain the waiting queue on cancel."


def test_no_sentence_is_quoted_from_a_body_without_prose() -> None:
    result = judge("Fix the queue", SOURCE, body="## Test plan\n\n```\npytest\n```\n")
    assert len(result.summary) == 1


@pytest.mark.parametrize("ending", [".", "。", "!", "！", "?", "？", "…"])
@pytest.mark.parametrize("language", ["zh", "en"])
def test_text_that_ends_in_punctuation_gets_no_second_full_stop(ending: str, language: str) -> None:
    body = f"BREAKING CHANGE: --max-batch is removed; use --max-num-seqs{ending}"
    result = judge("feat(cli)!: rename --max-batch", SOURCE, body=body, language=language)
    footer = next(bullet for bullet in result.summary if "--max-num-seqs" in bullet)
    assert footer.endswith(f"--max-num-seqs{ending}")


@pytest.mark.parametrize("language", ["zh", "en"])
def test_insights_do_not_repeat_the_aspect_label_the_renderer_prints(language: str) -> None:
    labels = {"zh": ZH, "en": EN}[language]
    patch = "@@ -1 +1 @@\n-torch==2.9.1\n+torch==2.10.0\n"
    upgrade = change("requirements.txt", FileCategory.build, text=patch)
    breaking = judge("feat!: drop the --max-batch flag", SOURCE, upgrade, language=language)
    security = judge("Reject path traversal in the model loader", SOURCE, language=language)
    insights = [*breaking.insights, *security.insights]
    assert {i.aspect for i in insights} == {"compatibility", "security"}
    for insight in insights:
        assert not insight.text.startswith(labels.aspects[insight.aspect]), insight.text


# --------------------------------------------------------------------------- other projects' conventions


def judge_paths(subject: str, *paths: str) -> tuple[ChangeType, Importance]:
    """Type and importance of a commit touching ``paths``, each filed as the context stage files it."""
    result = judge(subject, *(change(path, PathTable.packaged().category(path)) for path in paths))
    return result.type, result.importance


@pytest.mark.parametrize(
    ("subject", "paths", "expected"),
    [
        ("Bump serde from 1.0.195 to 1.0.196", ["Cargo.toml", "Cargo.lock"], ("build", "low")),
        ("chore(deps): bump tokio from 1.35.0 to 1.36.0", ["Cargo.lock"], ("build", "low")),
        ("build(deps): bump actions/checkout from 3 to 4", [".github/workflows/ci.yml"], ("ci", "low")),
        ("fix(parser): handle empty input without panicking", ["src/parser.rs"], ("fix", "high")),
        ("feat(cli): add a --json output flag", ["src/cli.rs"], ("feat", "medium")),
        ("refactor: split the lexer into modules", ["src/lexer.rs"], ("refactor", "low")),
        ("docs: explain the retry policy", ["README.md"], ("docs", "low")),
        ("test: cover unicode identifiers", ["tests/lexer.rs"], ("test", "low")),
    ],
)
def test_rust_project_with_conventional_commits_and_dependabot(
    subject: str, paths: list[str], expected: tuple[str, str]
) -> None:
    assert judge_paths(subject, *paths) == (ChangeType(expected[0]), Importance(expected[1]))


@pytest.mark.parametrize(
    ("subject", "paths", "expected"),
    [
        ("Fix a memory leak in the connection pool", ["requests/adapters.py"], ("fix", "high")),
        ("Add a timeout parameter to Session.send", ["requests/sessions.py"], ("feat", "medium")),
        ("Improve performance of header parsing", ["requests/utils.py"], ("perf", "medium")),
        ("Update the installation guide", ["docs/install.rst"], ("docs", "low")),
        ("Remove unused helper functions", ["requests/utils.py"], ("refactor", "low")),
    ],
)
def test_python_project_with_plain_sentence_titles(subject: str, paths: list[str], expected: tuple[str, str]) -> None:
    assert judge_paths(subject, *paths) == (ChangeType(expected[0]), Importance(expected[1]))


_EXAMPLE = "def main():\n    upload(train())\n"


@pytest.mark.parametrize(
    ("subject", "files", "expected"),
    [
        # A fix or a feature the message names in an example stays one, low as examples rank.
        ("Fix the upload step of the training example", {"examples/train.py": _EXAMPLE}, "fix"),
        ("Support EDM-style training", {"examples/train.py": _EXAMPLE, "examples/README.md": "# EDM\n"}, "feat"),
        (
            "examples: fix serving assets at the root",
            {
                "examples/serve/src/main.rs": "fn main() {\n    serve(root());\n}\n",
                "examples/serve/Cargo.toml": '[package]\nname = "x"\n',
            },
            "fix",
        ),
        # A benchmark is the developers' tool: its fixes stay chores.
        ("Fix up the attention benchmarks", {"benchmarks/bench_attention.py": _EXAMPLE}, "chore"),
    ],
)
def test_a_change_confined_to_examples_keeps_the_type_its_message_names(
    tmp_path: Path, subject: str, files: dict[str, str], expected: str
) -> None:
    repo = Repo(tmp_path, {"README.md": "# engine\n", **{path: "\n" for path in files}})
    analysis = analyse(repo.change(subject, files))
    assert (analysis.type, analysis.importance) == (ChangeType(expected), Importance.low)
    assert analysis.importance_reason.count("example") == 1


def test_a_nix_flake_sped_up_is_a_build_change(tmp_path: Path) -> None:
    flake = "{{\n  outputs = {{ nixpkgs, ... }}: {{\n    packages.default = {builder};\n  }};\n}}\n"
    repo = Repo(tmp_path, {"flake.nix": flake.format(builder="pkgs.rustPlatform.buildRustPackage")})
    analysis = analyse(repo.change("perf(flake): speed up rebuilds", {"flake.nix": flake.format(builder="naersk")}))
    assert (analysis.type, analysis.importance) == (ChangeType.build, Importance.low)


@pytest.mark.parametrize(
    ("subject", "path"),
    [
        ("Remove the deprecated `verify` argument", "requests/api.py"),
        ("Remove deprecated fields from `CompilerConfig`", "engine/serve/config.py"),
        ("[Sparse24] [Deprecation] Remove Sparse24 integration and kernels", "engine/quant/sparse.py"),
        ("[Deprecation] Disallow positional args other than `model`", "engine/entry.py"),
    ],
)
def test_plain_sentence_removing_what_was_deprecated_is_medium_and_breaking(subject: str, path: str) -> None:
    # The transition period warned users: the removal breaks who ignored it, at the rubric's floor.
    result = judge(subject, change(path))
    assert result.flags.breaking
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)


def test_removing_an_argument_never_deprecated_is_high() -> None:
    unannounced = judge("Remove the `verify` argument", change("requests/api.py"))
    assert unannounced.flags.breaking
    assert (unannounced.type, unannounced.importance) == (ChangeType.feat, Importance.high)


# --------------------------------------------------------------------------- plain titles: options, restores, tooling


def test_title_offering_a_configuration_option_is_a_medium_feature() -> None:
    result = judge("Provide a configuration option to control automatic option responses", change("flask/app.py"))
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)


def test_option_wording_does_not_outvote_a_bugfix_tag_or_a_conventional_type() -> None:
    assert judge("[Bugfix] Add Quant Config to the projector", SOURCE).type == ChangeType.fix
    assert judge("refactor(template)!: add name parameter to the constructor", SOURCE).type == ChangeType.refactor


def test_adding_back_lost_behaviour_is_a_fix() -> None:
    assert judge("add back opening session on context push", SOURCE).type == ChangeType.fix


def test_fixing_type_checker_findings_is_a_low_refactor() -> None:
    result = judge("fix pyright type errors (#5620)", SOURCE)
    assert (result.type, result.importance) == (ChangeType.refactor, Importance.low)


@pytest.mark.parametrize(
    "subject",
    ["remove previously deprecated code (#5648)", "Drop deprecated APIs", "Removed the deprecated helpers"],
)
def test_removing_deprecated_code_is_a_breaking_feature_change(subject: str) -> None:
    result = judge(subject, change("flask/__init__.py"))
    assert result.type == ChangeType.feat
    assert result.flags.breaking
    assert result.importance in (Importance.medium, Importance.high)


def test_removing_usage_of_deprecated_properties_is_not_breaking() -> None:
    result = judge("[Attention] Remove usage of deprecated `seq_lens_cpu` properties", SOURCE)
    assert result.type == ChangeType.refactor
    assert not result.flags.breaking


def test_measured_significant_speedup_is_high_but_a_small_one_is_not() -> None:
    fast = judge("perf(changelog): cache commit retain checks (258 times faster generation)", SOURCE)
    assert (fast.type, fast.importance) == (ChangeType.perf, Importance.high)
    small = judge("[Perf] Avoid a redundant copy, 1.8% throughput improvement", SOURCE)
    assert (small.type, small.importance) == (ChangeType.perf, Importance.medium)


def test_a_symptom_the_title_names_makes_the_change_a_fix() -> None:
    result = judge("connector: export UCX_MEM_MMAP_HOOK_MODE=none to avoid a UCX memory leak", SOURCE)
    assert result.type == ChangeType.fix


def test_standardising_a_helper_across_modules_is_a_refactor() -> None:
    assert judge("[Frontend] Standardize use of `create_error_response`", SOURCE).type == ChangeType.refactor


@pytest.mark.parametrize("target", ["SM90", "gfx950", "Blackwell", "B200", "MI300X"])
def test_a_severe_fix_for_one_accelerator_generation_is_medium(target: str) -> None:
    assert judge("[Bug] Fix weight loading for block-scaled CUTLASS", SOURCE).importance == Importance.high
    narrow = judge(f"[Bug] Fix weight loading for block-scaled CUTLASS {target}", SOURCE)
    assert (narrow.type, narrow.importance) == (ChangeType.fix, Importance.medium)


_HYPERFINE = """Fetching the metadata of a directory at once avoids a stat per ignore file.

```
$ hyperfine "rg-base 'with regexes,'" "rg-test 'with regexes,'"
Summary
  rg-test 'with regexes,' ran
    {ratio} ± 0.03 times faster than rg-base 'with regexes,'
```
"""


def test_a_benchmark_verdict_quoted_in_the_body_is_a_measured_speedup() -> None:
    measured = judge("walk: fetch directory entry metadata in batches", SOURCE, body=_HYPERFINE.format(ratio="1.38"))
    assert (measured.type, measured.importance) == (ChangeType.perf, Importance.high)
    # Within the noise of a benchmark (under 10%) the change is no significant speed-up.
    slight = judge("walk: fetch directory entry metadata in batches", SOURCE, body=_HYPERFINE.format(ratio="1.04"))
    assert slight.importance != Importance.high


_SETUP = 'install_requires = [\n    "numpy>=1.26",\n    "safetensors>={v}",\n]\n'
_VERSIONS = 'deps = {{\n    "numpy": "numpy>=1.26",\n    "safetensors": "safetensors>={v}",\n}}\n'


def test_a_commit_that_changes_nothing_but_versions_is_a_build_change_whatever_its_prefix(tmp_path: Path) -> None:
    def files(version: str) -> dict[str, str]:
        return {"setup.py": _SETUP.format(v=version), "engine/dependency_versions.py": _VERSIONS.format(v=version)}

    # From a release candidate to the release: no floor rises, only the version strings change.
    repo = Repo(tmp_path, files("0.8.0-rc.0"))
    analysis = analyse(repo.change("feat: bump safetensors to 0.8.0", files("0.8.0")))
    assert (analysis.type, analysis.importance) == (ChangeType.build, Importance.low)
    # Code written beside the bump is more than versions: the prefix keeps its say.
    grown = {**files("0.8.1"), "engine/loading.py": "def load(path):\n    return stream(path)\n"}
    assert analyse(repo.change("feat: stream safetensors files", grown)).type == ChangeType.feat


def test_a_speedup_measured_as_a_range_is_high(tmp_path: Path) -> None:
    loader = "def load(path):\n    return {}(path)\n"
    repo = Repo(tmp_path, {"engine/loading.py": loader.format("read_slowly")})
    analysis = analyse(repo.change("Speed up model loading by 4-5x", {"engine/loading.py": loader.format("read_fast")}))
    assert (analysis.type, analysis.importance) == (ChangeType.perf, Importance.high)


def test_title_stating_a_new_default_is_high() -> None:
    assert judge("redirect defaults to 303 (#5898)", change("flask/helpers.py")).importance == Importance.high


def test_rewording_an_error_is_low_but_handling_errors_is_not() -> None:
    assert judge("feat(git): improve the set commit range error", SOURCE).importance == Importance.low
    assert judge("feat(git): improve error handling in the range parser", SOURCE).importance == Importance.medium


def test_revert_of_a_test_only_change_is_low() -> None:
    result = judge("revert cli test change", change("tests/test_cli.py", FileCategory.test))
    assert (result.type, result.importance) == (ChangeType.revert, Importance.low)


def test_documenting_a_security_policy_is_not_a_security_change() -> None:
    result = judge("docs(security): update security policy", change("SECURITY.md", FileCategory.docs))
    assert not result.flags.security
    assert (result.type, result.importance) == (ChangeType.docs, Importance.low)


def test_source_file_named_after_the_changelog_is_code() -> None:
    result = judge("fix(changelog): ignore empty lines", change("git-cliff-core/src/changelog.rs"))
    assert (result.type, result.importance) == (ChangeType.fix, Importance.medium)


def test_project_website_pages_are_docs_but_its_tests_are_tests() -> None:
    assert judge_paths("feat(website): add user testimonials", "website/src/components/Testimonials/index.tsx") == (
        ChangeType.docs,
        Importance.low,
    )
    crawler = judge_paths(
        "test(website): add a site crawler", "website/e2e/crawl.spec.ts", "website/playwright.config.ts"
    )
    assert crawler == (ChangeType.test, Importance.low)


# --------------------------------------------------------------------------- release chores


@pytest.mark.parametrize(
    "subject",
    [
        "start version 3.2.0",
        "Release 3.1.0",
        "release version 3.1.0 (#5640)",
        "bump version to 2.0.1",
        "prepare release",
        "chore(release): prepare for v2.0.0-rc.1",
        "Prepare 3.2.1 release",
        "prepare for the 1.4 release",
        "v1.4.2",
        "Version 0.28.0.",
        "release: create-vite@9.0.5",
        "@acme/widgets@2.1.0",
    ],
)
def test_release_chore_is_low_chore_whatever_its_files_and_changelog_say(subject: str) -> None:
    result = judge(subject, *_release_files())
    assert (result.type, result.importance) == (ChangeType.chore, Importance.low)
    assert not result.flags.breaking


def _release_files() -> list[ContextFile]:
    """A release's version bump and the changelog's roll-up of what it ships."""
    roll_up = (
        "@@ -1,3 +1,9 @@\n"
        "+## [2.0.0] - 2026-02-09\n"
        "+### Removed\n"
        "+- Remove previously deprecated code\n"
        "+### Fixed\n"
        "+- Fix crash when the queue is empty\n"
        "+\n"
        " ## [1.9.0] - 2026-01-02\n"
    )
    return [
        change("pyproject.toml", FileCategory.build, additions=1, deletions=1),
        change("CHANGELOG.md", FileCategory.docs, text=roll_up, additions=6, deletions=0),
        change("src/engine/__init__.py", additions=1, deletions=1),
    ]


@pytest.mark.parametrize("subject", ["15.0.0", "release: v8.0.0", "Release 5.0"])
def test_the_release_of_a_new_major_version_is_a_medium_chore(subject: str) -> None:
    result = judge(subject, *_release_files())
    assert (result.type, result.importance) == (ChangeType.chore, Importance.medium)
    assert "new major version" in result.importance_reason


def test_release_title_does_not_hide_a_major_dependency_bump() -> None:
    patch = "@@ -1 +1 @@\n-torch==2.9.1\n+torch==2.10.0\n"
    result = judge("Release 2.10.0", change("requirements.txt", FileCategory.build, text=patch))
    assert (result.type, result.importance) == (ChangeType.build, Importance.high)


# --------------------------------------------------------------------------- changelog entries


def changelog(*lines: str, path: str = "CHANGES.rst") -> ContextFile:
    """A changelog file whose patch is ``lines`` (each with its diff sign) after one hunk header."""
    text = "@@ -1,4 +1,6 @@\n" + "\n".join(lines) + "\n"
    added = sum(1 for line in lines if line.startswith("+"))
    removed = sum(1 for line in lines if line.startswith("-"))
    return change(path, FileCategory.docs, text=text, additions=added, deletions=removed)


def test_changelog_entry_makes_a_change_without_type_words_a_medium_feature() -> None:
    entry = changelog(
        " Unreleased",
        " ",
        "+-   ``-e path`` takes precedence over default ``.env`` and ``.flaskenv`` files.",
        "+    ``load_dotenv`` loads default files in addition to a path. :issue:`5628`",
    )
    result = judge("update env file precedence (#5630)", change("src/flask/cli.py"), entry)
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)
    assert result.flags.user_facing
    assert "changelog" in result.importance_reason
    assert result.summary[-1] == (
        "The changelog says: `-e path` takes precedence over default `.env` and `.flaskenv` files."
    )


@pytest.mark.parametrize(
    "credit",
    [" - by :user:`gaborbernat`.", " by @alice in https://github.com/acme/engine/pull/12", " (thanks to @a and @b)."],
)
def test_a_changelog_entry_is_quoted_without_the_credit_to_its_author(credit: str) -> None:
    entry = changelog(f"+-   Skip the inline plugin when it uses hooks this release lacks instead of crashing{credit}")
    result = judge("fix the crash on plugins with unknown hooks", change("src/engine/plugins.py"), entry)
    quoted = next(line for line in result.summary if line.startswith("The changelog says: "))
    assert quoted.rstrip(".").endswith("instead of crashing")


def test_changelog_entry_words_decide_the_type() -> None:
    entry = changelog("+-   Fix how setting ``host_matching=True`` interacts with ``SERVER_NAME``. :issue:`5553`")
    result = judge("setting SERVER_NAME does not restrict routing", change("src/flask/app.py"), entry)
    assert (result.type, result.importance) == (ChangeType.fix, Importance.medium)


def test_changelog_section_heading_types_the_entries_under_it() -> None:
    entry = changelog(
        " ## [Unreleased]", " ### Fixed", "+- Empty configuration files are accepted", path="CHANGELOG.md"
    )
    result = judge("config loading tweaks", change("src/config.rs"), entry)
    assert (result.type, result.importance) == (ChangeType.fix, Importance.medium)


_RELEASES = "0.4.0\n=====\n\nBug fixes:\n\n* Fix a crash on empty input.\n"


def test_a_plain_changelog_heading_ending_in_a_colon_types_the_entries_under_it(tmp_path: Path) -> None:
    walker = "def walk(root):\n    return {}(root)\n"
    repo = Repo(tmp_path, {"CHANGELOG.md": _RELEASES, "src/walk.py": walker.format("stat_each")})
    perf = "Unreleased\n==========\n\nPerformance improvements:\n\n* Improves directory traversal time.\n\n"
    commit = repo.change(
        "walk: read entries in batches",
        {"CHANGELOG.md": perf + _RELEASES, "src/walk.py": walker.format("read_batches")},
    )
    analysis = analyse(commit)
    assert analysis.type == ChangeType.perf
    # Walking a directory tree faster hardens nothing; escaping the served directory is a weakness.
    assert not analysis.flags.security
    assert judge("Fix directory traversal in the static file handler", change("src/static.py")).flags.security


def test_changelog_entry_lifts_a_title_that_limits_its_impact() -> None:
    entry = changelog("+-   Clearer error message when the app cannot be found.")
    assert judge("Add logging of the app lookup", change("src/flask/cli.py"), entry).importance == Importance.medium


def test_changelog_entry_removing_deprecated_code_is_breaking() -> None:
    entry = changelog("+-   Remove previously deprecated code: ``__version__``. :pr:`5648`")
    result = judge("tidy the package root", change("src/flask/__init__.py"), entry)
    assert result.type == ChangeType.feat
    assert result.flags.breaking


def test_changelog_entry_announcing_a_deprecation_is_breaking_but_medium() -> None:
    entry = changelog("+-   ``RequestContext`` is now a deprecated alias of ``AppContext``.")
    result = judge("merge app and request context", change("src/flask/ctx.py"), entry)
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)
    assert result.flags.breaking


def test_changelog_entry_describing_a_new_parameter_default_is_not_a_default_change() -> None:
    entry = changelog("+-   ``open_resource`` takes an ``encoding`` parameter. It defaults to ``utf-8``.")
    result = judge("Add encoding parameter to open resource", change("src/flask/app.py"), entry)
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)


def test_changelog_entry_with_a_security_advisory_is_a_security_fix() -> None:
    entry = changelog("+-   Fix signing key selection order. :ghsa:`4grg-w6v8-c28g`")
    result = judge("key order", change("src/flask/sessions.py"), entry)
    assert result.type == ChangeType.fix
    assert result.flags.security


def fragment(path: str, *lines: str, status: FileStatus = FileStatus.added) -> ContextFile:
    """A news fragment (a file per change) added with ``lines``."""
    text = f"@@ -0,0 +1,{len(lines)} @@\n" + "\n".join(f"+{line}" for line in lines) + "\n"
    return change(path, FileCategory.docs, status=status, text=text, additions=len(lines), deletions=0)


@pytest.mark.parametrize(
    ("path", "expected", "breaking"),
    [
        ("changelog/12345.bugfix.rst", ChangeType.fix, False),
        ("changelog/12345.feature.rst", ChangeType.feat, False),
        ("docs/changelog/12345.feature.rst", ChangeType.feat, False),
        ("docs/changelog.d/12345.bugfix.md", ChangeType.fix, False),
        ("changelog/12345.improvement.rst", ChangeType.feat, False),
        ("src/project/newsfragments/12345.deprecation", ChangeType.feat, True),
        ("changes/+orphan.bugfix.1.md", ChangeType.fix, False),
        ("changelog/12345.packaging.rst", ChangeType.build, False),
    ],
)
def test_a_news_fragment_is_an_entry_in_the_section_its_name_gives(
    path: str, expected: ChangeType, breaking: bool
) -> None:
    note = fragment(path, "The ``--strict`` flag now applies to", "every collected module.")
    result = judge("Rework module collection", change("src/project/collect.py"), note)
    assert (result.type, result.importance, result.flags.breaking) == (expected, Importance.medium, breaking)
    assert result.flags.user_facing
    assert result.summary[-1] == "The changelog says: The `--strict` flag now applies to every collected module."


def test_a_fragment_of_a_kind_no_section_names_is_read_by_its_words() -> None:
    note = fragment("changelog.d/12345.change.md", "Fixed the ``--strict`` flag for nested modules.")
    result = judge("Nested modules and --strict", change("src/project/collect.py"), note)
    assert (result.type, result.importance, result.flags.user_facing) == (ChangeType.fix, Importance.medium, True)


@pytest.mark.parametrize("path", ["news/12345.removal.rst", "changelog.d/12345.breaking.md"])
def test_a_removal_or_breaking_fragment_is_a_high_breaking_feature(path: str) -> None:
    note = fragment(path, "The ``--strict`` flag was removed.")
    result = judge("Rework module collection", change("src/project/collect.py"), note)
    assert (result.type, result.importance, result.flags.breaking) == (ChangeType.feat, Importance.high, True)


@pytest.mark.parametrize(
    "note",
    [
        fragment("changelog/12345.trivial.rst", "Tidy the collection loop."),
        fragment("newsfragments/12345.misc", "Tidy the collection loop."),
        fragment("changelog/12345.contrib.rst", "The test suite runs the collection loop twice."),
        fragment("changelog/12345.bugfix.rst", "Fixed an old bug.", status=FileStatus.modified),
    ],
)
def test_a_fragment_of_no_section_or_only_edited_says_nothing(note: ContextFile) -> None:
    result = judge("Rework module collection", change("src/project/collect.py"), note)
    assert (result.type, result.flags.user_facing) == (ChangeType.refactor, False)


def test_a_changelog_named_like_a_fragment_kind_is_still_read_by_its_entries() -> None:
    entry = changelog(" ### Fixed", "+- Empty configuration files are accepted", path="docs/changes.md")
    assert judge("config loading tweaks", change("src/config.rs"), entry).type == ChangeType.fix


def test_a_commit_changing_only_the_changelog_quotes_its_entries_and_judges_nothing_from_them() -> None:
    entry = changelog(" ## 5.2.0", " ### Security", "+- Fix a header injection, CVE-2024-51999 (breaking change)")
    result = judge("add note to history", entry)
    assert (result.type, result.importance) == (ChangeType.docs, Importance.low)
    assert not result.flags.security and not result.flags.breaking


def test_rewritten_changelog_entry_is_not_a_new_one() -> None:
    entry = changelog(
        "--   Fix type hint for `cli_runner.invoke`. :issue:`5645`",
        "+-   Fix type hint for ``cli_runner.invoke``. :issue:`5645`",
    )
    result = judge("markup", change("src/flask/testing.py", additions=1, deletions=1), entry)
    assert (result.type, result.importance) == (ChangeType.chore, Importance.low)
    assert "changelog" not in result.importance_reason


def test_changelog_only_change_stays_low_docs() -> None:
    result = judge("update CHANGES.rst", changelog("+-   Fix crash when the queue is empty."))
    assert (result.type, result.importance) == (ChangeType.docs, Importance.low)


# --------------------------------------------------------------------------- the patch when nothing else speaks


def test_change_without_type_evidence_that_adds_a_setting_is_a_feature() -> None:
    patch = (
        "@@ -10,2 +10,8 @@ class App:\n"
        '         "MAX_FORM_PARTS": 1000,\n'
        '+        "TRUSTED_HOSTS": None,\n'
        "+\n"
        "+    def check_trusted_hosts(self, request):\n"
        "+        return request.host in self.config['TRUSTED_HOSTS']\n"
    )
    result = judge(
        "configure and check request.trusted_hosts", change("src/flask/app.py", text=patch, additions=4, deletions=0)
    )
    assert (result.type, result.importance) == (ChangeType.feat, Importance.medium)
    assert "`TRUSTED_HOSTS`" in result.importance_reason


def test_new_names_in_a_change_that_shrinks_the_source_are_not_a_feature() -> None:
    patch = "@@ -1,9 +1,3 @@\n+def prepare_attn(state):\n+    return state\n" + "-    old()\n" * 6
    result = judge(
        "Prepare attn metadata in ModelState", change("engine/model_state.py", text=patch, additions=2, deletions=6)
    )
    # The diff mostly deletes: a clean-up, not a feature.
    assert (result.type, result.importance) == (ChangeType.refactor, Importance.low)
    assert "mostly deletes (6 lines removed, 2 added)" in result.importance_reason


def test_changed_condition_with_a_new_test_is_a_fix() -> None:
    source = "@@ -5,2 +5,2 @@\n-    if name in registry:\n+    if name in registry and not name.startswith('_'):\n"
    test = "@@ -0,0 +1,3 @@\n+def test_private_names_are_skipped():\n+    assert lookup('_x') is None\n"
    result = judge(
        "private names and the registry",
        change("src/engine/registry.py", text=source, additions=1, deletions=1),
        change("tests/test_registry.py", FileCategory.test, text=test, additions=2, deletions=0),
    )
    assert (result.type, result.importance) == (ChangeType.fix, Importance.medium)
    assert "src/engine/registry.py" in result.importance_reason


# --------------------------------------------------------------------------- merge commits


def test_pull_request_merge_is_judged_by_the_pull_request_title() -> None:
    body = "Fix crash when the request queue is empty\n\nThe queue was read after close."
    result = judge("Merge pull request #12 from acme/queue", SOURCE, body=body, parents=2)
    assert (result.type, result.importance) == (ChangeType.fix, Importance.high)
    assert result.one_line.startswith('"Fix crash when the request queue is empty"')


def test_branch_sync_merge_title_carries_no_evidence() -> None:
    result = judge("Merge branch 'security-fix-crash'", SOURCE, body="Conflicts:\n\tengine/core.py", parents=2)
    assert (result.type, result.importance) == (ChangeType.chore, Importance.low)
    assert not result.flags.security
    assert result.importance_reason.startswith("a merge whose title says nothing")


def test_branch_sync_merge_is_judged_by_its_content_and_high_only_for_a_security_fix() -> None:
    entry = changelog("+-   Fix crash when the session key rotates.")
    result = judge("Merge branch 'stable'", change("src/flask/sessions.py"), entry, parents=2)
    assert (result.type, result.importance) == (ChangeType.fix, Importance.medium)
    assert not result.flags.security
    advisory = changelog("+-   Fix crash when the session key rotates. :ghsa:`4grg-w6v8-c28g`")
    result = judge("Merge branch 'stable'", change("src/flask/sessions.py"), advisory, parents=2)
    assert (result.type, result.importance) == (ChangeType.fix, Importance.high)
    assert result.flags.security


def test_merge_title_on_a_single_parent_commit_is_an_ordinary_title() -> None:
    assert judge("Merge app and request context", SOURCE).importance_reason.startswith("source files")


# --------------------------------------------------------------------------- dependency bots


@pytest.mark.parametrize(
    ("manifest", "lockfile", "importance"),
    [
        ("engine-core/pyproject.toml", "uv.lock", Importance.medium),
        ("engine-core/Cargo.toml", "Cargo.lock", Importance.low),
    ],
)
def test_semver_major_bump_of_a_shipped_dependency_is_medium_where_one_version_serves_all(
    manifest: str, lockfile: str, importance: Importance
) -> None:
    """pip installs one version of a library for the whole environment; Cargo links each crate's own."""
    files = [change(manifest, FileCategory.build), change(lockfile, FileCategory.generated)]
    result = judge("chore(deps): bump reqwest from 0.11.27 to 0.12.3 (#592)", *files)
    assert (result.type, result.importance) == (ChangeType.build, importance)
    if importance == Importance.medium:
        assert "`reqwest` 0.11.27 → 0.12.3" in result.importance_reason


@pytest.mark.parametrize(
    ("subject", "paths"),
    [
        ("chore(deps): bump serde from 1.0.200 to 1.0.201", ["Cargo.toml", "Cargo.lock"]),
        ("chore(deps-dev): bump typescript from 5.9.3 to 6.0.2 in /npm", ["npm/package.json", "npm/yarn.lock"]),
        ("chore(deps): bump search from 0.43.0 to 0.44.0 in /website", ["website/package.json", "website/yarn.lock"]),
    ],
)
def test_routine_dev_and_website_dependency_bumps_stay_low(subject: str, paths: list[str]) -> None:
    assert judge_paths(subject, *paths) == (ChangeType.build, Importance.low)


# --------------------------------------------------------------------------- odd input


@pytest.mark.parametrize(
    "item",
    [
        commit(""),
        commit("   \n  "),
        commit("[]"),
        commit("[Bugfix]"),
        commit("Revert"),
        commit('Revert "Revert "Revert "Revert "x""""'),
        commit("fix:", body="BREAKING CHANGE:"),
        commit("Update logo", change("assets/logo.png", FileCategory.binary, binary=True, additions=0, deletions=0)),
        commit("x" * 5000, change("a", additions=0, deletions=0, text="-\n+\n---\n+++\n")),
    ],
)
def test_odd_input_never_raises(item: AnalysisInput) -> None:
    for language in ("zh", "en"):
        result = HeuristicAnalyzer(language=language).analyze_sync(item)
        assert result.one_line
        assert result.status == AnalysisStatus.ok


# --------------------------------------------------------------------------- rules extension


def test_extension_adds_a_repository_tag() -> None:
    rules = RuleSet.load({"tags": {"wasm": {"names": ["wasm"], "narrow": True}}})
    result = HeuristicAnalyzer(language="en", rules=rules).analyze_sync(commit("[Wasm] Fix crash on start", SOURCE))
    assert result.importance == Importance.medium
    assert "Wasm" in result.importance_reason


def test_extension_with_unknown_key_is_rejected_with_its_path() -> None:
    with pytest.raises(ConfigError, match=r"tags\.wasm\.colour: unknown key"):
        RuleSet.load({"tags": {"wasm": {"names": ["wasm"], "colour": "red"}}})


def test_extension_with_bad_regex_or_placeholder_is_rejected() -> None:
    with pytest.raises(ConfigError, match=r"patterns\.mine\.pattern"):
        RuleSet.load({"patterns": {"mine": {"pattern": "(unclosed"}}})
    with pytest.raises(ConfigError, match="unknown placeholder"):
        RuleSet.load({"messages": {"en": {"change_one": "{titel}"}}})


def test_unknown_language_is_a_config_error() -> None:
    with pytest.raises(ConfigError, match="fr"):
        HeuristicAnalyzer(language="fr")


def test_an_entry_labelled_breaking_in_a_changelog_declares_the_break() -> None:
    entry = changelog(
        " # Unreleased",
        " ",
        "+- **breaking:** Remove the `OptionalFromRequestParts` impl for `Query` ([#3088])",
        path="axum/CHANGELOG.md",
    )
    result = judge("Remove an impl for Query (#3088)", change("axum/src/extract/query.rs"), entry)
    assert result.flags.breaking
    assert result.type == ChangeType.feat
    assert result.summary[-1].startswith("The changelog says: Remove the `OptionalFromRequestParts` impl")


_LABELLED_BULLETS = (
    " unreleased",
    " ==========",
    "+* remove:",
    "+  - `path-is-absolute` dependency - use `path.isAbsolute` instead",
)


def test_a_label_bullet_heads_the_bullets_nested_below_it_and_only_those() -> None:
    nested = changelog(*_LABELLED_BULLETS, "+* deps: debug@4.3.6", path="History.md")
    result = judge("Merge branch 'next'", change("lib/utils.js"), nested)
    assert result.flags.breaking
    assert result.summary[-2] == "The changelog says: `path-is-absolute` dependency - use `path.isAbsolute` instead."
    beside = changelog(" unreleased", " ==========", "+* change:", "+  - Cookies are signed", "+* deps: debug@4.3.6")
    assert not judge("Merge branch 'next'", change("lib/utils.js"), beside).flags.breaking


def test_an_entry_labelled_fixed_votes_for_a_fix() -> None:
    entry = changelog("+- **fixed:** Respect the default body limit in `JsonLines`", path="CHANGELOG.md")
    result = judge("json-lines: body limit (#3591)", change("src/json_lines.rs"), entry)
    assert result.type == ChangeType.fix


def test_security_words_about_the_policy_file_or_a_warning_flag_nothing() -> None:
    assert not judge("[Docs] Update SECURITY.md with a link", change("SECURITY.md", FileCategory.docs)).flags.security
    assert not judge("Add security warning to the bug report template", SOURCE).flags.security
    assert not judge("Add a contact to the vulnerability management team", SOURCE).flags.security
    assert not judge("Add a contact to the vuln mgmt team", SOURCE).flags.security
    assert judge("Fix a vulnerability in the media fetcher", SOURCE).flags.security


_LOOP = """\
def newest(items, since):
    found = []
    for item in items:
        if item.stamp > since:
            found.append(item.name)
    return found


COLUMNS = {
    'mtime': lambda p: datetime.fromtimestamp(p.stat().st_mtime, timezone.utc).replace(tzinfo=None).isoformat(),
    'size': lambda p: p.stat().st_size,
}
"""
_FORMATTED = (
    _LOOP.replace(".replace(tzinfo=None).isoformat(),", "\n    .replace(tzinfo=None)\n    .isoformat(),")
    .replace("'", '"')
    .replace("p.stat().st_size,\n", "p.stat().st_size,  \n")
)


@pytest.mark.parametrize(
    ("subject", "after", "expected"),
    [
        # A formatter's run: line breaks, quotes, trailing whitespace; the code does what it did.
        ("Ran the formatter", _FORMATTED, (ChangeType.chore, Importance.low)),
        # Only indentation differs, and it moves the return into the loop: a change of behaviour.
        ("Return early", _LOOP.replace("\n    return found", "\n        return found"), None),
        # Same layout, one name changed: code.
        ("Ran the formatter", _FORMATTED.replace("st_size", "st_blocks"), None),
    ],
)
def test_a_patch_that_only_lays_code_out_anew_is_a_low_chore(
    tmp_path: Path, subject: str, after: str, expected: tuple[ChangeType, Importance] | None
) -> None:
    repo = Repo(tmp_path, {"engine/files.py": _LOOP})
    analysis = analyse(repo.change(subject, {"engine/files.py": after}))
    if expected is None:
        assert analysis.importance != Importance.low or analysis.type != ChangeType.chore
    else:
        assert (analysis.type, analysis.importance) == expected
