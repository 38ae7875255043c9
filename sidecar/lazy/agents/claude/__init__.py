"""Claude Code: transcripts, subagents, hooks and harness memory."""
