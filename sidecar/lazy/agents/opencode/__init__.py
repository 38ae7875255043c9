"""OpenCode: its SQLite database and its older JSON storage."""
