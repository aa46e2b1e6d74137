class Scaffold:
    def add_url_rule(self, rule):
        self.rules.append(rule)

    def route(self, rule):
        def decorator(f):
            self.add_url_rule(rule)
            return f

        return decorator

    def get(self, rule):
        return self.route(rule)
