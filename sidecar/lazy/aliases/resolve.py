"""Aliases for Builders: the session registry joined to the store.

An alias names the conversation an agent resumes. A Builder joins many session files; the
one its agent resumes is its most recent main session (the last of
``BuilderInfo.session_ids``, ordered as the joining orders them), and the alias's agent is
the Builder's tool. `lazy alias` binds through here, and `lazy builder --resume <alias>`
resolves through here (re-binding when the agent answers a resume with a new id).
"""

from __future__ import annotations

import os
import sqlite3

from lazy.agents import TOOLS
from lazy.aliases.registry import SessionEntry, SessionRegistry, check_name, normalize_scope
from lazy.model import BuilderInfo
from lazy.store.lookups import conversation_of, last_model
from lazy.store.queries import Ambiguous, NotFound, builder_info, resolve_builder


class AmbiguousAlias(LookupError):
    """The name is bound for several agents in one scope; the caller must say which."""

    def __init__(self, name: str, scope: str, entries: list[SessionEntry]):
        self.name = name
        self.scope = scope
        self.entries = entries
        agents = ", ".join(e.agent for e in entries)
        super().__init__(f"alias {name!r} is bound for {agents} in {scope}; say which agent")


def resume_target(conn: sqlite3.Connection, builder_id: str) -> tuple[str, str]:
    """(agent, native id) the agent resumes for a Builder: its tool, its most recent main
    session. NotFound when the store has no such Builder or it has no session to resume."""
    info = builder_info(conn, builder_id)
    if info.tool not in TOOLS:
        raise ValueError(f"conversation {builder_id} is from {info.tool!r}, which has no aliases")
    if not info.session_ids:
        raise NotFound(f"conversation {builder_id} has no session with messages to resume")
    return info.tool, info.session_ids[-1]


def bind_builder(
    registry: SessionRegistry,
    scope: str | os.PathLike[str],
    name: str,
    builder_id: str,
    store_conn: sqlite3.Connection,
) -> tuple[str, str]:
    """Bind ``name`` in ``scope`` to the session a Builder's agent resumes; returns (agent,
    native id). ValueError for a bad name, NotFound for an unknown Builder; a failure to
    save is the registry's RegistryWriteWarning."""
    check_name(name)
    agent, native_id = resume_target(store_conn, builder_id)
    registry.bind(agent, scope, name, native_id, model=last_model(store_conn, builder_id))
    return agent, native_id


def resolve_alias(
    registry: SessionRegistry,
    scope: str | os.PathLike[str],
    name: str,
    agent: str | None = None,
) -> tuple[str, str] | None:
    """(agent, native id) the alias names in ``scope``, or None. Without ``agent``, a name
    bound for several agents there is an :class:`AmbiguousAlias`."""
    check_name(name)
    found = [e for e in registry.entries(agent=agent, scope=scope) if e.name == name]
    if not found:
        return None
    if len(found) > 1:
        raise AmbiguousAlias(name, normalize_scope(scope), found)
    return found[0].agent, found[0].native_id


class Unnamed(NotFound):
    """Nothing ``ident`` could be names a stored conversation; ``tried`` says what it was
    looked up as, and ``elsewhere`` what it named that the store does not have."""

    def __init__(self, ident: str, tried: list[str], elsewhere: list[str]):
        self.ident, self.tried, self.elsewhere = ident, tried, elsewhere
        super().__init__(ident)


def _in_reach(scope: str, here: str | None) -> bool:
    return here is not None and (here == scope or here.startswith(scope.rstrip("/") + "/"))


def _named(
    conn: sqlite3.Connection, entries: list[SessionEntry], ident: str
) -> tuple[list[str], list[str]]:
    """(Builder ids, sorted, distinct) the entries name in the store, and the sessions
    they name that it does not have."""
    found: set[str] = set()
    missing = []
    for e in entries:
        known = conversation_of(conn, e.native_id)
        if known is None:
            missing.append(f"alias {ident!r} ({e.agent}, {e.scope}) names session {e.native_id}")
        else:
            found.add(known[0])
    return sorted(found), missing


