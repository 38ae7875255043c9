"""Connections to the team database and what their failures mean to a member.

A command makes one connection; the sidecar and the daemon, which push on every sweep, keep
psycopg's pool (``pool()``) so a sweep does not pay a connection each time and a dropped one is
replaced (``check_connection`` before it is lent). Every failure becomes a ``TeamError`` whose
message says what happened and what to do, naming the server, never the password."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
from psycopg import errors
from psycopg_pool import ConnectionPool, PoolTimeout

from lazy.team.conninfo import where
from lazy.team.schema import Conn, SchemaError, check

CONNECT_TIMEOUT = 10  # seconds: an unreachable server is said so, not waited on


class TeamError(RuntimeError):
    """A team operation that failed; ``kind``: unreachable, lost, rights, schema, refused."""

    def __init__(self, message: str, kind: str) -> None:
        super().__init__(message)
        self.kind = kind


def _reason(e: BaseException) -> str:
    """libpq's own words, first line (its host and user, never a password)."""
    text = str(e).strip().splitlines()
    return text[0] if text else type(e).__name__


def explain(e: BaseException, conninfo: str, doing: str) -> TeamError:
    at = where(conninfo)
    if isinstance(e, TeamError):
        return e
    if isinstance(e, SchemaError):
        return TeamError(str(e), "schema")
    if isinstance(e, errors.InsufficientPrivilege):
        diag = e.diag
        hint = f" ({diag.message_hint})" if diag and diag.message_hint else ""
        return TeamError(f"{doing} was refused by {at}: {_reason(e)}{hint}", "rights")
    if isinstance(e, errors.UndefinedTable | errors.InvalidSchemaName):
        return TeamError(
            f"{at} has no lazy team schema: its owner runs `lazy team init <conninfo>`", "schema"
        )
    if isinstance(e, psycopg.OperationalError):
        return TeamError(
            f"{doing} failed: the connection to {at} was lost or refused ({_reason(e)});"
            " nothing is half-written: run it again when the server is back",
            "lost",
        )
    if isinstance(e, psycopg.Error):
        return TeamError(f"{doing} failed at {at}: {_reason(e)}", "refused")
    raise e


@contextmanager
def connect(conninfo: str, doing: str, *, checked: bool = True) -> Iterator[Conn]:
    """One connection (the schema's version checked unless ``checked`` is off), closed after;
    any failure as a TeamError."""
    try:
        conn = psycopg.connect(
            conninfo, connect_timeout=CONNECT_TIMEOUT, application_name="lazy", autocommit=True
        )
    except psycopg.Error as e:
        raise TeamError(
            f"cannot reach the team database at {where(conninfo)}: {_reason(e)}", "unreachable"
        ) from None
    try:
        if checked:
            check(conn)
        yield conn
    except (psycopg.Error, SchemaError) as e:
        raise explain(e, conninfo, doing) from None
    finally:
        conn.close()


@contextmanager
def lend(pool: ConnectionPool[Conn], conninfo: str, doing: str) -> Iterator[Conn]:
    """A connection from ``pool`` (opened on first use), the schema checked; any failure as a
    TeamError, an unreachable server included."""
    try:
        pool.open(wait=False)
        with pool.connection() as conn:
            check(conn)
            yield conn
    except PoolTimeout:
        raise TeamError(
            f"cannot reach the team database at {where(conninfo)}: no connection within"
            f" {CONNECT_TIMEOUT} s",
            "unreachable",
        ) from None
    except (psycopg.Error, SchemaError) as e:
        raise explain(e, conninfo, doing) from None


def pool(conninfo: str) -> ConnectionPool[Conn]:
    """A small pool for a process that pushes on every sweep; opened lazily, so an unreachable
    server costs nothing until a push is tried."""
    return ConnectionPool(
        conninfo,
        min_size=0,
        max_size=2,
        open=False,
        timeout=CONNECT_TIMEOUT,
        check=ConnectionPool.check_connection,
        kwargs={"connect_timeout": CONNECT_TIMEOUT, "application_name": "lazy", "autocommit": True},
    )
