"""Backlog tasks promoted from a range of a conversation's messages: the rows
(``store``), and checking, seeding and creating a promotion (``promote``)."""
