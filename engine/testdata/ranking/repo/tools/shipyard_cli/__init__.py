"""Command-line tools for operating a Shipyard deployment."""

__version__ = "0.4.0"
