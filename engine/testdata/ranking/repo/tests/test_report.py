import pytest

from shipyard_cli.errors import ReportEmpty
from shipyard_cli.report import daily_totals, top_customers


def test_daily_totals_round_half_even():
    orders = [{"placed_at": "2024-01-02T10:00", "cents": 1005, "customer": "a"}]
    assert str(daily_totals(orders)["2024-01-02"]) == "10.05"


def test_daily_totals_empty():
    with pytest.raises(ReportEmpty):
        daily_totals([])


def test_top_customers():
    orders = [{"customer": "a", "cents": 5}, {"customer": "b", "cents": 7}]
    assert top_customers(orders, 1) == [("b", 7)]
