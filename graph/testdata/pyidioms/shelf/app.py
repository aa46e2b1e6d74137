import json
import zipfile

from .scaffold import Scaffold
from . import json as sjson


class App(Scaffold):
    def add_url_rule(self, rule):
        super().add_url_rule(rule)

    def setup(self):
        self.add_url_rule("/")

    def get(self, key):
        return self.__dict__.get(key)

    def make_response(self, value):
        return json.loads(value)

    def load_config(self, text):
        return sjson.loads(text)

    def open_bundle(self, path):
        zip_file = zipfile.ZipFile(path)
        return zip_file.read("config")


class Shelf(App):
    pass
