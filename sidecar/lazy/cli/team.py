"""lazy team: share Builders with a team through PostgreSQL."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import click
from rich.table import Table

from lazy.cli.common import counting, emit_json, err, facts_table, open_store, out, shown, when
from lazy.cli.transcript_view import Fold, layout, write
from lazy.model import Transcript
from lazy.projects import project_of
from lazy.store.messages import messages_since
from lazy.team import browse, identity, members, schema
from lazy.team import push as pushing
from lazy.team import state as team_state
from lazy.team.conninfo import ConninfoError, where, without_password
from lazy.team.conninfo import shown as shown_conninfo
from lazy.team.db import TeamError, connect
from lazy.view.terminal import one_line

HELP = """Share Builders with your team through a PostgreSQL database (15+).

Your local store stays the record; the team database gets what you push — the message
view, secrets redacted, never the raw archive — and shows you the Builders of the projects
you belong to. A project is its repo's git remote (one repo on two machines is one project).

\b
  lazy team init "host=db.example.com dbname=team sslmode=verify-full"  # once, its owner
  lazy team invite alice                  # the owner: a login role for a member
  lazy team join "host=db.example.com dbname=team user=alice sslmode=verify-full"
  lazy team push --dry-run                # what would go: Builders, messages, redactions
  lazy team push
  lazy team conversations                 # teammates' Builders, with who pushed them
  lazy team search '"lock is held" retry'
  lazy team show 7acd37a8

Passwords are never stored or printed: libpq finds them in ~/.pgpass ($PGPASSFILE), a
service file ($PGSERVICEFILE) or $PGPASSWORD. Connection strings take every libpq keyword
(sslmode, sslrootcert, service, ...)."""


@click.group("team", help=HELP)
def team() -> None:
    pass


def _state() -> team_state.TeamState:
    try:
        st = team_state.load()
    except team_state.StateError as e:
        raise click.ClickException(str(e)) from e
    if st is None:
        raise click.ClickException(
            "this machine has not joined a team: run `lazy team join <conninfo>`"
        )
    return st


def _fail(e: Exception) -> click.ClickException:
    return click.ClickException(str(e))


@contextmanager
def _team(doing: str, db: str | None = None, *, checked: bool = True) -> Iterator[Any]:
    conninfo = db or _state().conninfo
    try:
        with connect(conninfo, doing, checked=checked) as conn:
            yield conn
    except (TeamError, ConninfoError) as e:
        raise _fail(e) from e


def _db_option(f: Any) -> Any:
    return click.option(
        "--db",
        "db",
        metavar="CONNINFO",
        help="The team database (default: the one this machine joined).",
    )(f)


@team.command(
    "init",
    help="""Create the team schema in a PostgreSQL database (15+), or
migrate it to this lazy's version; says what it did. Run it as the database's owner, once;
running it again changes nothing. Members are then let in with `lazy team invite`.""",
)
@click.argument("conninfo")
def init(conninfo: str) -> None:
    with _team("lazy team init", conninfo, checked=False) as conn:
        try:
            report = schema.init(conn)
        except schema.SchemaError as e:
            raise _fail(e) from e
    at = where(conninfo)
    if report.from_version == report.to_version:
        out.print(
            shown(f"The team schema at {at} is at version {report.to_version}: nothing to do.")
        )
    elif report.from_version == 0:
        out.print(shown(f"Created the team schema (version {report.to_version}) at {at}."))
    else:
        out.print(
            shown(
                f"Migrated the team schema at {at}: version {report.from_version} → {report.to_version}."
            )
        )
    if report.created_group:
        out.print(
            shown(f"Created the group role {schema.GROUP}; `lazy team invite <role>` adds members.")
        )


@team.command(
    "invite",
    help="""Let a PostgreSQL role in as a member (run by the database's
owner): it is granted the group role, and created (LOGIN, no password: it authenticates as the
server's pg_hba.conf says) when it does not exist.""",
)
@click.argument("role")
@_db_option
def invite(role: str, db: str | None) -> None:
    with _team("lazy team invite", db) as conn:
        try:
            created = schema.invite(conn, role)
        except Exception as e:
            raise _fail(TeamError(f"could not invite {role}: {e}", "refused")) from e
    verb = "Created the role" if created else "The role"
    out.print(shown(f'{verb} {role}, a member now: they run `lazy team join "…user={role}"`.'))


