"""The offline texts say what changed: each kind of surface change in words, advice only when there is some.

Every commit is made by git in a temporary repository and analysed as a report
analyses it (:func:`pipeline_days.analysed_days`), in Chinese and in English.
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

from click.testing import CliRunner
from markdown_it import MarkdownIt
from pipeline_days import analysed_days
from report_checks import check_report

from repodaily.analyzers.heuristic.outline import read_outline
from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.models import Analysis, DailyReport, Importance

DAY = date(2026, 2, 9)
_BEFORE = datetime(2026, 2, 8, 12, tzinfo=UTC)
_ON_THE_DAY = datetime(2026, 2, 9, 12, tzinfo=UTC)
LANGUAGES = ("zh", "en")


def analyse(tmp_path: Path, before: dict[str, str], after: dict[str, str], message: str) -> dict[str, Analysis]:
    """The commit ``message`` that turns ``before`` into ``after``, analysed in both languages."""
    builder = RepoBuilder(tmp_path / "repo")
    builder.commit("Initial import", when=_BEFORE, files={"README.md": "# engine\n", **before})
    builder.commit(message, when=_ON_THE_DAY, files=after)
    found = {}
    for language in LANGUAGES:
        ((_, analysis),) = analysed_days(str(builder.path), "acme/engine", [DAY], language, tmp_path / language)
        found[language] = analysis
    return found


def advice(analysis: Analysis) -> list[str]:
    return [r.text for r in analysis.recommendations]


def _parser(content: str) -> str:
    return (
        f"import argparse\n\n\ndef make_parser():\n    parser = argparse.ArgumentParser()\n{content}    return parser\n"
    )


def _option(flag: str, default: str = "1") -> str:
    return f'    parser.add_argument("{flag}", type=int, default={default})\n'


# --------------------------------------------------------------------------- options and variables


def test_a_renamed_option_is_named_with_both_names_and_advice_to_rename(tmp_path: Path) -> None:
    before = {"engine/cli.py": _parser(_option("--workers") + _option("--max-batch"))}
    after = {"engine/cli.py": _parser(_option("--workers") + _option("--max-num-seqs"))}
    result = analyse(tmp_path, before, after, "Rename the batch option")
    assert result["en"].summary[0] == "Renames CLI option `--max-batch` to `--max-num-seqs`."
    assert result["zh"].summary[0] == "重命名命令行参数 `--max-batch` → `--max-num-seqs`。"
    assert advice(result["en"]) == [
        "Before upgrading, rename CLI option `--max-batch` to `--max-num-seqs` in your launch commands, configs"
        " and scripts."
    ]
    assert advice(result["zh"]) == ["升级前在启动命令、配置和脚本中改用新名称：`--max-batch` → `--max-num-seqs`。"]
    assert result["en"].impact_scope[0] == "command-line options"
    assert result["zh"].impact_scope[0] == "命令行参数"


def test_a_removed_environment_variable_risks_being_lost_silently(tmp_path: Path) -> None:
    module = "import os\n\n\ndef legacy_mode():\n    return os.environ.get({name}, '0') == '1'\n"
    before = {"engine/runtime.py": module.format(name='"ENGINE_LEGACY_MODE"') + "\n\nX = 1\n"}
    after = {"engine/runtime.py": "import os\n\n\nX = 1\n"}
    result = analyse(tmp_path, before, after, "feat!: drop the legacy mode")
    en, zh = result["en"], result["zh"]
    assert en.importance == Importance.high  # risks show only for high
    assert en.summary[0] == "Removes env var `ENGINE_LEGACY_MODE`; removes public definitions `legacy_mode`."
    assert zh.summary[0] == "移除环境变量 `ENGINE_LEGACY_MODE`；移除公开定义 `legacy_mode`。"
    assert (
        en.risks[0] == "Deployments that set `ENGINE_LEGACY_MODE` lose its effect silently: nothing reads it any more."
    )
    assert zh.risks[0] == "设置了 `ENGINE_LEGACY_MODE` 的部署会悄无声息地失去其效果，不会报错。"
    assert "drop env var `ENGINE_LEGACY_MODE`" in advice(en)[0]
    assert "Incompatible change: removes env var `ENGINE_LEGACY_MODE`" in en.insights[0].text


def test_a_changed_default_names_both_values_and_how_to_keep_the_old_one(tmp_path: Path) -> None:
    config = "from dataclasses import dataclass\n\n\n@dataclass\nclass SchedulerConfig:\n    max_num_seqs: int = {}\n"
    result = analyse(
        tmp_path,
        {"engine/config.py": config.format(256)},
        {"engine/config.py": config.format(128)},
        "Tune the scheduler",
    )
    assert result["en"].summary[0] == "Changes the default of config key `max_num_seqs` from `256` to `128`."
    assert result["zh"].summary[0] == "修改配置项默认值 `max_num_seqs`：`256` → `128`。"
    assert "Set `max_num_seqs` to `256` explicitly to keep the old behaviour." in advice(result["en"])
    # A changed default is breaking (RUBRIC.md), and the insight says what moves.
    expected = "Incompatible change: changes the default of config key `max_num_seqs` from `256` to `128`."
    assert [i.text for i in result["en"].insights] == [expected]
    assert "如需保持旧行为，请显式设置 `max_num_seqs` = `256`。" in advice(result["zh"])


# --------------------------------------------------------------------------- registries, routes, definitions


def test_registered_architectures_and_backends_and_routes_are_named_without_advice(tmp_path: Path) -> None:
    registry = '_MODELS = {{\n    "LlamaForCausalLM": ("llama", "LlamaForCausalLM"),\n{}}}\n'
    server = "from fastapi import FastAPI\n\napp = FastAPI()\n{}"
    route = '\n\n@app.post("/v1/rerank")\nasync def rerank():\n    return {}\n'
    backends = 'def setup():\n    register_attention_backend("FOO_ATTN", object)\n'
    result = analyse(
        tmp_path,
        {"engine/registry.py": registry.format(""), "engine/server.py": server.format("")},
        {
            "engine/registry.py": registry.format('    "FooForCausalLM": ("foo", "FooForCausalLM"),\n'),
            "engine/server.py": server.format(route),
            "engine/backends.py": backends,
        },
        "Serve Foo models",
    )
    en, zh = result["en"], result["zh"]
    assert "registers model architecture `FooForCausalLM`" in en.summary[0]
    assert "registers backend `FOO_ATTN`" in en.summary[0]
    assert en.summary[0].startswith("Adds route `POST /v1/rerank`")
    assert "注册模型架构 `FooForCausalLM`" in zh.summary[0] and "新增路由 `POST /v1/rerank`" in zh.summary[0]
    assert en.impact_scope[:3] == ["HTTP API routes", "model registry", "backend registry"]
    assert zh.impact_scope[:3] == ["HTTP 接口", "模型注册表", "后端注册表"]
    assert en.recommendations == [] and zh.recommendations == []


def test_many_public_definitions_are_named_a_few_and_counted(tmp_path: Path) -> None:
    module = "".join(f"def helper_{n}(value):\n    return value + {n}\n\n\n" for n in range(7))
    result = analyse(tmp_path, {}, {"engine/helpers.py": module}, "Add helpers")
    assert result["en"].summary[0] == ("Adds public definitions `helper_0`, `helper_1`, `helper_2` and 4 more.")
    assert result["zh"].summary[0] == "新增公开定义 `helper_0`、`helper_1`、`helper_2` 等 7 项。"


def test_a_raised_floor_advises_upgrading_first(tmp_path: Path) -> None:
    result = analyse(
        tmp_path, {"requirements.txt": "numpy\ntorch>=2.10\n"}, {"requirements.txt": "numpy\ntorch>=2.11\n"}, "Bump"
    )
    en, zh = result["en"], result["zh"]
    assert en.summary[0] == "Raises the minimum version of dependency `torch` from `2.10` to `2.11`."
    assert zh.summary[0] == "提高依赖最低版本 `torch`：`2.10` → `2.11`。"
    floor = next(r for r in en.recommendations if r.text.startswith("Upgrade"))
    assert (floor.audience, floor.text) == ("operators", "Upgrade `torch` to `2.11` or later before updating.")
    assert "更新前先把依赖升级到 `torch` ≥ `2.11`。" in advice(zh)
    assert en.impact_scope[0] == "dependency versions"


# --------------------------------------------------------------------------- deprecations


def _warning(text: str) -> str:
    warn = f"        warnings.warn({text!r}, DeprecationWarning)\n"
    return f"import warnings\n\n\ndef check(args):\n    if args.old_flag:\n{warn}"


def _error(text: str) -> str:
    return f"def check(args):\n    if args.old_flag:\n        raise ValueError({text!r})\n"


NOTICE = "--old-flag is deprecated, use --new-flag"


def test_a_deprecation_names_its_replacement_and_advises_moving_off(tmp_path: Path) -> None:
    before = {"engine/checks.py": "def check(args):\n    return args\n"}
    result = analyse(tmp_path, before, {"engine/checks.py": _warning(NOTICE)}, "Deprecate the old flag")
    assert result["en"].summary[0] == "Deprecates `--old-flag` (use `--new-flag` instead)."
    assert result["zh"].summary[0] == "弃用 `--old-flag`（改用 `--new-flag`）。"
    assert "Move off `--old-flag` (use `--new-flag` instead) before it is removed." in advice(result["en"])
    assert "在 `--old-flag`（改用 `--new-flag`） 被移除之前迁移出去。" in advice(result["zh"])


def test_a_deprecation_that_now_raises_says_so(tmp_path: Path) -> None:
    before, after = {"engine/checks.py": _warning(NOTICE)}, {"engine/checks.py": _error(NOTICE)}
    result = analyse(tmp_path, before, after, "feat!: reject the deprecated old flag")
    en, zh = result["en"], result["zh"]
    assert en.summary[0] == "Makes `--old-flag` (use `--new-flag` instead) raise an error instead of a warning."
    assert zh.summary[0] == "`--old-flag`（改用 `--new-flag`） 由警告改为报错。"
    assert advice(en)[0] == "Stop using `--old-flag` (use `--new-flag` instead) now: it raises an error."
    assert en.risks == ["Code that still uses `--old-flag` now fails instead of warning."]
    assert zh.risks == ["仍使用 `--old-flag` 的代码会从警告变为报错。"]


def test_a_deprecated_name_removed_is_a_removal(tmp_path: Path) -> None:
    before = {"engine/checks.py": _warning("--old-flag is deprecated") + "\n\nX = 1\n"}
    after = {"engine/checks.py": "def check(args):\n    return args\n\n\nX = 1\n"}
    result = analyse(tmp_path, before, after, "Remove the old flag")
    assert result["en"].summary[0] == "Removes deprecated `--old-flag`."
    assert result["zh"].summary[0] == "移除已弃用的 `--old-flag`。"


# --------------------------------------------------------------------------- no surface


SCHEDULER = (
    "class Scheduler:\n    def __init__(self):\n        self.queue = []\n\n"
    "    def step(self):\n        if self.queue:\n            return self.queue.pop()\n        return None\n"
)


def test_without_surface_the_summary_names_the_definitions_and_tests_and_gives_no_advice(tmp_path: Path) -> None:
    fixed = SCHEDULER.replace("if self.queue:", "if self.queue and self.queue[0] is not None:")
    test = "from engine.scheduler import Scheduler\n\n\ndef test_step_skips_empty_slot():\n    assert Scheduler()\n"
    body = "The queue kept a None entry after a cancelled request, and step returned it to the worker."
    result = analyse(
        tmp_path,
        {"engine/scheduler.py": SCHEDULER},
        {"engine/scheduler.py": fixed, "tests/test_scheduler.py": test},
        f"[Bugfix] Fix a crash in the scheduler step\n\n{body}\n",
    )
    en, zh = result["en"], result["zh"]
    assert en.importance != Importance.low
    assert en.summary == [
        f"The message says: {body}",
        "Changes `Scheduler.step`; adds tests `test_step_skips_empty_slot`.",
    ]
    assert zh.summary[-1] == "修改 `Scheduler.step`；新增测试 `test_step_skips_empty_slot`。"
    assert en.recommendations == [] and zh.recommendations == []
    assert en.impact_scope[0] == "engine/scheduler.py"


def test_a_body_that_restates_the_title_is_not_quoted(tmp_path: Path) -> None:
    fixed = SCHEDULER.replace("if self.queue:", "if self.queue and self.queue[0] is not None:")
    result = analyse(
        tmp_path,
        {"engine/scheduler.py": SCHEDULER},
        {"engine/scheduler.py": fixed},
        "[Bugfix] Fix a crash in the scheduler step\n\nFixes the crash in the scheduler step.\n",
    )
    assert result["en"].summary == ["Changes `Scheduler.step`."]


def test_a_report_without_recommendations_is_valid_and_shows_no_empty_section(tmp_path: Path) -> None:
    fixed = SCHEDULER.replace("if self.queue:", "if self.queue and self.queue[0] is not None:")
    result = analyse(tmp_path, {"engine/scheduler.py": SCHEDULER}, {"engine/scheduler.py": fixed}, "[Bugfix] Fix step")
    assert result["en"].importance == Importance.medium and result["en"].recommendations == []
    for language, heading in (("zh", "关注建议"), ("en", "Recommendations")):
        args = [
            "report",
            str(tmp_path / "repo"),
            "--name",
            "acme/engine",
            "--date",
            DAY.isoformat(),
            "--lang",
            language,
        ]
        cache = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
        markdown = CliRunner().invoke(main, args, env=cache, catch_exceptions=False).stdout
        report = CliRunner().invoke(main, [*args, "--format", "json"], env=cache, catch_exceptions=False).stdout
        check_report(markdown, DailyReport.model_validate_json(report))
        assert heading not in markdown and "`Scheduler.step`" in markdown


# --------------------------------------------------------------------------- hostile names


HOSTILE = "/x`y<script>alert(1)</script>](javascript:alert(1))"


def test_hostile_identifiers_stay_inert_code(tmp_path: Path) -> None:
    server = "from fastapi import FastAPI\n\napp = FastAPI()\n{}"
    route = f'\n\n@app.get("{HOSTILE}")\nasync def hostile():\n    return {{}}\n'
    config = 'from dataclasses import dataclass\n\n\n@dataclass\nclass Config:\n    label: str = "{}"\n'
    result = analyse(
        tmp_path,
        {"engine/server.py": server.format(""), "engine/config.py": config.format("plain")},
        {"engine/server.py": server.format(route), "engine/config.py": config.format("``<b>x</b>](y)")},
        "Add a route",
    )
    markdown = MarkdownIt("gfm-like")
    for language, analysis in result.items():
        texts = [*analysis.summary, *advice(analysis), *analysis.risks, *analysis.impact_scope]
        assert any(f"GET {HOSTILE}" in text for text in texts), language
        for text in texts:
            (line,) = markdown.parseInline(text)
            kinds = {token.type for token in line.children or []}
            assert not kinds & {"html_inline", "link_open", "image"}, text
            shown = [token.content for token in line.children or [] if token.type == "code_inline"]
            for payload in ("<script>", "](", "<b>"):
                if payload in text:
                    assert any(payload in span for span in shown), text


def test_the_outline_names_c_functions_from_hunk_headers_but_not_statements(tmp_path: Path) -> None:
    # Long enough that git names the enclosing function in the hunk header of a change at the end.
    body = "".join(f"    total += values[{n}];\n" for n in range(12))
    kernel = f"static int sum_values(const int *values)\n{{\n    int total = 0;\n{body}    return total;\n}}\n"
    script = "if callable(print):\n" + "".join(f"    step_{n} = {n}\n" for n in range(12))
    result = analyse(
        tmp_path,
        {"engine/csrc/sum.c": kernel, "engine/steps.py": script},
        {
            "engine/csrc/sum.c": kernel.replace("    return total;", "    return total > 0 ? total : 0;"),
            "engine/steps.py": script.replace("step_11 = 11", "step_11 = 12"),
        },
        "[Bugfix] Clamp negative sums",
    )
    assert result["en"].summary == ["Changes `sum_values`."]
    assert result["zh"].summary == ["修改 `sum_values`。"]


def test_prose_that_starts_with_a_definition_keyword_defines_nothing() -> None:
    # A docstring wrapped so that its lines begin "function returns ..." and "class of ...".
    patch = (
        "@@ -10,5 +10,5 @@ class Blocks:\n"
        "     def count(self):\n"
        '         """Count the blocks: the\n'
        "-        function returned 0 before.\n"
        "+        function returns 0 when none, and the\n"
        "+        class of each block is kept.\n"
        "+    struct that holds them\n"
        "+def helper(x):\n"
    )
    outline = read_outline([patch])
    assert outline.changed == ["Blocks.count"]
    assert outline.added == ["helper"] and outline.removed == []