def _ambiguous(conn: sqlite3.Connection, ident: str, bids: list[str]) -> Ambiguous:
    infos = [builder_info(conn, b) for b in bids]
    return Ambiguous(ident, [(i.id, i.started_at, i.summary) for i in infos])


def resolve_conversation(
    conn: sqlite3.Connection,
    ident: str,
    *,
    registry: SessionRegistry,
    cwd: str | os.PathLike[str] | None = None,
) -> str:
    """The Builder id ``ident`` names, looked up in this order: an alias bound in ``cwd`` or
    the nearest folder above it that binds it; a Builder id, a session id or a unique prefix
    of one; an alias bound in any other scope. An alias bound for several agents (or, outside
    ``cwd``, in several scopes) names a conversation only when they all name the same one.
    Ambiguous (its candidates) when it names several; :class:`Unnamed` when it names none."""
    ident = ident.strip()
    try:
        check_name(ident)
        nameable = True
    except ValueError:
        nameable = False  # not a name an alias can have: an id only
    entries: list[SessionEntry] | None = None  # read when first needed
    here = normalize_scope(cwd) if cwd is not None and nameable else None
    missing: list[str] = []
    if here is not None:
        entries = [e for e in registry.entries() if e.name == ident]
        near = sorted((e for e in entries if _in_reach(e.scope, here)), key=lambda e: -len(e.scope))
        bids, missing = _named(
            conn, [e for e in near if e.scope == near[0].scope] if near else [], ident
        )
        if len(bids) > 1:
            raise _ambiguous(conn, ident, bids)
        if bids:
            return bids[0]
    try:
        return resolve_builder(conn, ident)
    except NotFound:
        pass
    if entries is None:
        entries = [e for e in registry.entries() if e.name == ident] if nameable else []
    bids, more = _named(conn, [e for e in entries if not _in_reach(e.scope, here)], ident)
    if len(bids) > 1:
        raise _ambiguous(conn, ident, bids)
    if bids:
        return bids[0]
    tried = ["a Builder id, session id or unique prefix of one"]
    if nameable:
        tried.append(f"an alias in the session registry ({registry.path})")
    raise Unnamed(ident, tried, missing + more)


def label_builders(registry: SessionRegistry, infos: list[BuilderInfo]) -> list[BuilderInfo]:
    """Each Builder with its alias: a name the registry binds to one of its sessions (the
    newest such), in any scope; one read of the registry for the lot."""
    names: dict[tuple[str, str], str] = {}
    for e in registry.entries():
        names.setdefault((e.agent, e.native_id), e.name)
    out = []
    for info in infos:
        alias = next(
            (names[k] for sid in reversed(info.session_ids) if (k := (info.tool, sid)) in names),
            None,
        )
        out.append(info.model_copy(update={"alias": alias}) if alias != info.alias else info)
    return out


def name_builder(
    registry: SessionRegistry, conn: sqlite3.Connection, builder_id: str, name: str | None
) -> None:
    """Make ``name`` the Builder's only alias in its project (None: remove its aliases there).
    ValueError for a bad name or a Builder with no project; NameTaken when the name already
    belongs to another conversation there."""
    info = builder_info(conn, builder_id)
    if info.project is None:
        raise ValueError(f"conversation {info.short_id} has no project to scope a name to")
    mine = set(info.session_ids)
    if name is not None:
        check_name(name)
        taken = registry.get(info.tool, info.project, name)
        if taken is not None and taken.native_id not in mine:
            other = conversation_of(conn, taken.native_id)
            raise NameTaken(name, info.project, other[0] if other else taken.native_id)
    for e in registry.entries(agent=info.tool, scope=info.project):
        if e.native_id in mine and e.name != name:
            registry.forget(e.agent, e.scope, e.name)
    if name is not None:
        bind_builder(registry, info.project, name, builder_id, conn)


class NameTaken(LookupError):
    def __init__(self, name: str, scope: str, owner: str):
        self.name, self.scope, self.owner = name, scope, owner
        super().__init__(f"alias {name!r} already names conversation {owner[:8]} in {scope}")
