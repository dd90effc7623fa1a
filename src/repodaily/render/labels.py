"""Every word the report prints, in Chinese and in English.

Templates hold structure and these hold wording, so a language is one object
and a template never carries a string literal a reader would see. Phrases with
a count use ``{n}`` (and ``{s}`` for an English plural); the ``counted`` filter
fills them.
"""

from __future__ import annotations

from dataclasses import dataclass

IMPORTANCE_EMOJI = {"high": "🔴", "medium": "🟡", "low": "🟢"}


@dataclass(frozen=True)
class Labels:
    """The wording of one report language; field names say where each one appears."""

    title: str
    timezone: str
    commits: str
    analyzer: str
    model: str
    prompt_version: str
    degraded_banner: str
    incomplete_banner: str
    released: str
    prerelease: str
    no_pull_context: str
    empty_day: str
    highlights: str
    no_highlights: str
    commit_list: str
    table_header: str
    stats: str
    stats_total: str
    stats_item: str
    stats_degraded: str
    by_type: str
    links: str
    reverts: str
    series: str
    toc: str
    group_heading: str
    view_commit: str
    pull_title: str
    pull_labels: str
    linked_issues: str
    type: str
    secondary_types: str
    importance: str
    security: str
    breaking: str
    summary: str
    impact_scope: str
    insights: str
    risks: str
    recommendations: str
    degraded_marker: str
    encoding_note: str
    missing_note: str
    files_incomplete_note: str
    evidence: str
    no_files: str
    more_files: str
    names: str
    footer_prompt: str
    footer_cached: str
    footer_degraded: str
    field_sep: str
    dash: str
    colon: str
    list_sep: str
    surface_sep: str
    surface_more: str
    types: dict[str, str]
    importance_names: dict[str, str]
    highlight_kinds: dict[str, str]
    surface_actions: dict[str, str]
    aspects: dict[str, str]
    audiences: dict[str, str]
    coverage: dict[str, str]


ZH = Labels(
    title="每日更新报告（{date}）",
    timezone="时区",
    commits="{n} 个提交",
    analyzer="分析器",
    model="模型",
    prompt_version="（提示词 {version}）",
    degraded_banner="⚠️ {n} 个提交的模型分析失败，已改用启发式分析（见各提交的标注）。",
    incomplete_banner="❗ 仓库缺少 {n} 个提交的部分文件内容（对象缺失），这些文件只按文件名判断（见各提交的标注）。",
    released="🚀 今日发布：{releases}",
    prerelease="（预发布）",
    no_pull_context="ℹ️ 未能读取拉取请求（PR）信息：本报告的分析没有参考 PR 的标题、标签和描述。",
    empty_day="本日无提交。",
    highlights="📌 今日要点",
    no_highlights="今日没有破坏性、安全、默认值、新增、发布或高重要度的变更。",
    commit_list="📜 提交列表",
    table_header="| 提交时间 | 作者 | 提交信息 |",
    stats="📊 统计摘要",
    stats_total="本日共 {n} 个提交",
    stats_item="{emoji}{name} {n}",
    stats_degraded="⚠️降级 {n}",
    by_type="按类型：",
    links="🔗 关联提交",
    reverts="回滚了",
    series="系列",
    toc="📋 目录",
    group_heading="{emoji} {name}重要度变更 ({n})",
    view_commit="查看提交",
    pull_title="PR 标题",
    pull_labels="标签",
    linked_issues="关联 issue",
    type="🎯 变更类型",
    secondary_types="（另：{types}）",
    importance="⚡ 重要程度",
    security="🔒 安全相关",
    breaking="💥 破坏性变更",
    summary="📋 变更摘要",
    impact_scope="🎯 影响范围",
    insights="🔍 技术洞察",
    risks="⚠️ 潜在风险",
    recommendations="💡 关注建议",
    degraded_marker="⚠️ 模型分析失败，以下为启发式分析",
    encoding_note="ℹ️ 提交中的非 UTF-8 字节已替换为 U+FFFD（字段：{fields}）。",
    missing_note="❗ 仓库缺少这些文件的内容，未能读取其改动：{files}",
    files_incomplete_note="❗ 来源只列出了此提交的部分文件（GitHub 每个提交最多列出 3000 个），其余文件的改动未读取。",
    evidence="📎 分析依据：",
    no_files="无文件变更",
    more_files="等",
    names="（{names}）",
    footer_prompt="提示词 {version}",
    footer_cached="提示词缓存命中 {n} token",
    footer_degraded="降级 {n}",
    field_sep="　",
    dash=" —— ",
    colon="：",
    list_sep="、",
    surface_sep="；",
    surface_more="，另有 {n} 项",
    types={
        "feat": "功能增强",
        "fix": "Bug修复",
        "perf": "性能优化",
        "refactor": "代码重构",
        "docs": "文档更新",
        "test": "测试",
        "ci": "CI",
        "build": "构建与依赖",
        "chore": "杂项维护",
        "revert": "回滚",
    },
    importance_names={"high": "高", "medium": "中", "low": "低"},
    highlight_kinds={
        "breaking": "💥 破坏性变更",
        "security": "🔒 安全相关",
        "default_changed": "⚙️ 默认值变更",
        "added": "✨ 新增",
        "release": "🏷️ 发布",
        "high": "🔴 高重要度",
    },
    surface_actions={
        "added": "新增 ",
        "removed": "移除 ",
        "renamed": "更名 ",
        "default_changed": "默认值 ",
        "raised_floor": "最低版本 ",
        "deprecated": "弃用 ",
        "now_raises": "改为报错 ",
    },
    aspects={
        "architecture": "架构",
        "performance": "性能",
        "security": "安全",
        "compatibility": "兼容性",
        "maintainability": "可维护性",
    },
    audiences={"users": "用户", "operators": "运维", "developers": "开发者"},
    coverage={
        "full": "{n} 个文件全文",
        "clipped": "{n} 个文件节选",
        "stats_only": "{n} 个文件仅统计",
    },
)

