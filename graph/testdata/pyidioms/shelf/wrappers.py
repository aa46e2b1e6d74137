import functools

from .models import Request


def failed(code):
    return code >= 400


def load_body(response):
    return b""


def build_auth(value):
    return value


class Response:
    def __init__(self, status_code, auth=None):
        self.status_code = status_code
        self.auth = auth

    @property
    def is_error(self) -> bool:
        return failed(self.status_code)

    @property
    def request(self) -> Request:
        return Request()

    @functools.cached_property
    def body(self):
        return load_body(self)

    @property
    def auth(self):
        return self._auth

    @auth.setter
    def auth(self, value):
        self._auth = build_auth(value)

    def raise_for_status(self):
        if self.is_error:
            raise ValueError(self.status_code)


class StreamingResponse(Response):
    pass


class Job:
    def is_error(self):
        return False


def check(response: Response, job: Job):
    return response.is_error or job.is_error()


def describe(thing, job: Job):
    return thing.is_error, job.is_error


def log_auth(response: Response):
    print(response.auth)


def fetch(url):
    response = Response(200)
    response.auth = ("user", "secret")
    response.request.prepare()
    return response.body
