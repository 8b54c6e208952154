-- Two changes to chat search, as in the SQLite store.
--
-- 1. A navigation turn (a request to go to another chat, the question which one, the answer; its body says
-- `"navigation": true`) keeps no searchable text: its words would otherwise make its chat a candidate for
-- every later request that repeats them ("let's go back to ..."), in chat search and in recall alike. Its
-- body, and so the history the model and the user see, is unchanged. As in the SQLite store
-- (`Turn.searchable_text`); turns stored before this migration keep their text.
--
-- 2. A chat's word relevance is its best turn's plus that of its title, summary and topic, where it was
-- the better of the two (chats/sqlite/chat_lexical.py says what it changed on LoCoMo). Only `by_words`
-- differs from 0007's function.

CREATE OR REPLACE FUNCTION public.parley_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$ SELECT 9 $$;

CREATE OR REPLACE FUNCTION parley.turn_text(p_body jsonb) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$
    SELECT CASE WHEN p_body -> 'navigation' = 'true'::jsonb THEN ''
                ELSE (SELECT coalesce(string_agg(part ->> 'text', '' ORDER BY n), '')
                      FROM jsonb_array_elements(p_body -> 'parts') WITH ORDINALITY AS p (part, n))
           END
$$;

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
        -- Its best turn's rank plus its description's: a chat both match is about the query more surely.
        SELECT w.id, sum(w.score) AS score
        FROM (SELECT t.id, max(t.score) AS score FROM turn_hits AS t GROUP BY t.id
              UNION ALL SELECT * FROM chat_hits) AS w
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
