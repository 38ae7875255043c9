"""Builders: the joining of session files into conversations."""
