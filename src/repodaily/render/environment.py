"""The Jinja2 environment every report template renders in.

Users may replace any packaged template by putting a file of the same name in
their templates directory, or extend one with
``{% extends "default:report.md.j2" %}``; the loader chain below makes both
work. Undefined names fail loudly (a typo in a template must not become an
empty section), and every error raised while loading or rendering a template
(a Jinja error, or Python's own from a user's template: ``{{ 1/0 }}``, a filter
given the wrong type, a template that includes itself) surfaces as
:class:`RenderError` naming the template and line.
"""

from __future__ import annotations

import functools
import re
import traceback
from datetime import datetime
from pathlib import Path
from zoneinfo import ZoneInfo

from jinja2 import (
    ChoiceLoader,
    Environment,
    FileSystemLoader,
    PrefixLoader,
    StrictUndefined,
    TemplateError,
    TemplateSyntaxError,
    pass_context,
)
from jinja2.runtime import Context
from markupsafe import Markup

from repodaily.controls import controls_except
from repodaily.errors import RenderError, RepodailyError
from repodaily.render import text
from repodaily.render.anchors import commit_anchor
from repodaily.render.labels import counted

PACKAGED_TEMPLATES = Path(__file__).parent / "templates"
DEFAULT_PREFIX = "default"


@functools.lru_cache(maxsize=16)
def create_environment(templates_dir: Path | None = None, *, html: bool = False) -> Environment:
    """An environment that looks in ``templates_dir`` first, then in the packaged templates.

    With ``html`` every value a template prints is HTML-escaped unless it is
    markup our code built (Jinja2's autoescape): the HTML templates print
    foreign text bare and the engine escapes it; they never mark it safe.

    Cached per directory: compiling the templates costs far more than rendering
    a report, and a backfill renders hundreds. Jinja still notices edited files.
    """
    packaged = FileSystemLoader(PACKAGED_TEMPLATES)
    loaders: list[FileSystemLoader | PrefixLoader] = []
    if templates_dir is not None:
        try:
            found = templates_dir.is_dir()
        except OSError:  # a name longer than the file system holds: no such directory either
            found = False
        if not found:
            raise RenderError(f"templates directory {templates_dir} does not exist")
        loaders.append(FileSystemLoader(templates_dir))
    loaders += [packaged, PrefixLoader({DEFAULT_PREFIX: packaged}, delimiter=":")]
    environment = Environment(
        loader=ChoiceLoader(loaders),
        undefined=StrictUndefined,
        autoescape=html,  # Markdown: the text filters do the escaping
        finalize=_html_text if html else None,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    register_filters(environment)
    return environment


def register_filters(environment: Environment) -> None:
    """All report filters, in one place, so every template gets the same safe set."""
    environment.filters.update(
        plain=text.plain,
        inline=text.inline,
        code=text.code,
        cell=text.cell,
        shorten=text.shorten,
        shown_lines=text.shown_lines,
        url=text.url,
        counted=counted,
        number=lambda n: f"{n:,}",
        anchor=lambda commit: commit_anchor(commit.short_sha),
        fill=_fill,
        spans=_spans,
        local_time=_local_time,
    )


_CONTROL = controls_except("\t\n\r\x85")  # the whitespace HTML keeps


def _html_text(value: object) -> object:
    """What an HTML template prints: control characters, which HTML forbids in text, shown as U+FFFD."""
    if isinstance(value, str) and not isinstance(value, Markup):
        return _CONTROL.sub("\ufffd", value)
    return value


# A code span as CommonMark pairs them on one line: a run of backticks, text, the same run.
_CODE_SPAN = re.compile(r"(?<!`)(`+)(?!`)(.+?)(?<!`)\1(?!`)")


def _spans(prose: str) -> Markup:
    """Foreign prose for an HTML page, cut as the Markdown cuts it (:func:`~repodaily.render.text.shorten`):
    escaped, its code spans (as the Markdown shows them) in ``<code>``."""
    escaped = str(Markup.escape(_CONTROL.sub("\ufffd", text.shorten(prose))))
    return Markup(_CODE_SPAN.sub(lambda match: f"<code>{match[2].strip()}</code>", escaped))


def _fill(phrase: str, **fields: object) -> Markup:
    """An HTML template's phrase with its ``{fields}`` filled: text escaped, markup the template built kept."""
    return Markup.escape(phrase).format(**fields)


@pass_context
def _local_time(context: Context, moment: datetime) -> str:
    """A commit time as the table shows it: wall-clock time in the report's timezone."""
    if moment.tzinfo is None:  # local time of the rendering machine would be a silent guess
        raise RenderError(f"commit time {moment.isoformat()} has no timezone")
    return moment.astimezone(ZoneInfo(context["report"].timezone)).strftime("%Y-%m-%d %H:%M:%S")


def template_error(error: Exception, template: str) -> RenderError:
    """A :class:`RenderError` that says which template and line failed, and why.

    Jinja rewrites the traceback of any error raised while rendering so that its
    frames name the template files and lines; the innermost one is where it failed.
    An error before any template line ran (one that cannot be read) names ``template``.
    """
    name: str | None
    line: int | None
    if isinstance(error, TemplateSyntaxError):
        name, line = error.filename or error.name, error.lineno
    else:
        frames = [frame for frame in traceback.extract_tb(error.__traceback__) if frame.filename.endswith(".j2")]
        name, line = (frames[-1].filename, frames[-1].lineno) if frames else (None, None)
    where = f"{name}, line {line}" if name else template
    if isinstance(error, TemplateError):
        reason = error.message or type(error).__name__
    elif isinstance(error, RepodailyError):  # raised on purpose by one of our filters
        reason = str(error)
    else:
        reason = f"{type(error).__name__}: {error}"
    return RenderError(f"{where}: {reason}")
