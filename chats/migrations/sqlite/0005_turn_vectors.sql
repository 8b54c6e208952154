-- Recall over past messages: one vector per turn of full_history and embedding model, beside the
-- plain text that was embedded. user_id, chat_id and seq repeat what the turn row knows, so that a
-- user's vectors load without a join and a chat's missing vectors are counted from one index.
-- Rows are only ever added (a re-embedded turn replaces its row); the rowid order lets a reader that
-- holds the vectors in memory fetch just the rows added since it last looked.
CREATE TABLE turn_vectors (
    turn_id   INTEGER NOT NULL REFERENCES turns (id) ON DELETE CASCADE,
    model     TEXT NOT NULL,
    user_id   TEXT NOT NULL,
    chat_id   TEXT NOT NULL,
    seq       INTEGER NOT NULL,
    text      TEXT NOT NULL,
    embedding BLOB NOT NULL,
    UNIQUE (turn_id, model)
);
CREATE INDEX turn_vectors_by_user ON turn_vectors (user_id, model);
CREATE INDEX turn_vectors_by_chat ON turn_vectors (chat_id, model);

-- Recall scores every turn that holds a query word, then keeps the user's: this index answers "whose
-- chat, which folder" without reading the chat's row (which holds its whole assistant_history).
CREATE INDEX chats_owner ON chats (id, user_id, project_id);

-- Working memory: a small JSON object per chat that the model reads and patches. Its own version, so
-- that a patch is compare-and-swap without touching the chat's version (compaction's).
CREATE TABLE working_memory (
    chat_id    TEXT PRIMARY KEY REFERENCES chats (id) ON DELETE CASCADE,
    user_id    TEXT NOT NULL,
    body       TEXT NOT NULL,
    version    INTEGER NOT NULL,
    updated_at TEXT NOT NULL
);
