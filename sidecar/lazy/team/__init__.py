"""Lazy Teams: Builders shared through a PostgreSQL database.

Each member's local store stays the system of record; the team database receives what members
push (the redacted message view, never the raw archive) and serves what they browse. Access is
PostgreSQL's: a login role per member, row-level security per project membership. The design,
with its failure modes, is ``docs/team.md``.

    identity.py   who pushes (member) and under which name a repo is shared (project key)
    conninfo.py   connection strings: parsed, checked, never stored or shown with a password
    schema.py     the team schema, versioned like the local store's, and its access rules
    db.py         connections (psycopg 3's pool) and what a failure means to the user
    state.py      this machine's team settings and push record ($LAZY_HOME/team.json)
    push.py       what goes (plan, --dry-run) and sending it, idempotently
    browse.py     teammates' Builders: list, one transcript, full-text search
"""
