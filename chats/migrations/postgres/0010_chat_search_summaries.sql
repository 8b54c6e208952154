-- Chat search reports each chat's compaction summary beside its title, as the SQLite store does: a
-- summary that holds every word of a request lifts its chat as a title does (chats/search.py,
-- `SUMMARY_WEIGHT`), so that the chat about a subject it names only in its summary is offered over one
-- that mentions the subject once (issue 23, part 5). Only the returned columns differ from 0009's
-- function; a new column in RETURNS TABLE needs the function dropped and created again, and its grants
-- given again.

CREATE OR REPLACE FUNCTION public.parley_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$ SELECT 10 $$;

DROP FUNCTION public.search_chats_semantic(vector, integer, text, text[]);

CREATE FUNCTION public.search_chats_semantic(
    query_embedding vector, match_count integer, model_name text, query_terms text[] DEFAULT '{}'
) RETURNS TABLE (
    chat_id uuid, title text, similarity double precision, lexical double precision, last_activity_at timestamptz,
    summary text
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
        -- Its best turn's rank plus its description's: a chat both match is about the query more surely.
        SELECT w.id, sum(w.score) AS score
        FROM (SELECT t.id, max(t.score) AS score FROM turn_hits AS t GROUP BY t.id
              UNION ALL SELECT * FROM chat_hits) AS w
        GROUP BY w.id
    ), nearest AS (
        -- The exact scan keeps only the best `match_count`, by their distance alone (computed once a row),
        -- nearest first: a zero vector's is NaN, which sorts after every number.
        SELECT v.chat_id AS id, (v.embedding <=> query_embedding)::double precision AS distance
        FROM parley.chat_search_vectors AS v
        WHERE v.user_id = me AND v.model_id = query_model AND v.dims = query_dims
        ORDER BY distance
        LIMIT match_count
    ), chosen AS (
        SELECT n.id FROM nearest AS n
        UNION
        (SELECT w.id FROM by_words AS w ORDER BY w.score DESC LIMIT match_count)
    )
    SELECT c.id, c.title,
           CASE WHEN d.distance = 'NaN' THEN 0 ELSE 1 - d.distance END,
           coalesce(w.score, 0)::double precision, c.last_activity_at, c.summary_text
    FROM chosen
    JOIN chats AS c ON c.id = chosen.id AND c.user_id = me
    LEFT JOIN nearest AS n ON n.id = c.id
    LEFT JOIN by_words AS w ON w.id = c.id
    -- NULL when the chat has no vector of the query's model.
    CROSS JOIN LATERAL (
        SELECT coalesce(n.distance, (SELECT (v.embedding <=> query_embedding)::double precision
                                     FROM parley.chat_search_vectors AS v
                                     WHERE v.chat_id = c.id AND v.model_id = query_model AND v.dims = query_dims))
               AS distance
    ) AS d;
END $$;

REVOKE ALL ON FUNCTION public.search_chats_semantic(vector, integer, text, text[]) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION public.search_chats_semantic(vector, integer, text, text[]) TO authenticated;
