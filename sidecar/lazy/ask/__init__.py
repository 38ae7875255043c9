"""Asking a stored transcript instead of reading it: `lazy ask`."""
