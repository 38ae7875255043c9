"""Builders as a surface shows them with their names: a page of them, one of them, and
naming one. Transcript text redacted (``view.reading``), each labelled with its alias from
the session registry (the process-wide one unless another is given)."""

from __future__ import annotations

import sqlite3
import warnings
from pathlib import Path

from lazy.aliases.registry import RegistryWriteWarning, SessionRegistry, default_session_registry
from lazy.aliases.resolve import label_builders, name_builder, resolve_conversation
from lazy.model import BuilderInfo
from lazy.store.queries import resolve_builder
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


def named_builder(
    conn: sqlite3.Connection,
    ident: str,
    *,
    home: Path | None = None,
    registry: SessionRegistry | None = None,
) -> BuilderInfo:
    """The Builder ``ident`` names (its id, a session id, a unique prefix, or else an
    alias), labelled."""
    registry = registry or default_session_registry()
    info = builder_info(conn, resolve_conversation(conn, ident, registry=registry), home=home)
    return label_builders(registry, [info])[0]


def named_id(
    conn: sqlite3.Connection, ident: str, *, registry: SessionRegistry | None = None
) -> str:
    """The Builder id ``ident`` names: its id, a session id, a unique prefix, or else an
    alias (the VS Code quick open takes either)."""
    return resolve_conversation(conn, ident, registry=registry or default_session_registry())


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
    bid = resolve_builder(conn, ident)
    registry = registry or default_session_registry()
    with warnings.catch_warnings(record=True) as said:
        warnings.simplefilter("always", RegistryWriteWarning)
        name_builder(registry, conn, bid, name)
    for w in said:  # the registry never raises a failed save: it is the answer here
        if isinstance(w.message, RegistryWriteWarning):
            raise RegistryWriteFailed(w.message)
    return label_builders(registry, [builder_info(conn, bid, home=home)])[0]