@team.command(
    "join",
    help="""Join the team database as the role CONNINFO logs in as: you are
registered under your name and email (team.name / team.email in lazy's config, else git's), and
this machine keeps CONNINFO (without any password) for the other commands.""",
)
@click.argument("conninfo")
def join(conninfo: str) -> None:
    try:
        kept, had_password = without_password(conninfo)
        me = identity.member()
    except (ConninfoError, identity.IdentityError) as e:
        raise _fail(e) from e
    with _team("lazy team join", conninfo) as conn:
        try:
            role = members.join(conn, me)
        except TeamError as e:
            raise _fail(e) from e
    old = team_state.load()
    st = team_state.TeamState(conninfo=kept, email=me.email, names=old.names if old else {})
    if old and old.conninfo == kept:
        st.watermark, st.last_push = old.watermark, old.last_push
    team_state.save(st)
    out.print(shown(f"Joined {where(conninfo)} as {me.name} <{me.email}> (role {role})."))
    if had_password:
        err.print(
            shown(
                "lazy: the connection string's password was used once and not kept; put it in"
                " ~/.pgpass (or $PGPASSFILE) or a service file for the next commands",
                "yellow",
            )
        )


@team.command(
    "add",
    help="""Add a member (by the email they joined with) to a project you
are in; a project is its remote's name as `lazy team conversations` shows it.""",
)
@click.argument("email")
@click.option("--project", "key", required=True, help="The project (e.g. github.com/org/repo).")
def add(email: str, key: str) -> None:
    with _team("lazy team add") as conn:
        members.add(conn, key, email)
    out.print(shown(f"{email} is a member of {key} now."))


@team.command(
    "name",
    help="""Share the repo at DIR (one with no git remote, which is never
pushed otherwise) under NAME; teammates with the same repo name it the same.""",
)
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path))
@click.argument("name")
def name(directory: Path, name: str) -> None:
    st = _state()
    project = project_of(str(directory.resolve()))
    st.names[project] = name.strip()
    st.watermark = 0  # its Builders were passed over: compare everything once
    team_state.save(st)
    out.print(shown(f"{project} is shared as {name.strip()} from the next push."))


def _plan_table(plan: pushing.Plan) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    for col, just in (
        ("id", "left"),
        ("project", "left"),
        ("msgs", "right"),
        ("sending", "right"),
        ("title", "left"),
    ):
        table.add_column(col, justify=just, no_wrap=col != "title", overflow="ellipsis")  # type: ignore[arg-type]
    for b in plan.builders:
        sending = f"{b.messages} (whole)" if b.whole else str(b.messages)
        table.add_row(
            shown(b.builder_id[:8]),
            shown(b.key),
            str(b.local_count),
            sending,
            shown(one_line(b.title)[:80]),
        )
    return table


@team.command(
    "push",
    help="""Send this machine's new and grown Builders to the team database:
incremental (only what the server lacks), idempotent (pushing again sends nothing), secrets
redacted. The daemon and VS Code push on their own once this machine has joined; this pushes
now.""",
)
@click.option(
    "--dry-run",
    is_flag=True,
    help="Say what would go (Builders, messages, redactions); send nothing.",
)
@click.option(
    "--all",
    "everything",
    is_flag=True,
    help="Compare every Builder with the server, not only those grown since the last push.",
)
@click.option("--json", "as_json", is_flag=True, help="Print what went (or would) as JSON.")
def push(dry_run: bool, everything: bool, as_json: bool) -> None:
    st = _state()
    with open_store() as store, counting("Comparing with the team") as bar:
        task = bar.add_task("Comparing with the team", total=None)
        try:
            plan = pushing.run(
                store.conn,
                st,
                dry_run=dry_run,
                everything=everything,
                tick=lambda: bar.advance(task),
                sent=lambda b: bar.advance(task),
            )
        except TeamError as e:
            raise _fail(e) from e
    if as_json:
        emit_json(
            {
                "dry_run": dry_run,
                "builders": [
                    {
                        "id": b.builder_id,
                        "project": b.key,
                        "messages": b.messages,
                        "whole": b.whole,
                        "redactions": b.redactions,
                    }
                    for b in plan.builders
                ],
                "messages": plan.messages,
                "unchanged": plan.unchanged,
                "redactions": plan.redactions,
                "skipped": [
                    {"project": s.project, "builders": s.builders, "why": s.why}
                    for s in plan.skipped
                ],
            }
        )
        return
    if plan.builders:
        out.print(_plan_table(plan))
    red = plan.redactions
    said = ", ".join(f"{k} {v}" for k, v in red.items())
    verb = "Would send" if dry_run else "Sent"
    out.print(
        shown(
            f"{verb} {len(plan.builders)} Builder(s), {plan.messages} message(s);"
            f" {sum(red.values())} redaction(s){': ' + said if said else ''};"
            f" {plan.unchanged} already on the team as they are."
        )
    )
    for s in plan.skipped:
        out.print(shown(f"Skipped {s.builders} Builder(s) of {s.project}: {s.why}.", "yellow"))


