from datetime import date, datetime
from zoneinfo import ZoneInfo

import pytest

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
