"""OpenAI Codex CLI: rollout files."""
