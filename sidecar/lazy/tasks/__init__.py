"""Backlog tasks promoted from a range of a conversation's messages: checking, seeding and
creating a promotion (``promote``; the rows are lazy.store.tasks)."""
