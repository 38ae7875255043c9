"""team/*: the team database as the extension's Team view reads it (lazy.team.service). The
modules behind it (psycopg among them) are imported on the first team request: a sidecar on a
machine with no team starts without them."""

from __future__ import annotations

from typing import Any

from pygls.exceptions import JsonRpcException, JsonRpcInvalidParams

from lazy.server.protocol import (
    TEAM_FAILED,
    NoParams,
    TeamBuilder,
    TeamBuildersParams,
    TeamBuildersResult,
    TeamHit,
    TeamPageParams,
    TeamPageResult,
    TeamPromoteParams,
    TeamPromoteResult,
    TeamPushParams,
    TeamPushResult,
    TeamSearchParams,
    TeamSearchResult,
    TeamStatusResult,
    TeamTask,
)
from lazy.server.rpc import request
from lazy.server.sidecar import Sidecar


def _failed(e: Exception) -> JsonRpcException:
    return JsonRpcException(str(e), code=TEAM_FAILED, data={"kind": getattr(e, "kind", "refused")})


def _builder(b: Any) -> TeamBuilder:
    return TeamBuilder(
        builder_id=b.builder_id,
        member=b.member,
        email=b.email,
        project=b.project,
        agent=b.agent,
        title=b.title,
        message_count=b.message_count,
        updated_at=b.updated_at.isoformat() if b.updated_at else None,
        grew=b.grew,
    )


def team_status(ls: Sidecar, _: NoParams) -> TeamStatusResult:
    from lazy.team import service

    s = service.status(ls.home, ls.store().conn)
    st = s.state
    if st is None:
        return TeamStatusResult(joined=False)
    last = st.last_push
    return TeamStatusResult(
        joined=True,
        database=s.database,
        email=st.email,
        last_push_at=last.at if last else None,
        last_push_builders=last.builders if last else 0,
        last_push_messages=last.messages if last else 0,
        unpushed=s.unpushed,
        failing_since=st.failing_since,
        last_error=st.last_error,
    )


def team_builders(ls: Sidecar, p: TeamBuildersParams) -> TeamBuildersResult:
    from lazy.team import service
    from lazy.team.db import TeamError

    try:
        rows = service.builders(ls.home, project=p.project, member=p.member, limit=p.limit)
    except TeamError as e:
        raise _failed(e) from None
    return TeamBuildersResult(items=[_builder(b) for b in rows])


def team_page(ls: Sidecar, p: TeamPageParams) -> TeamPageResult:
    from lazy.team import service
    from lazy.team.browse import NotFoundOnTeam
    from lazy.team.db import TeamError

    try:
        got = service.page(ls.home, p.builder_id, p.email, p.start, p.count)
    except NotFoundOnTeam as e:
        raise _failed(TeamError(str(e), "not-found")) from None
    except TeamError as e:
        raise _failed(e) from None
    end = p.start + p.count
    return TeamPageResult(
        member=got.builder.member,
        email=got.builder.email,
        project=got.builder.project,
        builder=got.info,
        messages=got.messages,
        total=got.total,
        next_start=end if end <= got.total else None,
    )


def team_search(ls: Sidecar, p: TeamSearchParams) -> TeamSearchResult:
    from lazy.team import browse, service
    from lazy.team.db import TeamError

    try:
        hits = service.search(ls.home, p.query, project=p.project, member=p.member, limit=p.limit)
    except (TeamError, ValueError) as e:
        raise _failed(e) from None
    out = []
    for h in hits:
        text, spans = browse.marks(h.snippet)
        out.append(
            TeamHit(
                builder_id=h.builder.builder_id,
                member=h.builder.member,
                email=h.builder.email,
                project=h.builder.project,
                title=h.builder.title,
                number=h.number,
                role=h.role,
                at=h.at.isoformat() if h.at else None,
                snippet=text,
                marks=spans,
            )
        )
    return TeamSearchResult(hits=out)


def team_push(ls: Sidecar, p: TeamPushParams) -> TeamPushResult:
    from lazy.team import service
    from lazy.team.db import TeamError

    try:
        plan = service.push(ls.home, ls.store().conn, dry_run=p.dry_run)
    except TeamError as e:
        raise _failed(e) from None
    return TeamPushResult(
        builders=len(plan.builders),
        messages=plan.messages,
        unchanged=plan.unchanged,
        redactions=plan.redactions,
        skipped=[f"{s.builders} Builder(s) of {s.project}: {s.why}" for s in plan.skipped],
    )


def team_promote(ls: Sidecar, p: TeamPromoteParams) -> TeamPromoteResult:
    from lazy.tasks.promote import PromoteError
    from lazy.team import service
    from lazy.team.browse import NotFoundOnTeam
    from lazy.team.db import TeamError

    try:
        plan, task, overlaps = service.promote(
            ls.home,
            p.builder_id,
            p.email,
            p.from_message,
            p.to_message,
            goal=p.goal,
            code=p.code,
            parent=p.parent,
            prompt=p.prompt,
        )
    except PromoteError as e:
        raise JsonRpcInvalidParams(
            e.message, data={"errors": [{"field": e.field, "message": e.message}]}
        ) from None
    except NotFoundOnTeam as e:
        raise _failed(TeamError(str(e), "not-found")) from None
    except TeamError as e:
        raise _failed(e) from None
    return TeamPromoteResult(
        task=TeamTask(
            code=task.code,
            goal=task.goal,
            by=task.by,
            project=plan.builder.project,
            builder_id=task.builder_id,
            from_message=task.from_message,
            to_message=task.to_message,
        ),
        overlaps=overlaps,
    )


def register(ls: Sidecar) -> None:
    request(ls, "team/status")(team_status)
    request(ls, "team/builders")(team_builders)
    request(ls, "team/page")(team_page)
    request(ls, "team/search")(team_search)
    request(ls, "team/push")(team_push)
    request(ls, "team/promote")(team_promote)
