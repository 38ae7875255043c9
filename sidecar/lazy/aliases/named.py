"""Builders as a surface shows them with their names: a page of them, one of them, naming
one, and finding one by its name. Transcript text redacted (``view.reading``), each labelled
with its alias from the session registry (the process-wide one unless another is given)."""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

from lazy.aliases.registry import (
    RegistryWriteWarning,
    SessionRegistry,
    check_name,
    default_session_registry,
)
from lazy.aliases.resolve import label_builders, name_builder
from lazy.model import BuilderInfo
from lazy.store.lookups import conversation_of
from lazy.store.queries import Ambiguous, resolve_builder
from lazy.view.reading import builder_info, builders_page

# (sort key, Builder id) of the last Builder of a page: where the next page starts
After = tuple[str, str]


class RegistryWriteFailed(Exception):
    """A name was not saved: the registry's warning (its ``code`` and ``error``) as a failure."""

    def __init__(self, warning: RegistryWriteWarning) -> None:
        super().__init__(str(warning))
        self.warning = warning


def named_page(
    conn: sqlite3.Connection,
    *,
    under: list[str] | None,
    agents: list[str],
    text: str | None,
    after: After | None,
    limit: int,
    home: Path | None = None,
    registry: SessionRegistry | None = None,
) -> tuple[list[BuilderInfo], After | None]:
    """A page of Builders (``builders_page``'s filters), labelled; and where the next page
    starts, None when this was the last."""
    items = builders_page(
        conn,
        under=under,
        tools=agents,
        text=text,
        after=after,
        limit=limit + 1,  # one more tells whether there is a next page
        home=home,
    )
    more = len(items) > limit
    items = label_builders(registry or default_session_registry(), items[:limit])
    last = items[-1] if items else None
    return items, ((last.started_at or "", last.id) if more and last else None)


def resolve_named(
    conn: sqlite3.Connection,
    ident: str,
    *,
    home: Path | None = None,
    registry: SessionRegistry | None = None,
) -> str:
    """The id of the Builder ``ident`` names: its id or a session id, else an alias (``lazy
    alias``, Name This Builder…) bound in any project, else a unique prefix
    (``resolve_builder``). An alias bound to several Builders (in different projects) is
    ``Ambiguous``, its candidates those Builders; NotFound when nothing answers to it."""
    ident = ident.strip()
    exact = conversation_of(conn, ident)
    if exact is not None:
        return exact[0]
    owners = _named(conn, ident, registry or default_session_registry())
    if len(owners) > 1:
        infos = [builder_info(conn, bid, home=home) for bid in owners]
        raise Ambiguous(ident, [(b.id, b.started_at, b.summary) for b in infos])
    return owners[0] if owners else resolve_builder(conn, ident)


def _named(conn: sqlite3.Connection, name: str, registry: SessionRegistry) -> list[str]:
    """The Builders whose sessions an alias ``name`` is bound to, in any scope, in order."""
    try:
        check_name(name)
    except ValueError:
        return []  # not a name an alias can have: an id or a prefix
    found = {
        owner[0]
        for e in registry.entries()
        if e.name == name and (owner := conversation_of(conn, e.native_id)) is not None
    }
    return sorted(found)


def named_builder(
    conn: sqlite3.Connection,
    ident: str,
    *,
    home: Path | None = None,
    registry: SessionRegistry | None = None,
) -> BuilderInfo:
    """The Builder ``ident`` names (``resolve_named``: an alias, its id, a session id, or a
    unique prefix), labelled."""
    registry = registry or default_session_registry()
    info = builder_info(conn, resolve_named(conn, ident, home=home, registry=registry), home=home)
    return label_builders(registry, [info])[0]


def rename_builder(
    conn: sqlite3.Connection,
    ident: str,
    name: str | None,
    *,
    home: Path | None = None,
    registry: SessionRegistry | None = None,
) -> BuilderInfo:
    """Make ``name`` the alias of the Builder ``ident`` names (None: unname it), labelled
    anew. NameTaken, ValueError (a bad name), RegistryWriteFailed (not saved)."""
    registry = registry or default_session_registry()
    bid = resolve_named(conn, ident, home=home, registry=registry)
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", RegistryWriteWarning)
        name_builder(registry, conn, bid, name)
    for w in said:  # the registry never raises a failed save: it is the answer here
        if isinstance(w.message, RegistryWriteWarning):
            raise RegistryWriteFailed(w.message)
    return label_builders(registry, [builder_info(conn, bid, home=home)])[0]
