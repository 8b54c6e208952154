-- Long-term memory can be switched off per chat: its conversations then neither see the pre-loaded
-- memories nor get the memory tools. On by default, and for every chat that exists.
ALTER TABLE chats ADD COLUMN memory_enabled INTEGER NOT NULL DEFAULT 1;
