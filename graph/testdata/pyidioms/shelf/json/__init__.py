def loads(text):
    return text
