-- Folders ("projects") get rows of their own, so that a folder can be empty and has a name.
-- A folder id is unique per user, not across users: chats imported before this migration may name the
-- same folder id under two users, and each user gets a folder of their own for it.
-- Names are unique per user ignoring case, but the store checks that, not an index: SQLite's NOCASE
-- folds ASCII only, and the folders made below take whatever names their older ids give them.
CREATE TABLE folders (
    id         TEXT NOT NULL,
    user_id    TEXT NOT NULL,
    name       TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (user_id, id)
);

-- A folder's chats: listing them by activity, counting them, moving them out when it is deleted.
CREATE INDEX chats_by_user_folder ON chats (user_id, project_id, last_activity_at DESC);

-- Every folder id a chat already holds gets its folder, named after the id (at most 80 characters),
-- created when its first chat was: no chat is left in a folder that does not exist.
INSERT INTO folders (id, user_id, name, created_at)
SELECT project_id, user_id, coalesce(nullif(trim(substr(trim(project_id), 1, 80)), ''), 'Unnamed folder'),
       min(created_at)
FROM chats
WHERE project_id IS NOT NULL
GROUP BY user_id, project_id;
