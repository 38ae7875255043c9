"""Aliases: human names for the conversations an agent resumes."""
