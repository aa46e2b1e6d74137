"""Exceptions raised by the Shipyard command-line tools."""


class ShipyardError(Exception):
    """Base class of every error the tools report to the user."""


class RateLimited(ShipyardError):
    """The API refused the request: too many requests from this client."""

    def __init__(self, retry_after):
        super().__init__("rate limited, retry after %.1fs" % retry_after)
        self.retry_after = retry_after


class ReportEmpty(ShipyardError):
    """A report was asked for a period without orders."""
