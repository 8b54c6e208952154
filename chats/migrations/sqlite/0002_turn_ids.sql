-- Turn ids make appends idempotent: a journal replayed after a crash never duplicates a turn.
ALTER TABLE turns ADD COLUMN turn_id TEXT;
CREATE UNIQUE INDEX turns_by_turn_id ON turns (chat_id, turn_id) WHERE turn_id IS NOT NULL;
