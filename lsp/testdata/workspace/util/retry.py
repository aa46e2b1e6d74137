"""Retry helpers for flaky uploads."""

import time


class Backoff:
    """Exponential backoff between attempts."""

    def __init__(self, base=0.5):
        self.base = base

    def delay(self, attempt):
        """Seconds to wait before the given attempt."""
        return self.base * (2 ** attempt)


def retry_upload(fn, attempts=3):
    """Retry a failed upload a few times with exponential backoff."""
    backoff = Backoff()
    for i in range(attempts):
        try:
            return fn()
        except IOError:
            time.sleep(backoff.delay(i))
    raise IOError("upload failed")
