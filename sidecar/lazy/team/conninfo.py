"""Connection strings as PostgreSQL's own client reads them (libpq keywords or a
``postgresql://`` URI; ``sslmode``, ``sslrootcert``, ``service`` and the rest pass through).

A password is never stored or shown: lazy keeps the string without it, and the password comes
from where libpq looks for one (``~/.pgpass`` or ``$PGPASSFILE``, a service file, or
``$PGPASSWORD``)."""

from __future__ import annotations

import re

from psycopg import ProgrammingError
from psycopg.conninfo import conninfo_to_dict, make_conninfo


class ConninfoError(ValueError):
    """A connection string libpq cannot parse; the message says why (never its password)."""


def parsed(conninfo: str) -> dict[str, str]:
    try:
        return {k: str(v) for k, v in conninfo_to_dict(conninfo).items() if v is not None}
    except ProgrammingError as e:
        reason = str(e).strip()
        # 'missing "=" after "<word>"': the word may be part of a password typed with spaces
        reason = re.sub(r'after "[^"]*"', "after a word", reason)
        raise ConninfoError(f"not a PostgreSQL connection string: {reason}") from None


def without_password(conninfo: str) -> tuple[str, bool]:
    """``conninfo`` as lazy keeps it, and whether it held a password (dropped)."""
    d = parsed(conninfo)
    had = "password" in d
    d.pop("password", None)
    return make_conninfo("", **d), had


def shown(conninfo: str) -> str:
    """For messages and status: every keyword but the password."""
    try:
        d = parsed(conninfo)
    except ConninfoError:
        return "(a connection string that does not parse)"
    if "password" in d:
        d["password"] = "********"
    return make_conninfo("", **d)


def where(conninfo: str) -> str:
    """``user@host:port/dbname`` for a short message."""
    try:
        d = parsed(conninfo)
    except ConninfoError:
        return "the team database"
    host = d.get("host") or d.get("hostaddr") or "local socket"
    port = f":{d['port']}" if d.get("port") else ""
    user = f"{d['user']}@" if d.get("user") else ""
    db = d.get("dbname") or d.get("service") or ""
    return f"{user}{host}{port}/{db}".rstrip("/")
