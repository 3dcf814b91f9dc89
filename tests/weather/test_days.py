"""The span a day argument names, on each day of the week (the place's calendar)."""
from datetime import date, timedelta

import pytest

from weather_mcp_server.domain.days import DaySpan, select_days
from weather_mcp_server.domain.service import DayQuery

MONDAY = date(2026, 12, 7)


@pytest.mark.parametrize("weekday, span", [(0, DaySpan(5, 2)), (4, DaySpan(1, 2)), (5, DaySpan(0, 2)),
                                           (6, DaySpan(-1, 2))])
def test_the_weekend_is_saturday_and_sunday_and_on_a_sunday_yesterday_and_today(weekday: int, span: DaySpan) -> None:
    assert select_days(MONDAY + timedelta(days=weekday), "weekend") == span


def test_a_weekend_call_fetches_the_day_before_today_for_a_sunday() -> None:
    assert DayQuery(day="weekend").past_days == 1
    assert DayQuery(day="friday").past_days == 0 and DayQuery(day=-2).past_days == 2
