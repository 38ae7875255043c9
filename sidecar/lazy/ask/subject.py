"""What an ask is about, read from the store: a task (by its code) is its prompt followed by
the messages it was promoted from; anything else is a conversation (an id or a unique prefix)
and its whole transcript. Shared by `lazy ask` and the sidecar's ask/run."""

from __future__ import annotations

from dataclasses import dataclass

from lazy.model import MessageView, Task, Transcript
from lazy.store import Store
from lazy.store.queries import resolve_builder
from lazy.store.tasks import get_task
from lazy.view.reading import task as shown_task
from lazy.view.reading import transcript
from lazy.view.redaction import redactor


@dataclass(frozen=True)
class Subject:
    transcript: Transcript
    task: Task | None  # the task asked about, if it was one


def subject(store: Store, ident: str) -> Subject:
    """Raises NotFound or Ambiguous (lazy.store.queries) for an id that names no one
    conversation."""
    task = get_task(store.conn, ident)
    if task is None:
        bid = resolve_builder(store.conn, ident)
        return Subject(transcript(store.conn, bid, home=store.home), None)
    task = shown_task(task, redactor(store.home))
    source = transcript(
        store.conn, task.builder_id, task.from_message, task.to_message, home=store.home
    )
    brief = MessageView(
        number=0,
        role="task",
        text=f"Task {task.code} ({task.status}): {task.goal}\n\n{task.prompt}",
        session_id="",
        timestamp=task.created_at,
        kinds=["task"],
    )
    update = {"messages": [brief, *source.messages], "sidechains": []}
    return Subject(source.model_copy(update=update), task)
