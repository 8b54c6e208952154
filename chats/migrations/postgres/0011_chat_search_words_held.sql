-- Chat search reports, beside each chat's BM25, the share of the request's telling words the chat holds
-- in its turns or its description, as the SQLite store does (chats/search.py `words_held`):
-- BM25 is scaled by it, so that one stray word of a request does not carry a chat past the one its
-- meaning points to (chats/search.py, `COMMON_SHARE`). A word in more than 500 of the user's turns or chat
-- descriptions, or in more than half of the user's chats (`COMMON_SHARE`), does not tell chats apart and is
-- not counted; with no telling word, every chat counts as holding them all (1). Only the returned columns and the
-- parts from `terms` to `held` differ from 0010's function.

CREATE OR REPLACE FUNCTION public.parley_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$ SELECT 11 $$;

DROP FUNCTION public.search_chats_semantic(vector, integer, text, text[]);

CREATE FUNCTION public.search_chats_semantic(
    query_embedding vector, match_count integer, model_name text, query_terms text[] DEFAULT '{}'
) RETURNS TABLE (
    chat_id uuid, title text, similarity double precision, lexical double precision, last_activity_at timestamptz,
    summary text, words_held double precision
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
    WITH terms AS (
        SELECT DISTINCT term, plainto_tsquery('english', term) AS words
        FROM unnest(coalesce(query_terms, '{}')) AS term
        WHERE numnode(plainto_tsquery('english', term)) > 0
    ), uncommon AS (
        -- Not too common in the user's turns nor in their chats' descriptions (a word of several lexemes
        -- counts as its rarest, as in `telling_words`); a word found nowhere still counts: a chat holds none.
        SELECT terms.term, terms.words FROM terms
        WHERE (SELECT min(coalesce((SELECT w.rows FROM parley.word_counts AS w
                                    WHERE w.user_id = me AND w.in_turns AND w.lexeme = l.lexeme), 0))
               FROM unnest(to_tsvector('english', terms.term)) AS l) <= 500
          AND (SELECT min(coalesce((SELECT w.rows FROM parley.word_counts AS w
                                    WHERE w.user_id = me AND NOT w.in_turns AND w.lexeme = l.lexeme), 0))
               FROM unnest(to_tsvector('english', terms.term)) AS l) <= 500
    ), holders AS (
        SELECT DISTINCT u.term, h.id FROM uncommon AS u CROSS JOIN LATERAL (
            SELECT t.chat_id AS id FROM chat_turns AS t WHERE t.user_id = me AND t.words @@ u.words
            UNION SELECT c.id FROM chats AS c WHERE c.user_id = me AND c.words @@ u.words
        ) AS h
    ), telling AS (
        -- A word held by more than half of the user's chats does not tell them apart.
        SELECT u.term FROM uncommon AS u
        WHERE (SELECT count(*) FROM holders AS h WHERE h.term = u.term)
              <= 0.5 * (SELECT count(*) FROM chats AS c WHERE c.user_id = me)
    ), held AS (
        SELECT h.id, count(*)::double precision / (SELECT count(*) FROM telling) AS share
        FROM holders AS h JOIN telling AS t ON t.term = h.term
        GROUP BY h.id
    ), turn_hits AS (
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
           coalesce(w.score, 0)::double precision, c.last_activity_at, c.summary_text,
           CASE WHEN NOT EXISTS (SELECT 1 FROM telling) THEN 1 ELSE coalesce(held.share, 0) END::double precision
    FROM chosen
    JOIN chats AS c ON c.id = chosen.id AND c.user_id = me
    LEFT JOIN nearest AS n ON n.id = c.id
    LEFT JOIN by_words AS w ON w.id = c.id
    LEFT JOIN held ON held.id = c.id
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
