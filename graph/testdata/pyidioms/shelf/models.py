class Request:
    def prepare(self):
        return self

    def read(self):
        return b""