def test_upgrade_advice_for_a_security_fix_in_the_product_only(tmp_path: Path) -> None:
    loader = "def load(path):\n    return open(path).read()\n"
    fixed = loader.replace("    return", "    if '..' in path:\n        raise ValueError(path)\n    return")
    product = analyse(
        tmp_path / "product",
        {"engine/loader.py": loader},
        {"engine/loader.py": fixed},
        "Reject path traversal in the loader",
    )
    assert advice(product["en"]) == ["Upgrade to a release with this commit soon and check whether you are affected."]
    assert advice(product["zh"]) == ["尽快升级到包含此提交的版本，并检查是否受该问题影响。"]
    guide = {"docs/security.md": "# Security\n\nMedia URLs are fetched: restrict them against SSRF.\n"}
    documented = analyse(tmp_path / "docs", {}, guide, "Document SSRF risks of media URLs")
    assert documented["en"].flags.security and documented["en"].importance == Importance.medium
    assert documented["en"].recommendations == [] and documented["zh"].recommendations == []


def test_a_removed_variable_with_a_named_replacement_is_to_be_replaced(tmp_path: Path) -> None:
    before = 'import os\n\n\ndef workers():\n    return int(os.environ.get("ENGINE_WORKERS", "1"))\n'
    after = (
        "import os\nimport warnings\n\n\ndef workers(args):\n"
        '    if "ENGINE_WORKERS" in os.environ:\n'
        '        warnings.warn("ENGINE_WORKERS is deprecated, use --workers", DeprecationWarning)\n'
        "    return args.workers\n"
    )
    title = "Deprecate ENGINE_WORKERS in favour of --workers"
    result = analyse(tmp_path, {"engine/runtime.py": before}, {"engine/runtime.py": after}, title)
    en, zh = result["en"], result["zh"]
    # The warning left for the variable adds nothing to its removal: it is told once.
    assert en.summary[0] == "Removes env var `ENGINE_WORKERS` (use `--workers` instead)."
    assert zh.summary[0] == "移除环境变量 `ENGINE_WORKERS`（改用 `--workers`）。"
    assert len(advice(en)) == 1 and advice(en)[0] == (
        "Before upgrading, replace env var `ENGINE_WORKERS` with `--workers` in your launch commands, configs"
        " and scripts."
    )
    assert advice(zh)[0] == "升级前在启动命令、配置和脚本中替换环境变量：`ENGINE_WORKERS` → `--workers`。"


