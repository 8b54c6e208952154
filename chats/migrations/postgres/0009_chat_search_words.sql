-- Three changes to search, as in the SQLite store.
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
--
-- 3. A zero vector matches nothing. An embedder gives an empty text (as a navigation turn's is) a zero row,
-- and pgvector's cosine distance to it is NaN, which Postgres sorts above every number: in recall such
-- turns came first and pushed the similar ones out of `match_count`. Its similarity is now 0, in recall
-- (otherwise 0008's function) and in chat search.

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
           coalesce(w.score, 0)::double precision, c.last_activity_at
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

CREATE OR REPLACE FUNCTION public.recall_candidates(
    query_embedding vector, model_name text, query_terms text[], match_count integer, context integer,
    hidden_chat_id uuid DEFAULT NULL, hidden_count integer DEFAULT 0,
    p_project_id text DEFAULT NULL, p_no_folder boolean DEFAULT false
) RETURNS TABLE (chat_id uuid, seq integer, similarity double precision, lexical double precision)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = public, extensions, pg_temp
SET plan_cache_mode = force_custom_plan AS $$
#variable_conflict use_column
DECLARE
    -- As the owner, no policy applies: every part below keeps to this user's rows itself.
    me uuid := auth.uid();
    query_dims integer := vector_dims(query_embedding);
    every_chat boolean := p_project_id IS NULL AND NOT p_no_folder;
    wanted tsquery;
    hidden_from integer;
BEGIN
    IF me IS NULL THEN
        RETURN;
    END IF;
    IF p_project_id IS NOT NULL THEN
        PERFORM parley.require_folder(p_project_id);  -- the caller's folder, or PFD04
    END IF;
    IF hidden_count > 0 THEN
        SELECT c.turn_count - hidden_count INTO hidden_from FROM chats AS c
        WHERE c.id = hidden_chat_id AND c.user_id = me;
    END IF;
    wanted := parley.telling_words(me, query_terms, true, 2000, 6000);
    RETURN QUERY
    WITH allowed AS (
        SELECT c.id FROM chats AS c
        WHERE NOT every_chat AND c.user_id = me
          AND (p_project_id IS NULL OR c.project_id = p_project_id)
          AND (NOT p_no_folder OR c.project_id IS NULL)
    ), nearest AS (
        -- By the distance alone (computed once a row), nearest first: a zero vector's is NaN, which sorts
        -- after every number.
        SELECT v.chat_id AS id, v.seq AS n, (v.embedding <=> query_embedding)::double precision AS distance
        FROM chat_turn_vectors AS v
        WHERE v.user_id = me AND v.model = model_name AND vector_dims(v.embedding) = query_dims
          AND (every_chat OR v.chat_id IN (SELECT a.id FROM allowed AS a))
          AND NOT coalesce(v.chat_id = hidden_chat_id AND v.seq >= hidden_from, false)
        ORDER BY distance, v.chat_id, v.seq
        LIMIT match_count
    ), best_words AS (
        SELECT t.chat_id AS id, t.seq AS n, ts_rank(t.words, wanted)::double precision AS score
        FROM chat_turns AS t
        WHERE wanted IS NOT NULL AND t.user_id = me AND t.words @@ wanted
          AND (every_chat OR t.chat_id IN (SELECT a.id FROM allowed AS a))
          AND NOT coalesce(t.chat_id = hidden_chat_id AND t.seq >= hidden_from, false)
        ORDER BY score DESC, t.chat_id, t.seq
        LIMIT match_count
    ), taken AS (
        SELECT nearest.id, nearest.n FROM nearest
        UNION
        SELECT best_words.id, best_words.n FROM best_words
    ), reported AS (
        -- A neighbour is in the same chat, so the same user's and folder's.
        SELECT DISTINCT taken.id, near.n
        FROM taken
        CROSS JOIN LATERAL generate_series(greatest(taken.n - context, 0), taken.n + context) AS near (n)
        WHERE NOT coalesce(taken.id = hidden_chat_id AND near.n >= hidden_from, false)
    )
    SELECT r.id, r.n, by_vector.score, coalesce(by_words.score, 0)::double precision
    FROM reported AS r
    LEFT JOIN LATERAL (
        SELECT coalesce(nullif((1 - (v.embedding <=> query_embedding))::double precision, 'NaN'), 0) AS score
        FROM chat_turn_vectors AS v
        WHERE v.chat_id = r.id AND v.seq = r.n AND v.model = model_name AND v.user_id = me
          AND vector_dims(v.embedding) = query_dims
    ) AS by_vector ON true
    LEFT JOIN LATERAL (
        SELECT ts_rank(t.words, wanted)::double precision AS score
        FROM chat_turns AS t
        WHERE wanted IS NOT NULL AND t.chat_id = r.id AND t.seq = r.n AND t.user_id = me AND t.words @@ wanted
    ) AS by_words ON true
    WHERE by_vector.score IS NOT NULL OR by_words.score > 0;
END $$;
