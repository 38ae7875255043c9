"""What the readers of line agents (Claude Code, Codex CLI) share: the file, the session its
name gives, the subagent id, and the facts a session's earlier batches and captures taught."""

from __future__ import annotations

from lazy.agents.base import Load, facts_for
from lazy.records import ReadBatch, SessionFacts


class SessionLines:
    """Reads one session file, batch by batch: ``read`` (each agent's) turns complete lines
    into a :class:`ReadBatch`. ``file_session`` is the session id the file's name gives,
    ``subagent_id`` the subagent's (a Claude Code ``agent-<id>.jsonl``); ``load`` returns
    what earlier captures of a session taught, so batches compose."""

    def __init__(
        self,
        path: str,
        file_session: str,
        subagent_id: str | None = None,
        load: Load | None = None,
    ):
        self.path = path
        self.file_session = file_session
        self.subagent_id = subagent_id
        self.facts: dict[str, SessionFacts] = {}
        self._load = load
        self._begin()

    def _begin(self) -> None:
        """The agent's own reading state, set up once per file."""

    def _facts_of(self, batch: ReadBatch, key: str) -> SessionFacts:
        return facts_for(batch, self.facts, key, self._load)
