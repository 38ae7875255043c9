"""tasks/promote and tasks/list: promoting a range of a Builder's messages to a backlog task,
and what was promoted (from one Builder: the transcript lists its promoted ranges)."""

from __future__ import annotations

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from lazy.server.protocol import (
    ALREADY_PROMOTED,
    TasksListParams,
    TasksListResult,
    TasksPromoteParams,
    TasksPromoteResult,
)
from lazy.server.rpc import request
from lazy.server.sidecar import Sidecar
from lazy.store.queries import resolve_builder
from lazy.tasks.listing import tasks_of_builder, tasks_under
from lazy.tasks.promote import AlreadyPromoted, PromoteError, promote


def register(ls: Sidecar) -> None:
    @request(ls, "tasks/promote")
    def tasks_promote(ls: Sidecar, p: TasksPromoteParams) -> TasksPromoteResult:
        store = ls.store()
        bid = resolve_builder(store.conn, p.builder_id)
        try:
            task, overlapping = promote(
                store, bid, p.from_message, p.to_message,
                goal=p.goal, code=p.code, parent=p.parent, prompt=p.prompt,
            )  # fmt: skip
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
        return TasksPromoteResult(task=task, overlapping=overlapping)

    @request(ls, "tasks/list")
    def tasks_list(ls: Sidecar, p: TasksListParams) -> TasksListResult:
        conn = ls.store().conn
        if p.builder_id is not None:
            items = tasks_of_builder(conn, resolve_builder(conn, p.builder_id), home=ls.home)
        else:
            under = None if p.all_projects else p.workspace_folders
            items = tasks_under(conn, under, home=ls.home)
        return TasksListResult(items=items)
