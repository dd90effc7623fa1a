"""The Markdown message DingTalk and WeCom robots show: the same summary, the same subset of Markdown.

Both render a small Markdown (headings, bold, links, quotes, code, a few tags)
and document no escape for it, so foreign text goes through
:func:`~repodaily.publish.chat.escape.markdown`: one line, markup characters as
look-alikes. Every line starts with our own words or ``-``, so no foreign text
opens a heading, quote or list; the only links are ours.
"""

from __future__ import annotations

from repodaily.publish.chat.escape import link_target, markdown
from repodaily.publish.chat.summary import Summary

__all__ = ["summary_markdown"]


def summary_markdown(summary: Summary) -> str:
    """``summary`` as the robots' Markdown: blocks separated by a blank line, commits as a list."""
    blocks = [f"#### {markdown(summary.title)}", summary.stats]
    if summary.highlights:
        blocks.append(f"**{summary.highlights_heading}**")
        blocks.append("\n".join(f"- {markdown(highlight)}" for highlight in summary.highlights))
    if summary.items:
        blocks.append(f"**{summary.items_heading}**")
        lines = []
        for item in summary.items:
            url = link_target(item.url)
            title = f"[{markdown(item.title)}]({url})" if url else markdown(item.title)
            lines.append(f"- {title}{summary.dash}{markdown(item.line)}")
        blocks.append("\n".join(lines))
    if summary.more:
        blocks.append(summary.more)
    if summary.report_url:
        blocks.append(f"[{summary.report_label}]({summary.report_url})")
    return "\n\n".join(blocks)
