from shipyard_cli.errors import RateLimited
from shipyard_cli.http_client import ApiClient


def test_get_json_retries_after_rate_limit():
    slept = []
    client = ApiClient("http://x", "t", sleep=slept.append)
    answers = [RateLimited(0.5), {"ok": True}]

    def fake(path):
        a = answers.pop(0)
        if isinstance(a, Exception):
            raise a
        return a

    client._request = fake
    assert client.get_json("/orders") == {"ok": True}
    assert slept == [0.5]