EN = Labels(
    title="Daily update report ({date})",
    timezone="Timezone",
    commits="{n} commit{s}",
    analyzer="analyzer",
    model="model",
    prompt_version=" (prompt {version})",
    degraded_banner=("⚠️ Model analysis failed for {n} commit{s}; heuristic analysis is shown instead (marked below)."),
    incomplete_banner=(
        "❗ The repository lacks file contents of {n} commit{s} (missing objects); "
        "those files were judged by name only (marked below)."
    ),
    released="🚀 Released today: {releases}",
    prerelease=" (pre-release)",
    no_pull_context=(
        "ℹ️ Pull-request context could not be read: this report's analyses are made without PR titles, "
        "labels and descriptions."
    ),
    empty_day="No commits on this day.",
    highlights="📌 Highlights",
    no_highlights="No breaking, security, default, new, release or high-importance change on this day.",
    commit_list="📜 Commits",
    table_header="| Time | Author | Message |",
    stats="📊 Summary",
    stats_total="{n} commit{s} on this day",
    stats_item="{emoji} {name} {n}",
    stats_degraded="⚠️ Degraded {n}",
    by_type="By type: ",
    links="🔗 Related commits",
    reverts="reverts",
    series="Series",
    toc="📋 Contents",
    group_heading="{emoji} {name} importance ({n})",
    view_commit="View commit",
    pull_title="PR title",
    pull_labels="Labels",
    linked_issues="Closes",
    type="🎯 Type",
    secondary_types=" (also: {types})",
    importance="⚡ Importance",
    security="🔒 Security",
    breaking="💥 Breaking",
    summary="📋 Summary",
    impact_scope="🎯 Impact scope",
    insights="🔍 Technical insights",
    risks="⚠️ Risks",
    recommendations="💡 Recommendations",
    degraded_marker="⚠️ Model analysis failed; heuristic analysis shown",
    encoding_note="ℹ️ Non-UTF-8 bytes in this commit were replaced with U+FFFD (fields: {fields}).",
    missing_note="❗ The repository lacks the content of these files; their changes could not be read: {files}",
    files_incomplete_note=(
        "❗ The source listed only some of this commit's files (GitHub lists at most 3,000 a commit); "
        "the changes of the rest were not read."
    ),
    evidence="📎 Based on: ",
    no_files="no file changes",
    more_files=", …",
    names=" ({names})",
    footer_prompt="prompt {version}",
    footer_cached="{n} prompt token{s} served from cache",
    footer_degraded="{n} degraded",
    field_sep=" | ",
    dash=" — ",
    colon=": ",
    list_sep=", ",
    surface_sep="; ",
    surface_more=", and {n} more",
    types={
        "feat": "Feature",
        "fix": "Bug fix",
        "perf": "Performance",
        "refactor": "Refactor",
        "docs": "Documentation",
        "test": "Tests",
        "ci": "CI",
        "build": "Build & deps",
        "chore": "Maintenance",
        "revert": "Revert",
    },
    importance_names={"high": "High", "medium": "Medium", "low": "Low"},
    highlight_kinds={
        "breaking": "💥 Breaking",
        "security": "🔒 Security",
        "default_changed": "⚙️ Default changed",
        "added": "✨ New",
        "release": "🏷️ Release",
        "high": "🔴 High importance",
    },
    surface_actions={
        "added": "new ",
        "removed": "removed ",
        "renamed": "renamed ",
        "default_changed": "default of ",
        "raised_floor": "requires ",
        "deprecated": "deprecated ",
        "now_raises": "now raising ",
    },
    aspects={
        "architecture": "Architecture",
        "performance": "Performance",
        "security": "Security",
        "compatibility": "Compatibility",
        "maintainability": "Maintainability",
    },
    audiences={"users": "Users", "operators": "Operators", "developers": "Developers"},
    coverage={
        "full": "{n} file{s} read in full",
        "clipped": "{n} file{s} clipped",
        "stats_only": "{n} file{s} as stats only",
    },
)

LABELS: dict[str, Labels] = {"zh": ZH, "en": EN}


def counted(phrase: str, n: int) -> str:
    """Fill a counting phrase: ``"{n} commit{s}"`` with 1 gives "1 commit", with 1200 "1,200 commits"."""
    return phrase.format(n=f"{n:,}", s="" if n == 1 else "s")
