import unittest

import pytest

from app.store.db import open_db, Database
from app import util


def test_open():
    db = open_db("/tmp")
    assert db.get("k") is None


@pytest.fixture
def database():
    return Database("/tmp")


class TestDatabase:
    def test_get(self, database: Database):
        database.get("a")

    def helper(self):
        util.slugify("x")


class DatabaseCase(unittest.TestCase):
    def test_close(self):
        Database("/x").close()

    def setUp(self):
        pass