@team.command(
    "status",
    help="""The last push, how far this machine's store is ahead of it,
and any failure since.""",
)
@click.option("--json", "as_json", is_flag=True, help="Print it as JSON.")
def status(as_json: bool) -> None:
    st = _state()
    with open_store() as store:
        ahead = messages_since(store.conn, st.watermark)
    reachable: str
    try:
        with connect(st.conninfo, "lazy team status") as conn:
            email = members.joined_as(conn)
            count, latest = members.pushes(conn)
        reachable = f"yes, as {email}"
        server_pushes = f"{count} (last {when(latest.isoformat()) if latest else 'never'})"
    except TeamError as e:
        reachable, server_pushes = f"no: {e}", "?"
    last = st.last_push
    if as_json:
        emit_json(
            {
                "database": shown_conninfo(st.conninfo),
                "email": st.email,
                "reachable": reachable,
                "last_push": last.model_dump() if last else None,
                "checked_at": st.checked_at,
                "unpushed_messages": ahead,
                "failing_since": st.failing_since,
                "last_error": st.last_error,
            }
        )
        return
    rows = [
        ("database", shown_conninfo(st.conninfo)),
        ("reachable", reachable),
        (
            "last push",
            f"{when(last.at)}: {last.builders} Builder(s), {last.messages} message(s)"
            if last
            else "never",
        ),
        ("in step at", when(st.checked_at) if st.checked_at else "never"),
        ("pushes recorded", server_pushes),
        ("not pushed yet", f"{ahead} message(s) stored since the last push"),
    ]
    if st.failing_since:
        rows.append(("failing since", f"{when(st.failing_since)}: {st.last_error}"))
    out.print(facts_table(rows))


def _builders_table(rows: list[browse.TeamBuilder]) -> Table:
    table = Table(box=None, pad_edge=False, header_style="bold")
    table.add_column("id", no_wrap=True)
    table.add_column("member", no_wrap=True, max_width=18)
    table.add_column("tool", no_wrap=True)
    table.add_column("updated", no_wrap=True)
    table.add_column("project", max_width=28, no_wrap=True, overflow="ellipsis")
    table.add_column("msgs", justify="right", no_wrap=True)
    table.add_column("title", overflow="ellipsis", no_wrap=True)
    for b in rows:
        grew = " •" if b.grew else ""
        table.add_row(
            shown(b.builder_id[:8]),
            shown(b.member),
            shown(b.agent),
            when(b.updated_at.isoformat()) if b.updated_at else "",
            shown(b.project),
            f"{b.message_count}{grew}",
            shown(one_line(b.title)),
        )
    return table


def _filters(f: Any) -> Any:
    for opt in (
        click.option("--agent", help="Only this agent's (claude, codex, opencode)."),
        click.option("--member", help="Only this member's (email, name or role)."),
        click.option("--project", help="Only this project's (e.g. github.com/org/repo)."),
    ):
        f = opt(f)
    return f


