from .app import Shelf as Shelf
from .helpers import url_for
from .models import Request
from .globals import current_app
