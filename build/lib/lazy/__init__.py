"""lazy: durable, searchable builder memory from coding-agent history."""

__version__ = "0.1.0"
