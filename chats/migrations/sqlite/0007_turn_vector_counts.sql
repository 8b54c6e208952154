-- Which chats still need recall vectors, answered without reading every chat: the voice loop asks when
-- it starts, and counting each chat's vectors (and reading `turn_count` from chat rows, past their
-- assistant_history) took 110 ms warm and over a second cold at 10,000 chats. Now it is one walk of a
-- covering index of the user's chats against a table of per-chat vector counts (9 ms at 10,000 chats).
CREATE TABLE turn_vector_counts (
    chat_id TEXT NOT NULL REFERENCES chats (id) ON DELETE CASCADE,
    model   TEXT NOT NULL,
    vectors INTEGER NOT NULL,
    PRIMARY KEY (chat_id, model)
) WITHOUT ROWID;

INSERT INTO turn_vector_counts (chat_id, model, vectors)
SELECT chat_id, model, count(*) FROM turn_vectors GROUP BY chat_id, model;

-- A vector is written with INSERT OR REPLACE, whose replaced row fires no delete trigger: so an insert
-- counts the chat's vectors again (one walk of turn_vectors_by_chat) rather than adding one.
CREATE TRIGGER turn_vector_counts_insert AFTER INSERT ON turn_vectors BEGIN
    INSERT INTO turn_vector_counts (chat_id, model, vectors)
    VALUES (
        new.chat_id, new.model,
        (SELECT count(*) FROM turn_vectors WHERE chat_id = new.chat_id AND model = new.model)
    )
    ON CONFLICT (chat_id, model) DO UPDATE SET vectors = excluded.vectors;
END;
-- Only ever an UPDATE: when a chat is deleted, its count row may already be gone with it.
CREATE TRIGGER turn_vector_counts_delete AFTER DELETE ON turn_vectors BEGIN
    UPDATE turn_vector_counts SET vectors = vectors - 1 WHERE chat_id = old.chat_id AND model = old.model;
END;

-- Covers the query: a user's chats by activity with their turn counts, without touching chat rows.
DROP INDEX chats_by_user_activity;
CREATE INDEX chats_by_user_activity ON chats (user_id, last_activity_at DESC, id, turn_count);
