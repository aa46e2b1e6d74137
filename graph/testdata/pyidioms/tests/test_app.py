import shelf
from shelf import current_app

app = shelf.Shelf()


@app.get("/")
def index():
    return shelf.url_for("index")


def test_prepare():
    req = shelf.Request()
    prepared = req.prepare()
    assert prepared


def test_current_app():
    current_app.make_response("{}")


def test_rules():
    app.add_url_rule("/x")
