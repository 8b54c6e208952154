-- Long-term memories: third-person facts about the user (chats/memory).
-- `seq` is the row id the word index points at (an INTEGER PRIMARY KEY survives VACUUM); `id` is the
-- memory's UUID. The embedding's plain text is `content` itself; `embedding_model` names its model.
-- `project_id` is the folder the memory was saved in (NULL: none); which folders see it is decided by
-- category in chats/memory/models.py, not here.
CREATE TABLE memories (
    seq             INTEGER PRIMARY KEY,
    id              TEXT NOT NULL UNIQUE,
    user_id         TEXT NOT NULL,
    project_id      TEXT,
    content         TEXT NOT NULL,
    title           TEXT,
    category        TEXT NOT NULL
        CHECK (category IN ('identity', 'preference', 'relationship', 'project', 'context')),
    tags            TEXT NOT NULL DEFAULT '[]',
    importance      INTEGER NOT NULL,
    embedding       BLOB NOT NULL,
    embedding_model TEXT NOT NULL,
    source_chat_id  TEXT,
    created_at      TEXT NOT NULL,
    updated_at      TEXT NOT NULL,
    superseded_by   TEXT
);
CREATE INDEX memories_by_user_created ON memories (user_id, created_at DESC);
CREATE INDEX memories_by_user_category ON memories (user_id, category, importance DESC);
CREATE INDEX memories_by_superseding ON memories (superseded_by) WHERE superseded_by IS NOT NULL;

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    content, title, tags, content = 'memories', content_rowid = 'seq', tokenize = 'porter unicode61'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, content, title, tags) VALUES (new.seq, new.content, new.title, new.tags);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, title, tags)
    VALUES ('delete', old.seq, old.content, old.title, old.tags);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF content, title, tags ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, content, title, tags)
    VALUES ('delete', old.seq, old.content, old.title, old.tags);
    INSERT INTO memories_fts (rowid, content, title, tags) VALUES (new.seq, new.content, new.title, new.tags);
END;

-- A counter per user, bumped by every change to their memories: a store's in-memory vector index
-- checks it before each search (one indexed read), so it is rebuilt only when this user's memories
-- changed, whichever process changed them, and never because a chat was appended to.
CREATE TABLE memory_changes (
    user_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL
);
CREATE TRIGGER memory_changes_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memory_changes (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER memory_changes_update AFTER UPDATE ON memories BEGIN
    INSERT INTO memory_changes (user_id, version) VALUES (new.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
CREATE TRIGGER memory_changes_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memory_changes (user_id, version) VALUES (old.user_id, 1)
    ON CONFLICT (user_id) DO UPDATE SET version = version + 1;
END;
