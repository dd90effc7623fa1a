import json
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from click.testing import CliRunner

from repodaily.cli import main
from repodaily.demo.repo_builder import RepoBuilder
from repodaily.errors import ConfigError
from repodaily.plan import day_window, resolve_days

SHANGHAI = ZoneInfo("Asia/Shanghai")
NOW = datetime(2026, 2, 10, 1, 30, tzinfo=SHANGHAI)  # 2026-02-09 17:30 UTC


def test_default_day_is_yesterday_in_the_report_timezone():
    assert resolve_days(day=None, since=None, until=None, tz=SHANGHAI, now=NOW) == [date(2026, 2, 9)]
    # The same instant is still 2026-02-09 in UTC, so UTC's yesterday is the 8th.
    assert resolve_days(day=None, since=None, until=None, tz=ZoneInfo("UTC"), now=NOW) == [date(2026, 2, 8)]


def test_window_covers_the_whole_local_day_inclusive():
    window = day_window(date(2026, 2, 9), SHANGHAI)
    assert window.start.isoformat() == "2026-02-09T00:00:00+08:00"
    assert window.end.isoformat() == "2026-02-09T23:59:59+08:00"


# Zones whose clocks jump at midnight: back an hour (Santiago in April, Cairo and Beirut in October), forward
# (Havana, Tehran), by half an hour (Lord Howe), and a whole day skipped (Apia, 2011-12-30).
_MIDNIGHT_JUMPS = [
    ("America/Santiago", 2026),
    ("Africa/Cairo", 2024),
    ("Asia/Beirut", 2024),
    ("America/Havana", 2026),
    ("Asia/Tehran", 2022),
    ("Australia/Lord_Howe", 2026),
    ("Pacific/Apia", 2011),
]


@pytest.mark.parametrize(("zone", "year"), _MIDNIGHT_JUMPS)
def test_the_days_of_a_year_tile_time_whatever_the_clock_does_at_midnight(zone: str, year: int):
    """Each second belongs to exactly one day: none falls between two days, none is in two.

    Cut at 23:59:59 on the clock, a day whose midnight is turned back an hour
    (Santiago's 2026-04-04) ended before the repeated hour and the next began
    after it: that hour's commits were in no report. A day the clock skips
    holds no second at all.
    """
    tz = ZoneInfo(zone)
    days = [date(year, 1, 1) + timedelta(days=n) for n in range(366)]
    windows = [day_window(day, tz) for day in days]
    for before, after in zip(windows, windows[1:], strict=False):
        assert after.start.timestamp() == before.end.timestamp() + 1, (before, after)
        assert before.start <= before.end or before.day == date(2011, 12, 30)


def test_a_commit_in_the_hour_a_clock_repeats_at_midnight_is_reported_once(tmp_path):
    builder = RepoBuilder(tmp_path / "repo")
    santiago = ZoneInfo("America/Santiago")
    builder.commit("Before", when=datetime(2026, 4, 3, 12, tzinfo=santiago))
    repeated = datetime(2026, 4, 5, 3, 30, tzinfo=UTC)  # 23:30 on the 4th, the second time round
    builder.commit("In the repeated hour", when=repeated)
    result = CliRunner().invoke(
        main,
        [
            "report",
            str(builder.path),
            "--name",
            "o/r",
            "--since",
            "2026-04-04",
            "--until",
            "2026-04-05",
            "--timezone",
            "America/Santiago",
            "--format",
            "json",
            "--output",
            str(tmp_path / "out"),
        ],
        env={"XDG_CACHE_HOME": str(tmp_path / "cache")},
    )
    assert result.exit_code == 0, result.output
    reports = sorted((tmp_path / "out").rglob("*.json"))
    subjects = {p.stem: [c["subject"] for c in json.loads(p.read_text())["commits"]] for p in reports}
    assert subjects == {"2026-04-04": ["In the repeated hour"], "2026-04-05": []}


def test_range_is_listed_oldest_first():
    days = resolve_days(day=None, since="2026-02-01", until="2026-02-03", tz=SHANGHAI, now=NOW)
    assert days == [date(2026, 2, 1), date(2026, 2, 2), date(2026, 2, 3)]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"day": "2026-02-11"}, "in the future"),
        ({"day": "yesterday"}, "is not a date"),
        ({"since": "2026-02-05", "until": "2026-02-01"}, "is after --until"),
        ({"until": "2026-02-01"}, "--until needs --since"),
        ({"day": "2026-02-01", "since": "2026-02-01"}, "either --date or --since"),
        ({"since": "2000-01-01", "until": "2026-01-01"}, "at most"),
        ({"day": ""}, "--date '' is not a date"),
        ({"since": ""}, "--since '' is not a date"),
        ({"since": "2026-02-01", "until": ""}, "--until '' is not a date"),
        ({"day": "", "since": ""}, "either --date or --since"),
        ({"day": "0001-01-01"}, "before 1970"),
    ],
)
def test_bad_days_are_refused_with_a_clear_message(kwargs, message):
    args = {"day": None, "since": None, "until": None, **kwargs}
    with pytest.raises(ConfigError, match=message):
        resolve_days(**args, tz=SHANGHAI, now=NOW)


def test_today_is_allowed_as_a_partial_day():
    assert resolve_days(day="2026-02-10", since=None, until=None, tz=SHANGHAI, now=NOW) == [date(2026, 2, 10)]
