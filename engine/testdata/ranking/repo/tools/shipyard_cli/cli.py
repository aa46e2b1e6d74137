"""Entry point of the shipyard command."""

import argparse
import sys

from .http_client import ApiClient
from .report import daily_totals, top_customers


def build_parser():
    parser = argparse.ArgumentParser(prog="shipyard")
    parser.add_argument("--api", default="http://localhost:8080")
    parser.add_argument("--token", required=True)
    sub = parser.add_subparsers(dest="command", required=True)
    rep = sub.add_parser("report", help="print sales totals")
    rep.add_argument("--by", choices=["day", "customer"], default="day")
    cancel = sub.add_parser("cancel", help="cancel orders listed in a file")
    cancel.add_argument("file")
    cancel.add_argument("--dry-run", action="store_true", help="list what would be cancelled")
    return parser


def main(argv=None):
    args = build_parser().parse_args(argv)
    client = ApiClient(args.api, args.token)
    if args.command == "report":
        orders = client.get_json("/orders")
        rows = daily_totals(orders) if args.by == "day" else dict(top_customers(orders))
        for key, value in rows.items():
            print(key, value)
    elif args.command == "cancel":
        for line in open(args.file):
            order_id = line.strip()
            if args.dry_run:
                print("would cancel", order_id)
            else:
                client.get_json("/orders/%s/cancel" % order_id)
    return 0


if __name__ == "__main__":
    sys.exit(main())
