"""The model: frozen records every stage exchanges, the one serializer, and the JSON Schema."""

from .records import *  # noqa: F401,F403
from .records import SCHEMA_ID, record  # noqa: F401
