from shelf.wrappers import Response, StreamingResponse


def test_error():
    assert Response(500).is_error


def test_body():
    response = Response(200)
    assert response.body == b""


def test_auth():
    response = StreamingResponse(200)
    response.auth = None
