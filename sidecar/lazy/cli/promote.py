"""`lazy conversations promote`: a range of a conversation's messages into a backlog task."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path

import click
from rich.text import Text

from lazy.cli.common import err, is_tty, open_store, out, resolve, shown
from lazy.store import Store
from lazy.tasks.promote import (
    Plan,
    PromoteError,
    check_code,
    check_parent,
    check_range,
    create,
    default_code,
    default_goal,
    overlap_note,
    seed,
)
from lazy.view.terminal import one_line


def _fail(e: PromoteError) -> click.ClickException:
    return click.ClickException(f"cannot promote: {e.message}")


def _editor() -> str:
    return os.environ.get("EDITOR") or os.environ.get("VISUAL") or "vi"


def edit_in_editor(text: str) -> str:
    """``text`` as the user left it in their editor. An editor that fails leaves the file
    where it is, named in the error, so nothing typed is lost."""
    fd, name = tempfile.mkstemp(prefix="lazy-task-", suffix=".md")
    path = Path(name)
    with os.fdopen(fd, "w", encoding="utf-8") as f:
        f.write(text)
    editor = _editor()
    try:
        rc = subprocess.run([*shlex.split(editor), str(path)], check=False).returncode
    except OSError as e:
        path.unlink(missing_ok=True)
        raise click.ClickException(
            f"could not start the editor {editor!r} ({type(e).__name__}: {e});"
            " set $EDITOR, or pass --yes to take the seeded prompt"
        ) from e
    if rc != 0:
        raise click.ClickException(
            f"the editor {editor!r} exited with status {rc}: no task created;"
            f" the prompt is kept in {path}"
        )
    edited = path.read_text(encoding="utf-8")
    path.unlink(missing_ok=True)
    return edited


def _ask(
    store: Store, plan: Plan, goal: str | None, code: str | None, parent: str | None
) -> tuple[str, str, str | None]:
    """Goal, code and parent: those given, the rest asked for with their fallbacks."""
    conn = store.conn
    if goal is None:
        seeded = default_goal(plan.messages)  # transcript text: shown safe, kept exact
        goal = click.prompt(f"Goal [{one_line(seeded)}]", default=seeded, show_default=False)
        goal = goal.strip()
    if code is None:

        def valid_code(value: str) -> str:
            try:
                return check_code(conn, value)
            except PromoteError as e:
                raise click.BadParameter(e.message) from e

        code = click.prompt("Code", default=default_code(conn, goal or ""), value_proc=valid_code)
    if parent is None:

        def valid_parent(value: str) -> str:
            try:
                return check_parent(conn, value) or ""
            except PromoteError as e:
                raise click.BadParameter(e.message) from e

        parent = click.prompt(
            "Parent task code (empty: none)",
            default="",
            show_default=False,
            value_proc=valid_parent,
        )
    return goal or "", code or "", parent or None


@click.command("promote")
@click.argument("ident", metavar="ID")
@click.option(
    "--from",
    "first",
    type=int,
    required=True,
    help="First message of the range (numbers from 1, as `lazy conversations show` prints them).",
)
@click.option("--to", "last", type=int, required=True, help="Last message of the range (included).")
@click.option("--goal", help="The task's goal. Default: the first thing you said in the range.")
@click.option("--code", help="The task's code (unique). Default: a short slug of the goal.")
@click.option("--parent", help="The code of the task this one belongs under. Default: none.")
@click.option(
    "--yes",
    is_flag=True,
    help="No prompts and no editor: take the seeded prompt as it is (automatic when not on a terminal).",
)
def promote(
    ident: str,
    first: int,
    last: int,
    goal: str | None,
    code: str | None,
    parent: str | None,
    yes: bool,
) -> None:
    """Turn messages --from N --to M of a conversation into a backlog task.

    Asks for the goal, code and parent (those not given as options), then opens $EDITOR
    (else $VISUAL, else vi) on the task's prompt, seeded with those messages verbatim;
    the task is created when the editor closes, unless the file was emptied. Everything
    that can refuse the promotion (an unknown id, a range the conversation does not
    have, a range already promoted, a taken code, an unknown parent) is checked before
    the editor opens. A range overlapping an earlier promotion is allowed, and said.

    ID is an alias (`lazy alias`), a Builder id or any of its session ids, or a unique
    prefix of one.

    The task is created in the backlog and never started. `lazy tasks` lists tasks;
    `lazy conversations show ID` lists what was promoted from a conversation.

    \b
    lazy conversations show 3f9a01b2                  # message numbers are in the transcript
    lazy conversations promote 3f9a01b2 --from 12 --to 18
    lazy conversations promote 3f9a01b2 --from 12 --to 18 --goal "Retention" --yes
    lazy conversations promote reviewer --from 3 --to 5 --yes   # by its alias
    """
    interactive = is_tty() and not yes
    with open_store() as store:
        bid = resolve(store, ident)
        try:
            plan = check_range(store.conn, bid, first, last)
            if code is not None:
                code = check_code(store.conn, code)
            if parent is not None:
                parent = check_parent(store.conn, parent) or ""
        except PromoteError as e:
            raise _fail(e) from e
        for task in plan.overlaps:
            err.print(shown(f"Overlap: {overlap_note(plan, task)}", style="yellow"))
        if interactive:
            goal, code, parent = _ask(store, plan, goal, code, parent)
        else:
            goal = goal or default_goal(plan.messages)
            code = code or default_code(store.conn, goal)
        prompt = seed(plan.messages)
        if interactive:
            edited = edit_in_editor(prompt)
            if not edited.strip():
                raise click.ClickException("the prompt was left empty: aborted, no task created")
            prompt = edited
        try:
            task = create(store, plan, goal=goal, code=code, parent=parent or None, prompt=prompt)
        except PromoteError as e:
            if interactive:  # refused meanwhile (another process): keep what was typed
                fd, kept = tempfile.mkstemp(prefix="lazy-task-", suffix=".md")
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    f.write(prompt)
                raise click.ClickException(
                    f"cannot promote: {e.message}; your prompt is kept in {kept}"
                ) from e
            raise _fail(e) from e
    line = Text.assemble(
        "Created task ",
        (task.code, "bold"),
        f" in the backlog from conversation {plan.builder.short_id}",
        f" messages {task.from_message}–{task.to_message}: ",
    )
    line.append_text(shown(task.goal, multiline=False))
    out.print(line)
