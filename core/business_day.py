"""The business day: one definition for settlement, the daily file, the portal's "Today" and the
staff dashboard, so their figures agree whatever SETTLEMENT_TIME_ZONE and SETTLEMENT_CUTOFF say.

The business day and its cut-off are in SETTLEMENT_TIME_ZONE; with SETTLEMENT_CUTOFF hh:mm the
business day D ends at D hh:mm (or at midnight after D for 00:00) and begins where D-1 ends.
"""

from datetime import date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from django.conf import settings


def zone() -> ZoneInfo:
    return ZoneInfo(settings.SETTLEMENT_TIME_ZONE)


def _cutoff() -> time:
    hours, minutes = (int(part) for part in settings.SETTLEMENT_CUTOFF.split(":"))
    return time(hours, minutes)


def business_day_bounds(day: date) -> tuple[datetime, datetime]:
    """[start, end) of business day `day`."""
    cutoff, here = _cutoff(), zone()

    def end_of(d: date) -> datetime:
        if cutoff == time(0, 0):
            return datetime.combine(d + timedelta(days=1), cutoff, tzinfo=here)
        return datetime.combine(d, cutoff, tzinfo=here)

    return end_of(day - timedelta(days=1)), end_of(day)


def business_day_of(moment: datetime) -> date:
    """The business day `moment` belongs to (the one still open at `moment` when it is now)."""
    local = moment.astimezone(zone()).date()
    for candidate in (local - timedelta(days=1), local, local + timedelta(days=1)):
        start, end = business_day_bounds(candidate)
        if start <= moment < end:
            return candidate
    raise AssertionError(f"no business day holds {moment}")  # pragma: no cover


def last_business_day(now: datetime) -> date:
    """The latest business day whose cut-off has passed at `now`."""
    local = now.astimezone(zone()).date()
    for candidate in (local, local - timedelta(days=1), local - timedelta(days=2)):
        if business_day_bounds(candidate)[1] <= now:
            return candidate
    return local - timedelta(days=2)


def parse_day(text: str, now: datetime) -> date:
    """A command's --date: YYYY-MM-DD, or `today` / `yesterday`, the date in SETTLEMENT_TIME_ZONE
    at `now`. ValueError for anything else."""
    today = now.astimezone(zone()).date()
    named = {"today": today, "yesterday": today - timedelta(days=1)}
    if text in named:
        return named[text]
    return date.fromisoformat(text)
