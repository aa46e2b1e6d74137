from .store.db import Database as DB
