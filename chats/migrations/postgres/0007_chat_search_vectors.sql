-- Chat search within 20 ms at p95 (bench/supabase.py, 10,000 chats of 40 turns): a narrow table of
-- the vectors it compares.
--
-- After 0006 the exact scan over the user's chats was most of search_chats_semantic's time (about
-- 13 of 15 ms of server CPU a call, EXPLAIN (ANALYZE, BUFFERS)): it read every chat row (3,392 pages
-- for 10,000 chats: each row carries its words, counts, dates and the pointer to its assistant history
-- beside the vectors), picked each chat's vector with a CASE on the model names and measured its
-- dimensions, per row, and computed each distance twice (once to order, once more for the similarity
-- of the few kept). Every append also rewrites the chat row, so the scanned table held the dead
-- versions appends leave until vacuum.
--
-- Now each chat's searchable vector, per embedding model, is a row of `parley.chat_search_vectors`
-- with its dimension count beside it (2,000 pages), and only a new summary or topic touches it (the
-- trigger below), never an append. Every column before the vector has a fixed width (the model is a
-- number, `parley.embedding_models`), so Postgres finds each vector at a known offset. The scan orders
-- by the similarity it reports, so each distance is computed once. The same scan takes about 7 ms of
-- CPU, the whole search about 9 to 12.
--
-- Still exact: every vector of the user and model is compared (HNSW with a per-user filter returned
-- too few rows in pgvector 0.6, see 0002). The dimension is not fixed by the column type (a
-- vector(384) column would need a migration for any other model): it is a column of its own that the
-- scan filters on, so vectors of another size are never compared. Isolation is unchanged: both tables
-- are in the `parley` schema, which PostgREST does not expose and `authenticated` may not read; the
-- search runs as its owner and keeps to `auth.uid()`'s rows itself, as in 0006.

CREATE OR REPLACE FUNCTION public.parley_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$ SELECT 7 $$;

-- The embedding models' names, once each: the vector table below names a model by number, so that
-- every column before the vector has a fixed width. Postgres then finds the vector at a known offset
-- in each row; after a text column it must walk the row to it, a fifth of the scan's time.
CREATE TABLE parley.embedding_models (
    id   integer GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name text NOT NULL UNIQUE
);
REVOKE ALL ON parley.embedding_models FROM PUBLIC, anon, authenticated;

-- One row per chat and model: the summary's vector, else (a young chat) the topic's, as
-- parley.search_vector chose in 0006.
CREATE TABLE parley.chat_search_vectors (
    chat_id   uuid NOT NULL,
    user_id   uuid NOT NULL,
    model_id  integer NOT NULL REFERENCES parley.embedding_models (id),
    dims      integer NOT NULL,
    embedding vector NOT NULL,
    PRIMARY KEY (chat_id, model_id),
    FOREIGN KEY (chat_id, user_id) REFERENCES public.chats (id, user_id) ON DELETE CASCADE
);
-- In the row, uncompressed (random-looking floats do not compress): one table read by the scan.
ALTER TABLE parley.chat_search_vectors ALTER COLUMN embedding SET STORAGE MAIN;
CREATE INDEX chat_search_vectors_scan ON parley.chat_search_vectors (user_id, model_id, dims);
REVOKE ALL ON parley.chat_search_vectors FROM PUBLIC, anon, authenticated;

-- The searchable vectors of one chat row.
CREATE FUNCTION parley.searchable_vectors(c public.chats)
RETURNS TABLE (model text, embedding vector)
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$
    SELECT c.summary_model, c.summary_embedding WHERE c.summary_model IS NOT NULL
    UNION ALL
    SELECT c.topic_model, c.topic_embedding
    WHERE c.topic_model IS NOT NULL AND c.topic_model IS DISTINCT FROM c.summary_model
$$;

INSERT INTO parley.embedding_models (name)
SELECT DISTINCT v.model FROM public.chats AS c CROSS JOIN LATERAL parley.searchable_vectors(c) AS v;
INSERT INTO parley.chat_search_vectors (chat_id, user_id, model_id, dims, embedding)
SELECT c.id, c.user_id, m.id, vector_dims(v.embedding), v.embedding
FROM public.chats AS c
CROSS JOIN LATERAL parley.searchable_vectors(c) AS v
JOIN parley.embedding_models AS m ON m.name = v.model;
ANALYZE parley.chat_search_vectors;

