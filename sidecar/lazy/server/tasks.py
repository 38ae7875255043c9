"""tasks/promote and tasks/list: promoting a range of a Builder's messages to a backlog task,
and what was promoted (from one Builder: the transcript lists its promoted ranges)."""

from __future__ import annotations

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from lazy.server.app import Sidecar
from lazy.server.protocol import (
    ALREADY_PROMOTED,
    TasksListParams,
    TasksListResult,
    TasksPromoteParams,
    TasksPromoteResult,
)
from lazy.server.rpc import request
from lazy.store.queries import resolve_builder
from lazy.store.tasks import list_tasks
from lazy.tasks.promote import (
    AlreadyPromoted,
    PromoteError,
    check_range,
    create,
    default_code,
    default_goal,
    seed,
)
from lazy.view.reading import task as shown
from lazy.view.redaction import redactor


def _under(project: str | None, folders: list[str]) -> bool:
    if project is None:
        return False
    return any(project == f or project.startswith(f.rstrip("/") + "/") for f in folders)


def register(ls: Sidecar) -> None:
    @request(ls, "tasks/promote")
    def tasks_promote(ls: Sidecar, p: TasksPromoteParams) -> TasksPromoteResult:
        store = ls.store()
        bid = resolve_builder(store.conn, p.builder_id)
        try:
            plan = check_range(store.conn, bid, p.from_message, p.to_message)
            goal = (p.goal or "").strip() or default_goal(plan.messages)
            code = (p.code or "").strip() or default_code(store.conn, goal)
            prompt = p.prompt if p.prompt and p.prompt.strip() else seed(plan.messages)
            task = create(store, plan, goal=goal, code=code, parent=p.parent, prompt=prompt)
        except AlreadyPromoted as e:
            t = e.task
            data = {"task": t.code, "builder_id": t.builder_id,
                    "from_message": t.from_message, "to_message": t.to_message}  # fmt: skip
            raise JsonRpcException(e.message, code=ALREADY_PROMOTED, data=data) from None
        except PromoteError as e:
            field = {"from": "from_message", "to": "to_message"}.get(e.field, e.field)
            raise JsonRpcInvalidParams(
                e.message, data={"errors": [{"field": field, "message": e.message}]}
            ) from None
        ls.index_caught_up()
        return TasksPromoteResult(task=task, overlapping=plan.overlaps)

    @request(ls, "tasks/list")
    def tasks_list(ls: Sidecar, p: TasksListParams) -> TasksListResult:
        conn = ls.store().conn
        redact = redactor(ls.home)
        if p.builder_id is not None:
            items = list_tasks(conn, builder_id=resolve_builder(conn, p.builder_id))
            return TasksListResult(items=[shown(t, redact) for t in items])
        items = list_tasks(conn)
        if not p.all_projects:
            projects = dict(conn.execute("SELECT id, project FROM builders").fetchall())
            items = [t for t in items if _under(projects.get(t.builder_id), p.workspace_folders)]
        return TasksListResult(items=[shown(t, redact) for t in items])
