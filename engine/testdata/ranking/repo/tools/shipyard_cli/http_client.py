"""A small HTTP client for the Shipyard API with retries on rate limits."""

import json
import time
import urllib.request

from .errors import RateLimited


class ApiClient:
    """Calls the Shipyard API, retrying when it answers 429."""

    def __init__(self, base_url, token, max_attempts=4, sleep=time.sleep):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.max_attempts = max_attempts
        self.sleep = sleep

    def get_json(self, path):
        """GET path and decode the JSON answer."""
        for attempt in range(1, self.max_attempts + 1):
            try:
                return self._request(path)
            except RateLimited as exc:
                if attempt == self.max_attempts:
                    raise
                self.sleep(exc.retry_after)

    def _request(self, path):
        req = urllib.request.Request(self.base_url + path, headers={"Authorization": "Bearer " + self.token})
        with urllib.request.urlopen(req) as resp:
            if resp.status == 429:
                raise RateLimited(float(resp.headers.get("Retry-After", "1")))
            return json.loads(resp.read())