-- As the owner: the callers may not write the table themselves. A deleted chat's rows go by the
-- foreign key's cascade.
CREATE FUNCTION parley.kept_search_vectors() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, extensions, pg_temp AS $$
BEGIN
    IF TG_OP = 'UPDATE' THEN
        DELETE FROM parley.chat_search_vectors AS s WHERE s.chat_id = OLD.id;
    END IF;
    INSERT INTO parley.embedding_models (name)
    SELECT v.model FROM parley.searchable_vectors(NEW) AS v
    ON CONFLICT (name) DO NOTHING;
    INSERT INTO parley.chat_search_vectors (chat_id, user_id, model_id, dims, embedding)
    SELECT NEW.id, NEW.user_id, m.id, vector_dims(v.embedding), v.embedding
    FROM parley.searchable_vectors(NEW) AS v
    JOIN parley.embedding_models AS m ON m.name = v.model;
    RETURN NULL;
END $$;
REVOKE ALL ON FUNCTION parley.kept_search_vectors(), parley.searchable_vectors(public.chats) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION parley.kept_search_vectors(), parley.searchable_vectors(public.chats) TO authenticated;
CREATE TRIGGER chats_search_vectors_added AFTER INSERT ON public.chats
    FOR EACH ROW EXECUTE FUNCTION parley.kept_search_vectors();
-- Only when a vector or its model changed: appends, renames and moves leave the table alone.
CREATE TRIGGER chats_search_vectors_changed
    AFTER UPDATE OF summary_embedding, summary_model, topic_embedding, topic_model ON public.chats
    FOR EACH ROW
    WHEN (OLD.summary_embedding IS DISTINCT FROM NEW.summary_embedding
          OR OLD.summary_model IS DISTINCT FROM NEW.summary_model
          OR OLD.topic_embedding IS DISTINCT FROM NEW.topic_embedding
          OR OLD.topic_model IS DISTINCT FROM NEW.topic_model)
    EXECUTE FUNCTION parley.kept_search_vectors();

CREATE OR REPLACE FUNCTION public.search_chats_semantic(
    query_embedding vector, match_count integer, model_name text, query_terms text[] DEFAULT '{}'
) RETURNS TABLE (
    chat_id uuid, title text, similarity double precision, lexical double precision, last_activity_at timestamptz
)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = public, extensions, pg_temp
SET plan_cache_mode = force_custom_plan AS $$
#variable_conflict use_column
DECLARE
    -- As the owner, no policy applies: every part below keeps to this user's rows itself.
    me uuid := auth.uid();
    query_dims integer := vector_dims(query_embedding);
    query_model integer := (SELECT m.id FROM parley.embedding_models AS m WHERE m.name = model_name);
    turn_words tsquery;
    chat_words tsquery;
BEGIN
    IF me IS NULL THEN
        RETURN;
    END IF;
    turn_words := parley.telling_words(me, query_terms, true);
    chat_words := parley.telling_words(me, query_terms, false);
    RETURN QUERY
    WITH turn_hits AS (
        SELECT t.chat_id AS id, ts_rank(t.words, turn_words)::double precision AS score
        FROM chat_turns AS t
        WHERE turn_words IS NOT NULL AND t.user_id = me AND t.words @@ turn_words
        ORDER BY score DESC
        LIMIT 500
    ), chat_hits AS (
        SELECT c.id, ts_rank(c.words, chat_words)::double precision AS score
        FROM chats AS c
        WHERE chat_words IS NOT NULL AND c.user_id = me AND c.words @@ chat_words
        ORDER BY score DESC
        LIMIT 500
    ), by_words AS (
        SELECT w.id, max(w.score) AS score
        FROM (SELECT * FROM turn_hits UNION ALL SELECT * FROM chat_hits) AS w
        GROUP BY w.id
    ), nearest AS (
        -- The exact scan keeps only the best `match_count`, with their similarity. Ordered by the
        -- similarity itself: ordered by the distance, each row's distance would be computed twice (the
        -- planner does not share the subexpression).
        SELECT v.chat_id AS id, (1 - (v.embedding <=> query_embedding))::double precision AS similarity
        FROM parley.chat_search_vectors AS v
        WHERE v.user_id = me AND v.model_id = query_model AND v.dims = query_dims
        ORDER BY similarity DESC
        LIMIT match_count
    ), chosen AS (
        SELECT n.id FROM nearest AS n
        UNION
        (SELECT w.id FROM by_words AS w ORDER BY w.score DESC LIMIT match_count)
    )
    SELECT c.id, c.title,
           coalesce(n.similarity, (SELECT (1 - (v.embedding <=> query_embedding))::double precision
                                   FROM parley.chat_search_vectors AS v
                                   WHERE v.chat_id = c.id AND v.model_id = query_model AND v.dims = query_dims)),
           coalesce(w.score, 0)::double precision, c.last_activity_at
    FROM chosen
    JOIN chats AS c ON c.id = chosen.id AND c.user_id = me
    LEFT JOIN nearest AS n ON n.id = c.id
    LEFT JOIN by_words AS w ON w.id = c.id;
END $$;

DROP FUNCTION parley.search_vector(public.chats, text);
