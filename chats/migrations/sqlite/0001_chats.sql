-- Chats, their turns, and the text indexes search uses.
-- Times are ISO-8601 UTC strings with microseconds: they sort as text.
-- Vectors are little-endian float32 blobs; each sits beside its plain text and its model's name.

CREATE TABLE chats (
    id                TEXT PRIMARY KEY,
    user_id           TEXT NOT NULL,
    project_id        TEXT,
    title             TEXT,
    title_by_user     INTEGER NOT NULL DEFAULT 0,
    assistant_history TEXT NOT NULL,
    turn_count        INTEGER NOT NULL DEFAULT 0,
    summary_text      TEXT,
    summary_embedding BLOB,
    summary_model     TEXT,
    topic_text        TEXT,
    topic_embedding   BLOB,
    topic_model       TEXT,
    last_activity_at  TEXT NOT NULL,
    created_at        TEXT NOT NULL,
    version           INTEGER NOT NULL DEFAULT 1,
    CHECK ((summary_embedding IS NULL) = (summary_model IS NULL)),
    CHECK (summary_embedding IS NULL OR summary_text IS NOT NULL),
    CHECK ((topic_embedding IS NULL) = (topic_model IS NULL)),
    CHECK (topic_embedding IS NULL OR topic_text IS NOT NULL)
);
CREATE INDEX chats_by_user_activity ON chats (user_id, last_activity_at DESC);

-- full_history, one row a turn: appends stay O(1) however long a chat grows.
CREATE TABLE turns (
    id      INTEGER PRIMARY KEY,
    chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    seq     INTEGER NOT NULL,
    body    TEXT NOT NULL,
    text    TEXT NOT NULL,
    UNIQUE (chat_id, seq)
);

CREATE VIRTUAL TABLE turns_fts USING fts5 (
    text, content = 'turns', content_rowid = 'id', tokenize = 'porter unicode61'
);
CREATE TRIGGER turns_fts_insert AFTER INSERT ON turns BEGIN
    INSERT INTO turns_fts (rowid, text) VALUES (new.id, new.text);
END;
CREATE TRIGGER turns_fts_delete AFTER DELETE ON turns BEGIN
    INSERT INTO turns_fts (turns_fts, rowid, text) VALUES ('delete', old.id, old.text);
END;

-- Titles, summaries and topics are searchable words too.
CREATE VIRTUAL TABLE chats_fts USING fts5 (
    title, summary_text, topic_text, content = 'chats', content_rowid = 'rowid',
    tokenize = 'porter unicode61'
);
CREATE TRIGGER chats_fts_insert AFTER INSERT ON chats BEGIN
    INSERT INTO chats_fts (rowid, title, summary_text, topic_text)
    VALUES (new.rowid, new.title, new.summary_text, new.topic_text);
END;
CREATE TRIGGER chats_fts_delete AFTER DELETE ON chats BEGIN
    INSERT INTO chats_fts (chats_fts, rowid, title, summary_text, topic_text)
    VALUES ('delete', old.rowid, old.title, old.summary_text, old.topic_text);
END;
CREATE TRIGGER chats_fts_update AFTER UPDATE OF title, summary_text, topic_text ON chats BEGIN
    INSERT INTO chats_fts (chats_fts, rowid, title, summary_text, topic_text)
    VALUES ('delete', old.rowid, old.title, old.summary_text, old.topic_text);
    INSERT INTO chats_fts (rowid, title, summary_text, topic_text)
    VALUES (new.rowid, new.title, new.summary_text, new.topic_text);
END;
