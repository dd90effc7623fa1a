"""The fields a publisher's templates name: a file's path, an e-mail's subject.

Every publisher offers the same names for the same report, so a user who wrote
``{year}/{repo}/{date}.md`` for files can write ``{repo} {date}`` for a subject.
A template is checked when the settings are read (an unknown field is a config
error naming it), not when the first report is delivered.
"""

from __future__ import annotations

from collections.abc import Mapping

from repodaily.models import DailyReport

__all__ = ["REPORT_FIELDS", "check_template", "report_fields"]

#: The names every report offers, each a string.
REPORT_FIELDS = ("repo", "owner", "name", "date", "year", "month", "day", "lang")


def report_fields(report: DailyReport) -> dict[str, str]:
    """The value of each of :data:`REPORT_FIELDS` for ``report``."""
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


def check_template(template: str, what: str, sample: Mapping[str, object]) -> str:
    """``template`` filled with ``sample`` values, or a ValueError naming the field it cannot fill."""
    try:
        return template.format(**sample)
    except (KeyError, IndexError, AttributeError, ValueError) as exc:
        raise ValueError(f"unknown or malformed field in {what}: {exc}") from None
