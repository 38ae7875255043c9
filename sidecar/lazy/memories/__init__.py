"""Memories: per-message memories imported from sessions and Claude Code's harness memory."""
