"""`lazy alias`: names for conversations, kept in the session registry, to resume them by."""

from __future__ import annotations

import logging
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from rich.table import Table
from rich.text import Text

from lazy.aliases.registry import (
    ENV_FILE,
    RegistryWarning,
    RegistryWriteWarning,
    SessionEntry,
    SessionRegistry,
    check_name,
    normalize_scope,
)
from lazy.aliases.resolve import resume_target
from lazy.cli.common import (
    AgentChoice,
    F,
    emit_json,
    err,
    json_option,
    open_store,
    out,
    shown,
    when,
)
from lazy.store import Store, lazy_home
from lazy.store.lookups import conversation_of, last_model
from lazy.store.queries import Ambiguous, NotFound, resolve_builder, short_id
from lazy.view.reading import builder_info
from lazy.view.redaction import redactor


def _fail(message: str) -> click.ClickException:
    return click.ClickException(message)


def scope_option(f: F) -> F:
    return click.option(
        "--scope",
        type=click.Path(file_okay=False, path_type=Path),
        default=None,
        help="The directory the alias belongs to (default: the current directory, resolved).",
    )(f)


def registry_option(f: F) -> F:
    return click.option(
        "--registry",
        "registry_file",
        type=click.Path(dir_okay=False, path_type=Path),
        default=None,
        help=f"The registry file (default: ${ENV_FILE}, else ~/.lazybridge/sessions.json).",
    )(f)


def tool_option(f: F) -> F:
    return click.option(
        "--tool",
        type=AgentChoice(),
        default=None,
        help="The agent whose alias it is, when the name is bound for several here.",
    )(f)


def _where(scope: Path | None) -> str:
    try:
        return normalize_scope(scope if scope is not None else os.getcwd())
    except (ValueError, OSError) as e:
        raise _fail(f"bad scope {scope}: {e}") from e


@contextmanager
def _saving() -> Iterator[None]:
    """Registry calls whose failure to save is this command's failure: the registry warns
    (it never fails an agent's turn), the command exits 1 with the warning's one line."""
    quiet = [logging.getLogger(n) for n in ("lazy.aliases.registry", "lazy.os.lockfile")]
    null = logging.NullHandler()  # the warnings below say it once; no second copy on stderr
    for logger in quiet:
        logger.addHandler(null)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", RegistryWarning)
            yield
    finally:
        for logger in quiet:
            logger.removeHandler(null)
    failed = [w.message for w in caught if isinstance(w.message, RegistryWriteWarning)]
    if failed:
        raise _fail(str(failed[0]))  # one line: what went wrong with the write
    for w in caught:
        err.print(shown(f"warning: {w.message}", style="yellow"))


def _builder(store: Store, ident: str) -> str:
    try:
        return resolve_builder(store.conn, ident)
    except Ambiguous as e:
        ids = ", ".join(bid for bid, _, _ in e.candidates)
        raise _fail(
            f"{ident!r} is ambiguous: it matches {len(e.candidates)} conversations ({ids});"
            " give more of the id"
        ) from e
    except NotFound as e:
        raise _fail(
            f"no conversation {ident!r} in the store (see `lazy conversations --all-projects`)"
        ) from e


def _the_alias(registry: SessionRegistry, where: str, name: str, tool: str | None) -> SessionEntry:
    """The one binding of ``name`` in ``where`` (of ``tool`` when given), or a clear error."""
    try:
        check_name(name)
    except ValueError as e:
        raise _fail(str(e)) from e
    with _saving():
        found = [e for e in registry.entries(agent=tool, scope=where) if e.name == name]
    if not found:
        of = f" {tool}" if tool else ""
        raise _fail(f"no{of} alias {name!r} in {where} (see `lazy alias list`)")
    if len(found) > 1:
        agents = ", ".join(e.agent for e in found)
        raise _fail(f"alias {name!r} is bound for {agents} in {where}; pick one with --tool")
    return found[0]


@click.group("alias")
def alias() -> None:
    """Name conversations, to resume them by name.

    An alias belongs to a directory (its scope: the current directory unless --scope says
    otherwise) and an agent; it points at the session the agent resumes. Aliases live in
    the session registry: --registry FILE, else $LAZYBRIDGE_SESSIONS_FILE, else
    ~/.lazybridge/sessions.json. Names start with an ASCII letter, then letters, digits,
    _ . or -, at most 64 characters.

    \b
    lazy alias set reviewer 4f8c2a1b      # name a conversation of the store
    lazy alias list                       # this directory's aliases
    lazy alias list --all-scopes --json   # every alias, as JSON
    lazy alias rename reviewer critic
    lazy alias rm critic
    """