# --------------------------------------------------------------------------- metrics, platforms, dependencies


def test_a_removed_metric_advises_updating_dashboards(tmp_path: Path) -> None:
    metrics = (
        "from prometheus_client import Counter\n\n"
        'REQUESTS = Counter("engine_requests_total", "Requests served")\n'
        'RETRIES = Counter("engine_retries_total", "Requests retried")\n'
    )
    kept = metrics.replace('RETRIES = Counter("engine_retries_total", "Requests retried")\n', "")
    result = analyse(tmp_path, {"engine/metrics.py": metrics}, {"engine/metrics.py": kept}, "Drop the retry counter")
    en, zh = result["en"], result["zh"]
    assert en.summary[0] == "Removes metric `engine_retries_total`."
    assert zh.summary[0] == "移除监控指标 `engine_retries_total`。"
    assert advice(en) == ["Before upgrading, update the dashboards and alerts that read `engine_retries_total`."]
    assert advice(zh) == ["升级前更新读取 `engine_retries_total` 的仪表盘和告警。"]
    assert en.impact_scope[0] == "metrics" and zh.impact_scope[0] == "监控指标"


def test_a_new_platform_is_named_and_scoped(tmp_path: Path) -> None:
    base = "class Platform:\n    name = 'base'\n"
    npu = "from engine.platforms.base import Platform\n\n\nclass NpuPlatform(Platform):\n    name = 'npu'\n"
    result = analyse(tmp_path, {"engine/platforms/base.py": base}, {"engine/platforms/npu.py": npu}, "Run on NPUs")
    # The platform's class is not named again as a public definition.
    assert result["en"].summary[0] == "Adds platform `NpuPlatform`."
    assert result["zh"].summary[0] == "新增平台 `NpuPlatform`。"
    assert result["en"].impact_scope[0] == "supported platforms"


