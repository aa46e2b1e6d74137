def url_for(endpoint):
    return "/" + endpoint
