"""The publisher protocol: a rendered report is delivered somewhere, and says where.

A publisher is made once per run by the factory its plugin registers, called
with keyword arguments ``settings`` (its own model, validated from its
``[[publish]]`` table, whose ``type`` names the plugin) and ``context``
(:class:`PublishContext`). It is given each report with its artefacts as soon
as the report is made, and closed when the run ends. Everything it sends passes
through ``context.redact`` first, so no credential leaves in a report.

The pipeline keeps a delivery ledger (:mod:`repodaily.delivery`) and hands a
publisher only what its target does not have yet, unless the publisher sets a
true ``repeatable`` attribute (delivering the same report again changes nothing
a reader notices: a file overwritten with the same bytes, stdout).
"""

from __future__ import annotations

import os
import string
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from repodaily.models import DailyReport
from repodaily.redact import NO_SECRETS, Redactor
from repodaily.render.base import Artefact
from repodaily.weekly import WeeklyDigest

__all__ = [
    "TEMPLATE_FIELDS",
    "Delivery",
    "PublishContext",
    "Publisher",
    "WeeklyPublisher",
    "check_template",
    "fill_template",
    "report_fields",
]

#: The fields a publisher's template for one report (a file path, a link) can use.
TEMPLATE_FIELDS = ("repo", "owner", "name", "date", "year", "month", "day", "lang")


@dataclass(frozen=True)
class PublishContext:
    """What the core hands every publisher for a run."""

    #: Say what would be delivered instead of delivering it.
    dry_run: bool = False
    redact: Redactor = NO_SECRETS
    #: How many days each repository's run covers (a stream of several can be framed as one).
    days: int = 1
    #: Where a publisher reads the secrets its ``*_env`` settings name (tokens, webhook URLs,
    #: passwords, signing secrets): never from the config itself.
    environ: Mapping[str, str] = field(default_factory=lambda: os.environ)


@dataclass(frozen=True)
class Delivery:
    """What one publisher did with one report: where it went, or what a dry run would send."""

    publisher: str
    #: Where each artefact went: file paths, URLs; empty for a stream such as stdout.
    locations: list[str] = field(default_factory=list)
    #: What a dry run would have delivered, for the user to read; None when it was delivered.
    preview: str | None = None


@runtime_checkable
class Publisher(Protocol):
    """Delivers reports; :class:`~repodaily.errors.PublishError` when a delivery fails."""

    async def publish(self, report: DailyReport, artefacts: Sequence[Artefact]) -> Delivery:
        """Deliver ``report``'s ``artefacts``; a rerun of the same report must not deliver it twice."""
        ...

    async def aclose(self) -> None:
        """The run is over: finish what is framed across reports, release connections."""
        ...


@runtime_checkable
class WeeklyPublisher(Protocol):
    """A publisher that also delivers a week's digest: an optional second method beside :meth:`Publisher.publish`.

    ``repodaily digest --deliver`` hands each target whose publisher has it the
    week's :class:`~repodaily.weekly.WeeklyDigest` with its artefacts; a target
    without it is skipped, saying so. The ledger keeps a week from being sent twice.
    """

    async def publish_week(self, digest: WeeklyDigest, artefacts: Sequence[Artefact]) -> Delivery:
        """Deliver ``digest``'s ``artefacts``; :class:`~repodaily.errors.PublishError` when it fails."""
        ...


def report_fields(report: DailyReport) -> dict[str, str]:
    """The value of each of :data:`TEMPLATE_FIELDS` for ``report``: ``{repo}`` is ``owner/name``, dates zero-padded."""
    owner, _, name = report.repo.partition("/")
    return {
        "repo": report.repo,
        "owner": owner,
        "name": name,
        "date": report.date.isoformat(),
        "year": f"{report.date.year:04d}",
        "month": f"{report.date.month:02d}",
        "day": f"{report.date.day:02d}",
        "lang": report.language,
    }


def fill_template(template: str, report: DailyReport) -> str:
    """``template`` (a path, a commit message, an issue title, a link) with ``report``'s fields."""
    return template.format(**report_fields(report))


def check_template(template: str, what: str, extra: Mapping[str, object] | None = None) -> str:
    """``template`` filled with a stand-in for each of :data:`TEMPLATE_FIELDS` (and ``extra``), to check it.

    A ValueError naming ``what`` and the field it cannot fill: a settings validator's message.
    A field is a bare name: ``str.format`` would also read an attribute or an item of a value
    (``{repo.__class__}``, ``{repo[0]}``), convert it or pad it to any width (``{date:>99999999}``,
    a hundred megabytes a report), none of which a path, subject or link has a use for.
    """
    values = {**dict.fromkeys(TEMPLATE_FIELDS, "x"), **(extra or {})}
    try:
        for _, field, spec, conversion in string.Formatter().parse(template):
            if field is not None and (field not in values or spec or conversion):
                shown = field + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "")
                raise ValueError(repr(shown))
        return template.format(**values)
    except (KeyError, IndexError, AttributeError, ValueError) as exc:
        raise ValueError(f"unknown or malformed field in {what}: {exc}") from None