@alias.command("set")
@click.argument("name")
@click.argument("ident", metavar="ID")
@scope_option
@registry_option
def alias_set(name: str, ident: str, scope: Path | None, registry_file: Path | None) -> None:
    """Point NAME at a stored conversation.

    ID is a Builder id, any of its session ids, or a unique prefix of one. The alias's
    agent is the conversation's; it points at the conversation's most recent session, the
    one its agent resumes. Setting an existing alias moves it (the command says from where).
    """
    try:
        check_name(name)
    except ValueError as e:
        raise _fail(str(e)) from e
    where = _where(scope)
    registry = SessionRegistry(registry_file)
    with open_store() as store:
        bid = _builder(store, ident)
        try:
            agent_name, native_id = resume_target(store.conn, bid)
        except (NotFound, ValueError) as e:
            raise _fail(str(e)) from e
        info = builder_info(store.conn, bid)
        with _saving():
            before = registry.get(agent_name, where, name)
            try:
                registry.bind(agent_name, where, name, native_id, model=last_model(store.conn, bid))
            except ValueError as e:  # a session id no agent would take back (controls in it)
                raise _fail(f"cannot name {info.short_id}: {e}") from e
    line = Text.assemble((name, "bold"), f" → {agent_name} {native_id}")
    if info.summary:
        line.append_text(shown(f"  {info.summary[:60]}", "dim", multiline=False))
    out.print(line)
    if before is not None and before.native_id != native_id:
        out.print(shown(f"(it pointed at {before.native_id} before)", style="yellow"))
    out.print(shown(f"scope {where}", style="dim"))


@alias.command("list")
@click.option("--all-scopes", is_flag=True, help="Every directory's aliases, not just this one's.")
@scope_option
@registry_option
@json_option
def alias_list(
    all_scopes: bool, scope: Path | None, registry_file: Path | None, as_json: bool
) -> None:
    """List aliases: name, agent, native id (short), the conversation it names (when the
    store has it), last updated."""
    if all_scopes and scope is not None:
        raise click.UsageError("--scope and --all-scopes exclude each other")
    where = None if all_scopes else _where(scope)
    registry = SessionRegistry(registry_file)
    with _saving():
        entries = registry.entries(scope=where)
    conversations: dict[str, tuple[str, str]] = {}  # native id -> (builder id, summary)
    if entries and (lazy_home() / "store.db").exists():
        with open_store() as store:
            for e in entries:
                known = conversation_of(store.conn, e.native_id)
                if known is not None:
                    conversations[e.native_id] = (known[0], redactor()(known[1]))
    if as_json:
        emit_json(
            {
                "registry": str(registry.path),
                "scope": where,
                "aliases": [
                    {
                        **e.to_json(),
                        "builder_id": conversations.get(e.native_id, (None, None))[0],
                        "summary": conversations.get(e.native_id, (None, None))[1],
                    }
                    for e in entries
                ],
            }
        )
        return
    if not entries:
        out.print(f"No aliases in {where or 'the registry'} ({registry.path}).")
        out.print("Name a conversation with `lazy alias set NAME ID`.")
        return
    t = Table(box=None, pad_edge=False, header_style="bold")
    if all_scopes:
        t.add_column("scope", no_wrap=True, overflow="fold")
    t.add_column("name", no_wrap=True)
    t.add_column("kind", no_wrap=True)
    t.add_column("native id", no_wrap=True)
    t.add_column("conversation", overflow="ellipsis", no_wrap=True, max_width=80)
    t.add_column("updated", no_wrap=True)
    for e in entries:
        known = conversations.get(e.native_id)
        summary = shown(known[1] or "(no words)") if known else Text("not in the store", "dim")
        row: list[str | Text] = [
            e.name,
            e.agent,
            short_id(e.native_id),
            summary,
            when(e.updated_at),
        ]
        t.add_row(*([e.scope] if all_scopes else []), *row)
    out.print(t)


@alias.command("rename")
@click.argument("old")
@click.argument("new")
@tool_option
@scope_option
@registry_option
def alias_rename(
    old: str, new: str, tool: str | None, scope: Path | None, registry_file: Path | None
) -> None:
    """Rename alias OLD to NEW (NEW must not be bound yet)."""
    where = _where(scope)
    registry = SessionRegistry(registry_file)
    entry = _the_alias(registry, where, old, tool)
    try:
        with _saving():
            registry.rename(entry.agent, where, old, new)
    except KeyError as e:
        raise _fail(str(e.args[0])) from e
    except ValueError as e:
        raise _fail(str(e)) from e
    out.print(Text.assemble("renamed ", (old, "bold"), " → ", (new, "bold"), f" ({entry.agent})"))


@alias.command("rm")
@click.argument("name")
@tool_option
@scope_option
@registry_option
def alias_rm(name: str, tool: str | None, scope: Path | None, registry_file: Path | None) -> None:
    """Remove alias NAME (the conversation itself stays; the line printed has what it
    pointed at, to set it again)."""
    where = _where(scope)
    registry = SessionRegistry(registry_file)
    entry = _the_alias(registry, where, name, tool)
    with _saving():
        removed = registry.forget(entry.agent, where, name)
    if not removed:
        raise _fail(f"alias {name!r} was removed by someone else meanwhile")
    out.print(Text.assemble("removed ", (name, "bold"), f" ({entry.agent} {entry.native_id})"))
