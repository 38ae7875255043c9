"""SQLite store: schema and migrations, raw archive, repository queries."""

from lazy.store.db import Store, StoreError, lazy_home, now_iso, parse_iso

__all__ = ["Store", "StoreError", "lazy_home", "now_iso", "parse_iso"]