@team.command(
    "conversations",
    help="""Teammates' Builders (and yours) in the projects you
belong to, newest first; • marks one that grew since you last opened it.""",
)
@_filters
@click.option("--limit", type=click.IntRange(min=1), default=50, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print them as JSON.")
def conversations(
    project: str | None, member: str | None, agent: str | None, limit: int, as_json: bool
) -> None:
    with _team("lazy team conversations") as conn:
        rows = browse.conversations(conn, project=project, member=member, agent=agent, limit=limit)
    if as_json:
        emit_json(
            [
                {
                    **b.__dict__,
                    "updated_at": b.updated_at.isoformat() if b.updated_at else None,
                    "grew": b.grew,
                }
                for b in rows
            ]
        )
        return
    if not rows:
        out.print("No Builders on the team that you can see yet (`lazy team push` sends yours).")
        return
    out.print(_builders_table(rows))


@team.command(
    "show",
    help="""A teammate's Builder as they pushed it, rendered as `lazy show`
renders one; opening it marks it seen (for you, on the server).""",
)
@click.argument("ident", metavar="ID")
@click.option("--member", help="Whose, when two members' ids start alike.")
@click.option("--json", "as_json", is_flag=True, help="Print the message view model as JSON.")
@click.option("--full", is_flag=True, help="Everything unfolded.")
@click.option("--thinking", is_flag=True, help="Show thinking in full.")
@click.option("--no-pager", "no_pager", is_flag=True, help="Print straight to the terminal.")
def show(
    ident: str, member: str | None, as_json: bool, full: bool, thinking: bool, no_pager: bool
) -> None:
    with _team("lazy team show") as conn:
        try:
            b = browse.find(conn, ident, member)
        except browse.NotFoundOnTeam as e:
            lines = [str(e)] + [
                one_line(f"  {c.builder_id}  {c.member}  {c.project}  {c.title[:50]}")
                for c in e.candidates
            ]
            raise click.ClickException("\n".join(lines)) from e
        info, messages = browse.transcript(conn, b)
    t = Transcript(builder=info, messages=messages, sidechains=[])
    if as_json:
        emit_json(
            {
                "member": b.member,
                "email": b.email,
                "project": b.project,
                **t.model_dump(mode="json"),
            }
        )
        return
    err.print(shown(f"{b.member} · {b.project}", "dim"))
    write(layout(t, [], Fold(full=full, thinking=thinking)), paging=not no_pager)


def _date(value: str | None, name: str) -> datetime | None:
    if not value:
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r} is not a date (YYYY-MM-DD)", param_hint=name) from None


@team.command(
    "search",
    help="""Full-text search of the team's Builders you can see
(PostgreSQL's: words stemmed, "quoted phrases" in order), best first.""",
)
@click.argument("query")
@_filters
@click.option("--since", help="Messages from this date on (YYYY-MM-DD).")
@click.option("--until", help="Messages before this date (YYYY-MM-DD).")
@click.option("--limit", type=click.IntRange(min=1, max=500), default=20, show_default=True)
@click.option("--json", "as_json", is_flag=True, help="Print the hits as JSON.")
def search(
    query: str,
    project: str | None,
    member: str | None,
    agent: str | None,
    since: str | None,
    until: str | None,
    limit: int,
    as_json: bool,
) -> None:
    a, b = _date(since, "--since"), _date(until, "--until")
    with _team("lazy team search") as conn:
        try:
            hits = browse.search(
                conn,
                query,
                project=project,
                member=member,
                agent=agent,
                since=a,
                until=b,
                limit=limit,
            )
        except ValueError as e:
            raise click.BadParameter(str(e), param_hint="QUERY") from e
    if as_json:
        emit_json(
            [
                {
                    "builder": h.builder.builder_id,
                    "member": h.builder.member,
                    "project": h.builder.project,
                    "number": h.number,
                    "role": h.role,
                    "at": h.at.isoformat() if h.at else None,
                    "rank": h.rank,
                    "snippet": h.snippet.replace(browse.MARK_START, "").replace(
                        browse.MARK_STOP, ""
                    ),
                }
                for h in hits
            ]
        )
        return
    if not hits:
        out.print(shown(f"No messages on the team match {query!r}."))
        return
    for h in hits:
        head = f"{h.builder.builder_id[:8]} #{h.number} {h.role} · {h.builder.member} · {h.builder.project}"
        out.print(shown(head, "bold", multiline=False))
        out.print(_snippet(h.snippet))
    out.print(shown(f"{len(hits)} hit(s)", "dim"))


def _snippet(s: str) -> Any:
    """The snippet with its hits in bold; everything else as text."""
    text, spans = browse.marks(s)
    text = text.replace("\n", " ")  # one paragraph: the offsets stay
    return shown("  " + text, highlights=[(x + 2, y + 2, "bold yellow") for x, y in spans])


@team.command("members", help="The members you share a project with, and those projects.")
def members_command() -> None:
    with _team("lazy team members") as conn:
        rows = browse.members(conn)
    table = Table(box=None, pad_edge=False, header_style="bold")
    for col in ("member", "email", "projects"):
        table.add_column(col)
    for n, e, ps in rows:
        table.add_row(shown(n), shown(e), shown(", ".join(ps)))
    out.print(table)


