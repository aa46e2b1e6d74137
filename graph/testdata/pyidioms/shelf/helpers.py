def url_for(endpoint):
    return "/" + endpoint


class UrlPath:
    def join(self, other):
        return UrlPath()


def joined(names):
    sep = "-"
    return ", ".join(names) + sep.join(names) + "{}".format(sep).join(names) + f"{sep}".join(names)


def first_path(paths):
    return [p for p in paths][0].join("x")


def typed(path: UrlPath):
    return path.join("x")


def bound_paths(path: UrlPath):
    paths = [path]
    paths.append(path)
    return paths[0].join("x")