def test_a_dependency_dropped_but_still_imported_is_to_be_installed_by_hand(tmp_path: Path) -> None:
    code = {"engine/audio.py": "import soundfile\n\n\ndef read(path):\n    return soundfile.read(path)\n"}
    before = {**code, "requirements.txt": "numpy>=1.26\nsoundfile>=0.12\n"}
    result = analyse(tmp_path, before, {"requirements.txt": "numpy>=1.26\n"}, "Make audio support optional")
    en, zh = result["en"], result["zh"]
    assert en.summary[0] == "Removes dependency `soundfile`."
    assert zh.summary[0] == "移除依赖 `soundfile`。"
    drop = next(r for r in en.recommendations if "soundfile" in r.text)
    assert (drop.audience, drop.text) == (
        "operators",
        "If you use features that need `soundfile`, install it yourself.",
    )
    assert "若使用需要 `soundfile` 的功能，请自行安装它。" in advice(zh)


def test_a_variable_removed_with_its_deprecation_warning_is_told_once(tmp_path: Path) -> None:
    before = (
        "import os\nimport warnings\n\n\ndef legacy():\n"
        '    if os.environ.get("ENGINE_OLD_CACHE"):\n'
        '        warnings.warn("ENGINE_OLD_CACHE is deprecated", DeprecationWarning)\n'
        "    return None\n"
    )
    after = "import os\nimport warnings\n\n\ndef legacy():\n    return None\n"
    result = analyse(tmp_path, {"engine/runtime.py": before}, {"engine/runtime.py": after}, "Drop the old cache switch")
    assert result["en"].summary[0] == "Removes env var `ENGINE_OLD_CACHE`."
    assert result["zh"].summary[0] == "移除环境变量 `ENGINE_OLD_CACHE`。"
    assert len(advice(result["en"])) == 1
