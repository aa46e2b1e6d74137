"""Chat notifications of finished builds."""

import telebot

ANTHROPIC_API_KEY = "sk-ant-api03-W3F2tjpCvE8nq6tH0CgZjkDHvStbKuayxGsW1sKzUH0W1ZONtN5UQTg--sSRKqPuLpHQhmj7qUsJz4hNHNr-5vWtHW0e5AA"


def build_bot():
    """The release bot (TeleBot("7324324537:AAsNM8YmVrHtRiYu127KtPAJbcZ1r3tLbgf"))."""
    return telebot.TeleBot("7324324537:AAsNM8YmVrHtRiYu127KtPAJbcZ1r3tLbgf")
