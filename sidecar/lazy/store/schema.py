"""The store's schema, as forward migrations; ``PRAGMA user_version`` says how far applied."""

from __future__ import annotations

import sqlite3

MIGRATIONS: list[str] = [
    # 1: capture, raw archive, sessions, builders, messages, quarantine, capture log
    """
    CREATE TABLE source_files(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL UNIQUE,
        tool TEXT NOT NULL,
        session_id TEXT NOT NULL,       -- the session the file name gives
        agent_id TEXT,                  -- subagent files
        size INTEGER NOT NULL DEFAULT 0,
        mtime_ns INTEGER NOT NULL DEFAULT 0,
        read_offset INTEGER NOT NULL DEFAULT 0,   -- end of the last complete line read
        lines_read INTEGER NOT NULL DEFAULT 0,
        head_hash BLOB,                 -- first bytes, to notice a rewrite cheaply
        tail_hash BLOB,                 -- the bytes just before read_offset
        generation INTEGER NOT NULL DEFAULT 0,    -- bumped when the file was rewritten
        status TEXT NOT NULL DEFAULT 'ok',        -- ok | refused | oneshot
        updated_at TEXT NOT NULL
    );
    CREATE INDEX source_files_session ON source_files(session_id);

    -- every source line verbatim, zstd-compressed, in the order read
    CREATE TABLE raw_chunks(
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES source_files(id),
        generation INTEGER NOT NULL,
        start INTEGER NOT NULL,
        end INTEGER NOT NULL,
        first_line INTEGER NOT NULL,
        data BLOB NOT NULL,
        UNIQUE(file_id, generation, start)
    );

    CREATE TABLE sessions(
        id TEXT PRIMARY KEY,            -- session id; "<parent>:<agent>" for a sidechain
        tool TEXT NOT NULL,
        kind TEXT NOT NULL,             -- main | sidechain
        parent_session_id TEXT,
        agent_id TEXT,
        builder_id TEXT,
        project TEXT,
        cwd TEXT,
        git_branch TEXT,
        version TEXT,
        started_at TEXT,
        updated_at TEXT,
        title TEXT,
        clear_start INTEGER NOT NULL DEFAULT 0,
        first_user_seen INTEGER NOT NULL DEFAULT 0,
        continued_in TEXT,
        copied_from TEXT,               -- a fork or 1.0.x resume copy names its origin
        forked INTEGER NOT NULL DEFAULT 0, -- ... and says outright it is a fork
        head_msg TEXT,                  -- first assistant message.id (1.0.x replays repeat it)
        flat INTEGER NOT NULL DEFAULT 0,  -- a 2.0.x agent-<id>.jsonl beside the session files
        head_uuid TEXT,                 -- first non-harness entry: replays and forks copy it
        head_parent TEXT,               -- its parent, when that lies in another file
        tail_uuid TEXT,                 -- its last entry: a file resumed from it continues it
        oneshot INTEGER NOT NULL DEFAULT 0,
        message_count INTEGER NOT NULL DEFAULT 0,
        last_seq INTEGER NOT NULL DEFAULT 0,  -- the seq the next message follows
        dirty INTEGER NOT NULL DEFAULT 1   -- builder membership or numbering to redo
    );
    CREATE INDEX sessions_builder ON sessions(builder_id);
    CREATE INDEX sessions_parent ON sessions(parent_session_id);
    CREATE INDEX sessions_dirty ON sessions(dirty) WHERE dirty > 0;

    -- which sessions hold which uuid (harness lines aside), so Builders can be re-joined
    -- from the store alone: joining asks "who else holds this uuid?". One narrow b-tree: it
    -- takes a row per source line. (A rare per-session delete, as a re-derive does, scans.)
    CREATE TABLE entries(
        uuid TEXT NOT NULL,
        session_id TEXT NOT NULL,
        PRIMARY KEY(uuid, session_id)
    ) WITHOUT ROWID;

    -- the subagents a session's tool results name (toolUseResult.agentId): a 2.0.x agent
    -- file no tool call spawned is a start-up warm-up, not a sidechain of the conversation
    CREATE TABLE spawns(
        session_id TEXT NOT NULL,
        agent_id TEXT NOT NULL,
        PRIMARY KEY(session_id, agent_id)
    ) WITHOUT ROWID;

    -- compaction boundaries whose logical parent may lie in another file
    CREATE TABLE session_links(
        session_id TEXT NOT NULL,
        target_uuid TEXT NOT NULL,
        PRIMARY KEY(session_id, target_uuid)
    ) WITHOUT ROWID;

    CREATE TABLE messages(
        id INTEGER PRIMARY KEY,
        session_id TEXT NOT NULL,
        key TEXT NOT NULL,              -- message.id, else the line uuid
        seq INTEGER NOT NULL,           -- order within the session
        role TEXT NOT NULL,
        kinds TEXT NOT NULL,
        text TEXT NOT NULL,             -- the words said: text blocks (tool I/O lives in blocks)
        blocks BLOB,                    -- zstd(orjson(normalized blocks)); NULL: one text block
        uuids TEXT NOT NULL,
        meta INTEGER NOT NULL DEFAULT 0,
        model TEXT,
        request_id TEXT,
        usage TEXT,
        tool_name TEXT,
        ts TEXT,
        builder_id TEXT,
        number INTEGER,                 -- from 1 within the Builder (or its sidechain)
        UNIQUE(session_id, key)
    );
    CREATE INDEX messages_builder ON messages(builder_id, number);
    CREATE INDEX messages_placing ON messages(session_id, builder_id, seq);

    CREATE TABLE builders(
        id TEXT PRIMARY KEY,
        tool TEXT NOT NULL,
        project TEXT,
        started_at TEXT,
        updated_at TEXT,
        summary TEXT NOT NULL DEFAULT '',
        title TEXT,
        message_count INTEGER NOT NULL DEFAULT 0,
        forked_from TEXT
    );
    CREATE INDEX builders_updated ON builders(project, started_at);

    CREATE TABLE quarantine(
        id INTEGER PRIMARY KEY,
        path TEXT NOT NULL,
        line_no INTEGER NOT NULL,
        byte_offset INTEGER NOT NULL,
        generation INTEGER NOT NULL DEFAULT 0,
        reason TEXT NOT NULL,
        raw BLOB NOT NULL,
        raw_size INTEGER NOT NULL,
        at TEXT NOT NULL,
        UNIQUE(path, generation, byte_offset)
    );

    CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);

    CREATE TABLE capture_log(
        id INTEGER PRIMARY KEY,
        at TEXT NOT NULL,
        level TEXT NOT NULL,            -- error | refused | warning
        path TEXT,
        session_id TEXT,
        reason TEXT NOT NULL,
        code TEXT,                      -- machine detail: errno name, exception class
        detail TEXT                     -- the underlying error
    );
    """,
    # 2: Codex and OpenCode beside Claude Code; per-message memories
    """
    ALTER TABLE sessions ADD COLUMN git_commit TEXT;
    ALTER TABLE sessions ADD COLUMN git_repo TEXT;
    ALTER TABLE sessions ADD COLUMN provider TEXT;
    -- what a reader must carry from one capture to the next (Codex: the turn being read)
    ALTER TABLE sessions ADD COLUMN cursor TEXT;
    ALTER TABLE messages ADD COLUMN provider TEXT;
    ALTER TABLE messages ADD COLUMN agent_mode TEXT;
    -- a source that is not an append-only file (an OpenCode session) says it changed by this
    ALTER TABLE source_files ADD COLUMN stamp TEXT;

    -- OpenCode keeps records (session, message, part) that it edits in place, not lines:
    -- every version seen is kept, verbatim and compressed
    CREATE TABLE raw_records(
        id INTEGER PRIMARY KEY,
        file_id INTEGER NOT NULL REFERENCES source_files(id),
        record_id TEXT NOT NULL,
        kind TEXT NOT NULL,
        hash BLOB NOT NULL,
        origin TEXT NOT NULL,
        data BLOB NOT NULL,
        seen_at TEXT NOT NULL,
        UNIQUE(file_id, record_id, hash)
    );

    -- the label each project has in memory paths: the first project seen keeps the plain one
    CREATE TABLE project_slugs(
        project TEXT PRIMARY KEY,       -- git root of the cwd, else the cwd
        slug TEXT NOT NULL UNIQUE
    );

    -- one imported message: <tree>/<name> is its address, (tree, name) its identity
    CREATE TABLE memories(
        id TEXT PRIMARY KEY,            -- UUIDv7: sorts by creation time
        tree TEXT NOT NULL,             -- the session node
        name TEXT NOT NULL,             -- msg_<message id>
        content TEXT NOT NULL,
        meta TEXT NOT NULL,             -- JSON, keys sorted
        temporal TEXT,                  -- the message's timestamp
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE(tree, name)
    );
    """,
    # 3: the search index's work queue
    """
    -- messages whose search document must be (re)written, in the order they changed: filled
    -- by triggers in the transaction that changes them, drained (up to a seq) by whichever
    -- process holds the index's writer lock, after its commit
    CREATE TABLE index_queue(
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        message_id INTEGER NOT NULL
    );
    CREATE TRIGGER messages_queue_insert AFTER INSERT ON messages BEGIN
        INSERT INTO index_queue(message_id) VALUES (new.id);
    END;
    CREATE TRIGGER messages_queue_update
    AFTER UPDATE OF text, blocks, role, kinds, builder_id, number, meta ON messages BEGIN
        INSERT INTO index_queue(message_id) VALUES (new.id);
    END;
    CREATE TRIGGER messages_queue_delete AFTER DELETE ON messages BEGIN
        INSERT INTO index_queue(message_id) VALUES (old.id);
    END;
    INSERT INTO index_queue(message_id) SELECT id FROM messages ORDER BY id;
    """,
    # 4: memories in the search index
    """
    -- a memory is queued as minus its rowid, beside the messages' own ids: one queue, one
    -- order. (The rowid of a table without an INTEGER PRIMARY KEY lasts until a VACUUM,
    -- which lazy never runs; an index rebuild would follow one.)
    CREATE TRIGGER memories_queue_insert AFTER INSERT ON memories BEGIN
        INSERT INTO index_queue(message_id) VALUES (-new.rowid);
    END;
    CREATE TRIGGER memories_queue_update AFTER UPDATE OF content, meta, temporal ON memories
    BEGIN
        INSERT INTO index_queue(message_id) VALUES (-new.rowid);
    END;
    CREATE TRIGGER memories_queue_delete AFTER DELETE ON memories BEGIN
        INSERT INTO index_queue(message_id) VALUES (-old.rowid);
    END;
    INSERT INTO index_queue(message_id) SELECT -rowid FROM memories ORDER BY rowid;
    """,
    # 5: tasks promoted from a range of a Builder's messages, and in the search index
    """
    CREATE TABLE tasks(
        id INTEGER PRIMARY KEY,
        code TEXT NOT NULL UNIQUE,
        goal TEXT NOT NULL,
        prompt TEXT NOT NULL,
        parent TEXT REFERENCES tasks(code),
        status TEXT NOT NULL DEFAULT 'backlog',
        created_at TEXT NOT NULL,
        builder_id TEXT NOT NULL,
        from_message INTEGER NOT NULL,
        to_message INTEGER NOT NULL,
        UNIQUE(builder_id, from_message, to_message)  -- the same range is promoted once
    );
    CREATE INDEX tasks_builder ON tasks(builder_id, from_message);
    -- a task is queued as -(2^40) minus its id: below every memory's -rowid, so the two
    -- never share a run of ids (index/documents.py TASK_BASE)
    CREATE TRIGGER tasks_queue_insert AFTER INSERT ON tasks BEGIN
        INSERT INTO index_queue(message_id) VALUES (-1099511627776 - new.id);
    END;
    CREATE TRIGGER tasks_queue_update AFTER UPDATE OF goal, prompt, builder_id ON tasks BEGIN
        INSERT INTO index_queue(message_id) VALUES (-1099511627776 - new.id);
    END;
    CREATE TRIGGER tasks_queue_delete AFTER DELETE ON tasks BEGIN
        INSERT INTO index_queue(message_id) VALUES (-1099511627776 - old.id);
    END;
    """,
    # 6: a line too long to hold archived in pieces; a failure seen again counted, not repeated
    """
    -- a piece of one line past jsonl.MAX_LINE: that line's length (its pieces share
    -- first_line; the last ends with its newline); NULL for a chunk of whole lines
    ALTER TABLE raw_chunks ADD COLUMN line_size INTEGER;
    -- the same failure of the same file, logged again, bumps its row: one row, not one a sweep
    ALTER TABLE capture_log ADD COLUMN count INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE capture_log ADD COLUMN last_at TEXT;
    UPDATE capture_log SET last_at = at;
    CREATE INDEX capture_log_path ON capture_log(path, id);
    """,
    # 7: the tokens of each model response, counted once (lazy.store.usage)
    """
    -- one row a model response, derived from the raw lines by its agent's reader (like
    -- messages); a fork or resume copy of a response holds the same ukey, and only the row
    -- with counted = 1 (the earliest, the original before a copy) counts in any total
    CREATE TABLE usage(
        session_id TEXT NOT NULL,
        ukey TEXT NOT NULL,
        key TEXT NOT NULL,              -- the message (messages.key) the tokens were spent on
        ts TEXT,
        model TEXT,
        provider TEXT,
        input INTEGER NOT NULL DEFAULT 0,        -- billed at the full input rate
        output INTEGER NOT NULL DEFAULT 0,       -- reasoning included
        cache_read INTEGER NOT NULL DEFAULT 0,
        cache_write INTEGER NOT NULL DEFAULT 0,
        reasoning INTEGER,                       -- of output; NULL: the agent does not say
        counted INTEGER NOT NULL DEFAULT 1,
        PRIMARY KEY(session_id, ukey)
    );
    CREATE INDEX usage_ukey ON usage(ukey);
    CREATE INDEX usage_ts ON usage(counted, ts);
    """,
    # 8: a message's tokens found by the message, not by walking its session's responses
    """
    -- a page of 200 messages joined usage on (session_id, key) through the primary key's
    -- session_id alone: every response of the session for each message (4.7 s a page on a
    -- 50,000-message Builder)
    CREATE INDEX usage_message ON usage(session_id, key);
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)


def statements(script: str) -> list[str]:
    """A script's statements, one by one (a trigger's body holds ``;`` of its own), so a
    migration runs inside the transaction its caller opened."""
    out: list[str] = []
    buf = ""
    for piece in script.split(";\n"):
        buf += piece + ";\n"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n;"):
                out.append(buf.strip())
            buf = ""
    if buf.strip(" \n;"):
        out.append(buf.strip())
    return out


def migrate(conn: sqlite3.Connection, upto: int = SCHEMA_VERSION) -> None:
    """Apply the migrations this store lacks (up to ``upto``), each in its own transaction."""
    current = int(conn.execute("PRAGMA user_version").fetchone()[0])
    if current > SCHEMA_VERSION:
        raise RuntimeError(
            f"the store is schema v{current}, newer than this lazy (v{SCHEMA_VERSION}); upgrade lazy"
        )
    for version in range(current + 1, upto + 1):
        conn.execute("BEGIN IMMEDIATE")
        try:
            if int(conn.execute("PRAGMA user_version").fetchone()[0]) >= version:
                conn.execute("ROLLBACK")  # another process migrated meanwhile
                continue
            for stmt in statements(MIGRATIONS[version - 1]):
                conn.execute(stmt)
            conn.execute(f"PRAGMA user_version = {version}")
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
