"""Plan the work: which report days, and the exact time window of each.

A report day D in timezone TZ covers committer dates from D 00:00:00 TZ to the
second before D+1 00:00:00 TZ: [D 00:00:00, D 23:59:59] on a day the clock keeps.
"Yesterday" is taken in TZ too, so a team in Shanghai and a CI runner in UTC agree
on what yesterday's report is.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from repodaily.errors import ConfigError

#: The longest backfill one invocation accepts; longer ones are almost always typos.
MAX_DAYS = 3660
#: git stores commit times as seconds since 1970; no day before holds a commit.
EARLIEST_DAY = date(1970, 1, 1)


@dataclass(frozen=True)
class DayWindow:
    day: date
    start: datetime
    end: datetime


def day_window(day: date, tz: ZoneInfo) -> DayWindow:
    """The inclusive window of committer times that belong to ``day`` in ``tz``: midnight to the next one, less 1 s.

    Days tile time: each second is in exactly one. Cut at 23:59:59 on the clock
    instead, a day whose midnight the clock turns back an hour (Santiago in
    April, Cairo and Beirut in October) would end before the repeated hour and
    the next day begin after it, and that hour's commits be in no report. A day
    the clock skips whole (Apia's 2011-12-30) ends before it starts: it holds none.
    """
    start = datetime.combine(day, time(0, 0, 0), tz)
    following = datetime.combine(day + timedelta(days=1), time(0, 0, 0), tz)
    # In UTC: arithmetic on datetimes of one zone moves the clock's hands, not time.
    end = (following.astimezone(UTC) - timedelta(seconds=1)).astimezone(tz)
    return DayWindow(day, start, end)


def today_in(tz: ZoneInfo, now: datetime | None = None) -> date:
    return (now or datetime.now(tz)).astimezone(tz).date()


def _parse_day(value: str, option: str) -> date:
    try:
        return date.fromisoformat(value)
    except ValueError:
        raise ConfigError(f"{option} {value!r} is not a date; use YYYY-MM-DD") from None


def resolve_days(
    *,
    day: str | None,
    since: str | None,
    until: str | None,
    tz: ZoneInfo,
    now: datetime | None = None,
) -> list[date]:
    """Turn ``--date`` or ``--since/--until`` into report days, oldest first.

    With neither, the answer is yesterday in ``tz``. Days after today in ``tz`` are
    refused: they have no commits yet, and a report of them would look like a
    quiet day. Today itself is allowed (a partial day, on purpose).
    """
    # An empty value is a value: ``--date ''`` (an unset shell variable) must not mean yesterday.
    if day is not None and (since is not None or until is not None):
        raise ConfigError("give either --date or --since/--until, not both")
    today = today_in(tz, now)
    first: date | None
    if day is not None:
        first = last = _parse_day(day, "--date")
    elif since is not None or until is not None:
        first = _parse_day(since, "--since") if since is not None else None
        last = _parse_day(until, "--until") if until is not None else today - timedelta(days=1)
        if first is None:
            raise ConfigError("--until needs --since")
    else:
        first = last = today - timedelta(days=1)
    if last > today:
        raise ConfigError(f"{last.isoformat()} is in the future (today is {today.isoformat()} in {tz.key})")
    if first > last:
        raise ConfigError(f"--since {first.isoformat()} is after --until {last.isoformat()}")
    if first < EARLIEST_DAY:
        raise ConfigError(f"{first.isoformat()} is before 1970: git has no commits that old")
    count = (last - first).days + 1
    if count > MAX_DAYS:
        raise ConfigError(f"{count} days requested; at most {MAX_DAYS} in one run")
    return [first + timedelta(days=offset) for offset in range(count)]
