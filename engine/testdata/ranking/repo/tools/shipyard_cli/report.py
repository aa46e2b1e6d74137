"""Sales reports: totals per day and per customer."""

from collections import defaultdict
from decimal import Decimal, ROUND_HALF_EVEN

from .errors import ReportEmpty


def daily_totals(orders):
    """Sum order amounts per calendar day, in currency units rounded half to even."""
    if not orders:
        raise ReportEmpty("no orders in the period")
    totals = defaultdict(Decimal)
    for order in orders:
        totals[order["placed_at"][:10]] += Decimal(order["cents"]) / 100
    return {day: amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_EVEN) for day, amount in sorted(totals.items())}


def top_customers(orders, n=10):
    """The n customers who spent most, with what they spent."""
    spent = defaultdict(int)
    for order in orders:
        spent[order["customer"]] += order["cents"]
    return sorted(spent.items(), key=lambda kv: kv[1], reverse=True)[:n]
