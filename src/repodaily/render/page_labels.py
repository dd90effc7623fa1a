"""The words of the HTML pages around a report (site navigation, filters, search) and of the weekly digest.

The report's own words stay in :mod:`repodaily.render.labels`; these are the
ones only a page in a browser shows.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class PageLabels:
    site_title: str
    home: str
    repositories: str
    last_days: str
    latest: str
    this_week: str
    days: str
    previous_day: str
    next_day: str
    search: str
    search_placeholder: str
    search_hint: str
    results: str
    no_results: str
    filters: str
    importance: str
    type: str
    all_types: str
    only: str
    breaking: str
    security: str
    user_facing: str
    feed: str
    no_reports: str
    skip: str
    weekdays: tuple[str, ...]


ZH = PageLabels(
    site_title="repodaily 每日更新",
    home="首页",
    repositories="关注的仓库",
    last_days="最近 {n} 天",
    latest="最新",
    this_week="本周周报",
    days="共 {n} 天",
    previous_day="← 前一天",
    next_day="后一天 →",
    search="搜索",
    search_placeholder="搜索提交、摘要、SHA…（按 / 聚焦）",
    search_hint="在所有仓库的所有日期中搜索；结果链接到提交所在的小节。",
    results="{n} 条结果",
    no_results="没有匹配的提交。",
    filters="筛选",
    importance="重要度",
    type="类型",
    all_types="全部类型",
    only="仅显示",
    breaking="破坏性",
    security="安全",
    user_facing="面向用户",
    feed="订阅",
    no_reports="尚无已保存的报告：先运行 `repodaily run` 或 `repodaily report`。",
    skip="跳到正文",
    weekdays=("一", "二", "三", "四", "五", "六", "日"),
)

EN = PageLabels(
    site_title="repodaily daily updates",
    home="Home",
    repositories="Watched repositories",
    last_days="Last {n} days",
    latest="Latest",
    this_week="This week",
    days="{n} days",
    previous_day="← Previous day",
    next_day="Next day →",
    search="Search",
    search_placeholder="Search commits, summaries, SHAs… (press / to focus)",
    search_hint="Searches every day of every repository; each result links to the commit's section.",
    results="{n} result(s)",
    no_results="No matching commit.",
    filters="Filters",
    importance="Importance",
    type="Type",
    all_types="All types",
    only="Only",
    breaking="breaking",
    security="security",
    user_facing="user-facing",
    feed="Feed",
    no_reports="No stored reports yet: run `repodaily run` or `repodaily report` first.",
    skip="Skip to content",
    weekdays=("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
)

PAGE_LABELS: dict[str, PageLabels] = {"zh": ZH, "en": EN}


@dataclass(frozen=True)
class WeekLabels:
    """The words of the weekly digest, in Markdown and HTML alike."""

    title: str
    totals: str
    per_day: str
    table_header: tuple[str, ...]
    total_row: str
    releases: str
    nothing: str
    main_types: str


WEEK_ZH = WeekLabels(
    title="周报 {week}（{start} — {end}）",
    totals="本周共 {n} 个提交",
    per_day="📊 每日统计",
    table_header=("日期", "提交", "🔴 高", "🟡 中", "🟢 低", "主要类型"),
    total_row="合计",
    releases="🚀 本周发布",
    nothing="无。",
    main_types="主要类型",
)

WEEK_EN = WeekLabels(
    title="Week {week} ({start} — {end})",
    totals="{n} commit{s} this week",
    per_day="📊 Per day",
    table_header=("Day", "Commits", "🔴 High", "🟡 Medium", "🟢 Low", "Main types"),
    total_row="Total",
    releases="🚀 Released this week",
    nothing="None.",
    main_types="Main types",
)

WEEK_LABELS: dict[str, WeekLabels] = {"zh": WEEK_ZH, "en": WEEK_EN}
