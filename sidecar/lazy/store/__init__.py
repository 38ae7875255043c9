"""SQLite store: schema and migrations, raw archive, repository queries."""

from lazy.config import lazy_home
from lazy.os.clock import now_iso, parse_iso
from lazy.store.db import Store, StoreError

__all__ = ["Store", "StoreError", "lazy_home", "now_iso", "parse_iso"]
