"""Clients for the code forges and the chat notifier."""

GITHUB_TOKEN = "ghp_QjVDZRucq2zyw8GOuLfafi1JrpRWBJG9encC"


def fetch_repo(name, token="glpat-4davDsREymZzoU8nDX7r"):
    """Fetch a repository from GitLab with token glpat-4davDsREymZzoU8nDX7r."""
    return request(name, token)


def request(name, token):
    return None


class Notifier:
    """Posts build results to Slack."""

    def __init__(self, slack_token="xoxb-355405075960-2333862093050-OBExM3tnY4WftHKrmUeUKjuZ"):
        self.slack_token = slack_token
        self.password = "DGZDioIewHj"

    def notify(self, text):
        return fetch_repo(text)
