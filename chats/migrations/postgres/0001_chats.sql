-- Chats, their turns and their folders in the user's own Supabase project (Postgres 15+, pgvector).
--
-- Every row carries the `user_id` of the Supabase Auth user who owns it (`auth.uid()`), and row level
-- security lets the role `authenticated` reach only its own rows; `anon` gets no privilege at all.
-- Vectors sit beside their plain text and the name of the model that made them, as in SQLite.
-- The `auth` schema, `auth.uid()` and the roles come with every Supabase project.

CREATE EXTENSION IF NOT EXISTS vector WITH SCHEMA extensions;

-- Folders ("projects"). A folder id is text, not uuid: a history moved over from SQLite keeps the folder
-- ids it had, whatever their text. `name_key` is the name as Parley compares names (Unicode case folding
-- after NFC, `chats.models.folder_name_key`), computed by the client so that both stores agree exactly;
-- the unique index makes "one name per user, ignoring case" hold under concurrent writers.
CREATE TABLE public.chat_folders (
    user_id    uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
    id         text NOT NULL DEFAULT gen_random_uuid()::text,
    name       text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 80),
    name_key   text NOT NULL,
    created_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (user_id, id),
    CONSTRAINT chat_folders_name_unique UNIQUE (user_id, name_key)
);

CREATE TABLE public.chats (
    id                uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    user_id           uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
    project_id        text,
    title             text,
    title_by_user     boolean NOT NULL DEFAULT false,
    -- What the model sees. Compaction keeps it to about 30 turns, so rewriting it on append is cheap;
    -- full_history, which only grows, is the chat_turns table below.
    assistant_history jsonb NOT NULL DEFAULT '[]' CHECK (jsonb_typeof(assistant_history) = 'array'),
    turn_count        integer NOT NULL DEFAULT 0,
    summary_text      text,
    -- No fixed dimension: search is exact (see search_chats_semantic), so no index needs one, and a
    -- change of embedding model (384-d MiniLM, OpenAI at any size) needs no migration.
    summary_embedding vector,
    summary_model     text,
    topic_text        text,
    topic_embedding   vector,
    topic_model       text,
    -- Titles, summaries and topics are searchable words too (English stemming, like SQLite's porter).
    words             tsvector GENERATED ALWAYS AS (
        to_tsvector('english', coalesce(title, '') || ' ' || coalesce(summary_text, '') || ' '
                               || coalesce(topic_text, ''))
    ) STORED,
    last_activity_at  timestamptz NOT NULL DEFAULT now(),
    created_at        timestamptz NOT NULL DEFAULT now(),
    version           integer NOT NULL DEFAULT 1,
    UNIQUE (id, user_id),
    -- Deleting a folder moves its chats to no folder in the same statement.
    FOREIGN KEY (user_id, project_id) REFERENCES public.chat_folders (user_id, id) ON DELETE SET NULL (project_id),
    CHECK ((summary_embedding IS NULL) = (summary_model IS NULL)),
    CHECK (summary_embedding IS NULL OR summary_text IS NOT NULL),
    CHECK ((topic_embedding IS NULL) = (topic_model IS NULL)),
    CHECK (topic_embedding IS NULL OR topic_text IS NOT NULL)
);
CREATE INDEX chats_by_user_activity ON public.chats (user_id, last_activity_at DESC, id);
CREATE INDEX chats_by_user_folder ON public.chats (user_id, project_id, last_activity_at DESC);
CREATE INDEX chats_words ON public.chats USING gin (words);

-- full_history, one row a turn: an append inserts rows and never rewrites what is there, so it stays
-- O(1) however long a chat grows (a jsonb array would be copied whole on every append). Turn ids make
-- appends idempotent: a journal replayed after a crash or an outage never duplicates a turn.
CREATE TABLE public.chat_turns (
    chat_id uuid NOT NULL,
    user_id uuid NOT NULL DEFAULT auth.uid(),
    seq     integer NOT NULL,
    turn_id uuid,
    body    jsonb NOT NULL CHECK (body ->> 'role' IN ('user', 'model') AND jsonb_typeof(body -> 'parts') = 'array'),
    text    text NOT NULL,
    words   tsvector GENERATED ALWAYS AS (to_tsvector('english', text)) STORED,
    PRIMARY KEY (chat_id, seq),
    UNIQUE (chat_id, turn_id),
    FOREIGN KEY (chat_id, user_id) REFERENCES public.chats (id, user_id) ON DELETE CASCADE
);
CREATE INDEX chat_turns_words ON public.chat_turns USING gin (words);

-- Row level security: a signed-in user reaches only their own rows; `(SELECT auth.uid())` is evaluated
-- once per statement, not once per row.
ALTER TABLE public.chat_folders ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.chats ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.chat_turns ENABLE ROW LEVEL SECURITY;
CREATE POLICY chat_folders_owner ON public.chat_folders FOR ALL TO authenticated
    USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));
CREATE POLICY chats_owner ON public.chats FOR ALL TO authenticated
    USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));
CREATE POLICY chat_turns_owner ON public.chat_turns FOR ALL TO authenticated
    USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));

-- Supabase grants every new table in `public` to anon and authenticated by default: take anon's away.
REVOKE ALL ON public.chat_folders, public.chats, public.chat_turns FROM PUBLIC, anon;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.chat_folders, public.chats, public.chat_turns TO authenticated;