def _ask_team(
    team: Any, plan: Any, goal: str | None, code: str | None, parent: str | None
) -> tuple[str, str, str]:
    """The three fields, starting empty, each saying what an empty answer falls back to."""
    from lazy.team import promote as team_promote

    if goal is None:
        fallback = one_line(plan.default_goal)
        goal = click.prompt(
            f"Goal (empty: what was said first — {fallback})", default="", show_default=False
        )
    if code is None:
        code = click.prompt(
            f"Code (empty: {team_promote.default_code(team, plan, goal or plan.default_goal)}, from the goal)",
            default="",
            show_default=False,
        )
    if parent is None:
        parent = click.prompt("Parent task code (empty: none)", default="", show_default=False)
    return goal or "", code or "", parent or ""


@team.command(
    "promote",
    help="""Turn messages --from N --to M of a teammate's conversation (or yours) into a task on
the team database, seen by the project's members.

\b
The fields start empty and each falls back to its default: the goal to what was said first in
the range, the code to a slug of the goal (unique in the project), the prompt to the messages
themselves (on a terminal you are asked for goal, code and parent, and $EDITOR opens on the
prompt; --yes takes every default). A range the Builder does not have or one already promoted
is refused before you type. Another task sharing messages with the new one is reported once it
is created.

\b
  lazy team promote 7acd37a8 --from 12 --to 18
  lazy team promote 7acd37a8 --from 12 --to 18 --yes""",
)
@click.argument("ident", metavar="ID")
@click.option("--from", "first", type=int, required=True, help="First message of the range.")
@click.option("--to", "last", type=int, required=True, help="Last message of the range (included).")
@click.option("--member", help="Whose Builder, when two members' ids start alike.")
@click.option("--goal", help="The goal (default: what was said first in the range).")
@click.option("--code", help="The code (default: a slug of the goal, unique in the project).")
@click.option("--parent", help="The code of the task it belongs under (default: none).")
@click.option("--yes", is_flag=True, help="No prompts, no editor: every default.")
def promote(
    ident: str,
    first: int,
    last: int,
    member: str | None,
    goal: str | None,
    code: str | None,
    parent: str | None,
    yes: bool,
) -> None:
    from lazy.cli.common import is_tty
    from lazy.cli.promote import edit_in_editor
    from lazy.tasks.promote import PromoteError
    from lazy.team import promote as team_promote

    interactive = is_tty() and not yes
    with _team("lazy team promote") as conn:
        try:
            plan = team_promote.check(conn, ident, first, last, member)
            if code:
                code = team_promote.check_code(conn, plan, code)
            if interactive:
                goal, code, parent = _ask_team(conn, plan, goal, code, parent)
            prompt = edit_in_editor(plan.default_prompt) if interactive else None
            if interactive and not (prompt or "").strip():
                raise click.ClickException("the prompt was left empty: aborted, no task created")
            task, overlaps = team_promote.create(
                conn, plan, goal=goal, code=code, parent=parent, prompt=prompt
            )
        except browse.NotFoundOnTeam as e:
            raise _fail(e) from e
        except PromoteError as e:
            raise click.ClickException(f"cannot promote: {e.message}") from e
    out.print(
        shown(
            f"Created task {task.code} on the team ({plan.builder.project}) from"
            f" {plan.builder.member}'s {plan.builder.builder_id[:8]} messages"
            f" {task.from_message}–{task.to_message}: {one_line(task.goal)}"
        )
    )
    for other in overlaps:
        err.print(shown(f"Overlap: {team_promote.overlap_note(task, other)}", "yellow"))


@team.command("tasks", help="Tasks promoted from the team's Builders, newest first.")
@click.option("--project", help="Only this project's.")
@click.option("--json", "as_json", is_flag=True, help="Print them as JSON.")
def tasks_command(project: str | None, as_json: bool) -> None:
    from lazy.team import promote as team_promote

    with _team("lazy team tasks") as conn:
        rows = team_promote.tasks(conn, project)
    if as_json:
        emit_json(
            [
                {**t.__dict__, "created_at": t.created_at.isoformat() if t.created_at else None}
                for t in rows
            ]
        )
        return
    if not rows:
        out.print("No tasks on the team yet (`lazy team promote ID --from N --to M`).")
        return
    table = Table(box=None, pad_edge=False, header_style="bold")
    for col in ("code", "by", "from", "messages", "goal"):
        table.add_column(col, no_wrap=col != "goal", overflow="ellipsis")
    for t in rows:
        table.add_row(
            shown(t.code),
            shown(t.by),
            shown(t.builder_id[:8]),
            f"{t.from_message}–{t.to_message}",
            shown(one_line(t.goal)),
        )
    out.print(table)
