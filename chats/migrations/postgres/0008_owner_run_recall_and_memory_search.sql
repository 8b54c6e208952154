-- Recall over past messages and memory search, past row level security as chat search is (0006):
-- both run as their owner (SECURITY DEFINER) with a search path of their own, and keep to
-- `auth.uid()`'s rows themselves, in every part, so that the word indexes serve them.
--
-- Under row level security a policy's condition is checked before any of the query's own that is not
-- leakproof, and `tsvector @@ tsquery` is not: recall read every turn of the user to test its words,
-- memory search every memory once per query word. As their owner, no policy applies: each part below
-- filters on the caller's id (a NULL id, nobody signed in, finds nothing), and the folder and hidden-
-- tail checks read the caller's rows only.
--
-- Recall also (bench/supabase.py, 10,000 chats of 40 turns):
-- - scores each turn vector once: it materialised a score for every vector of the user (400,000
--   rows), then joined the few reported turns back to that; now an exact scan keeps only the best
--   `match_count`, and the reported turns (those and their neighbours) look their vector and words
--   up by key;
-- - searches only the words that tell turns apart, as the SQLite store does (chats/sqlite/recall.py:
--   a word in more than 2,000 turns is not searched; the rarest first while their turns add up to at
--   most 6,000): a common word matched tens of thousands of turns, each ranked;
-- - keeps each turn vector in its row (storage MAIN, as 0006 did for chats): a row with the turn's
--   text beside its 1,536-byte vector passes the 2 kB at which Postgres moves the widest value out of
--   line, and a vector read from the TOAST table costs an index lookup of its own.
-- Memory search keeps its vectors and words in the row for the same reason, and counts its corpus once
-- (see `corpus` below).
--
-- Measured in the database, as the user, on a shared 2-core machine (load 3 to 4): recall p50 about
-- 200 ms, p95 280 (the 0003 version on the same data: 2.3 s and 2.7 s), nearly all of it the exact
-- scan of 400,000 vectors (800 MB, more than shared_buffers); memory search at 10,000 memories p50
-- 28 ms, p95 44 (the 0005 version: about 75 and 130).

CREATE OR REPLACE FUNCTION public.parley_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$ SELECT 8 $$;

ALTER TABLE public.chat_turn_vectors ALTER COLUMN embedding SET STORAGE MAIN;
ALTER TABLE public.memories ALTER COLUMN embedding SET STORAGE MAIN, ALTER COLUMN words SET STORAGE MAIN;
-- A fresh value (not the stored out-of-line pointer) is what the new storage applies to; a memory's
-- words, a generated column, are computed afresh by any update of its row.
UPDATE public.chat_turn_vectors SET embedding = embedding::text::vector;
UPDATE public.memories SET embedding = embedding::text::vector;

-- Chat search's word choice (0006) with its limits as arguments, so that recall can ask for its own.
DROP FUNCTION parley.telling_words(uuid, text[], boolean);
CREATE FUNCTION parley.telling_words(
    p_user uuid, p_terms text[], p_in_turns boolean, p_common integer DEFAULT 500, p_budget integer DEFAULT 1500
) RETURNS tsquery
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    WITH terms AS (
        SELECT DISTINCT term FROM unnest(coalesce(p_terms, '{}')) AS term
        WHERE numnode(plainto_tsquery('english', term)) > 0
    ), counted AS (
        SELECT terms.term,
               (SELECT min(coalesce((SELECT w.rows FROM parley.word_counts AS w
                                     WHERE w.user_id = p_user AND w.in_turns = p_in_turns AND w.lexeme = l.lexeme), 0))
                FROM unnest(to_tsvector('english', terms.term)) AS l) AS found
        FROM terms
    ), kept AS (
        SELECT counted.term, sum(counted.found) OVER (ORDER BY counted.found, counted.term) AS rows_so_far
        FROM counted
        WHERE counted.found BETWEEN 1 AND p_common
    )
    SELECT string_agg('(' || plainto_tsquery('english', kept.term)::text || ')', ' | ')::tsquery
    FROM kept
    WHERE kept.rows_so_far <= p_budget
$$;
REVOKE ALL ON FUNCTION parley.telling_words(uuid, text[], boolean, integer, integer) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION parley.telling_words(uuid, text[], boolean, integer, integer) TO authenticated;

-- The raw signals `chats.recall` ranks, as in 0003: the `match_count` turns most similar to the query
-- (exact cosine over the user's vectors of `model_name` and its size) and the `match_count` best
-- word matches, plus every existing turn within `context` positions of those in the same chat, each
-- with both signals. Turns in the chat's hidden tail are never reported; a folder filter keeps to one
-- folder's chats (`p_project_id`) or to those in none (`p_no_folder`).
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
        -- Ordered by the similarity itself: by the distance, each row's would be computed twice.
        SELECT v.chat_id AS id, v.seq AS n, (1 - (v.embedding <=> query_embedding))::double precision AS score
        FROM chat_turn_vectors AS v
        WHERE v.user_id = me AND v.model = model_name AND vector_dims(v.embedding) = query_dims
          AND (every_chat OR v.chat_id IN (SELECT a.id FROM allowed AS a))
          AND NOT coalesce(v.chat_id = hidden_chat_id AND v.seq >= hidden_from, false)
        ORDER BY score DESC, v.chat_id, v.seq
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
        SELECT (1 - (v.embedding <=> query_embedding))::double precision AS score
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

-- As in 0005, now run as the owner: the word counts and BM25's occurrences come through the words
-- index instead of a pass over the user's memories per query word. Every part already filtered on
-- the caller's id; `me` is now the only thing that keeps the rows to the caller's.
CREATE OR REPLACE FUNCTION public.search_memory_candidates(
    query_embedding vector, model_name text, query_terms text[], match_count integer,
    p_scope text DEFAULT NULL, p_no_folder boolean DEFAULT false, p_category text DEFAULT NULL,
    p_tag_keys text[] DEFAULT '{}', p_created_from timestamptz DEFAULT NULL,
    p_created_until timestamptz DEFAULT NULL
) RETURNS TABLE (
    id uuid, seq bigint, similarity double precision, lexical double precision, source_chat_id uuid,
    created_at timestamptz
)
LANGUAGE plpgsql STABLE SECURITY DEFINER
SET search_path = public, extensions, pg_temp
SET plan_cache_mode = force_custom_plan AS $$
#variable_conflict use_column
DECLARE
    common_rows constant integer := 500;
    matched_budget constant integer := 1500;
    -- As the owner, no policy applies: every part below keeps to this user's rows itself.
    me uuid := auth.uid();
    query_dims integer := vector_dims(query_embedding);
    counted_words text[] := '{}';
    counted double precision[] := '{}';
    scored text[];
    holding double precision[];
    word text;
    one tsquery;
    found bigint;
    wanted tsquery;
BEGIN
    IF me IS NULL THEN
        RETURN;
    END IF;
    -- The query's words as English lexemes, each with how many memories hold it (counted up to one past
    -- `common_rows`). Lexemes of `\w+` words are plain words, so the 'simple' configuration turns each
    -- back into a query of exactly itself.
    FOR word IN SELECT DISTINCT v.lexeme FROM unnest(to_tsvector('english', array_to_string(query_terms, ' '))) AS v
    LOOP
        one := plainto_tsquery('simple', word);
        SELECT count(*) INTO found FROM (
            SELECT 1 FROM memories AS m
            WHERE m.user_id = me AND m.superseded_by IS NULL AND m.words @@ one
            LIMIT common_rows + 1
        ) AS hit;
        IF found BETWEEN 1 AND common_rows THEN
            counted_words := counted_words || word;
            counted := counted || found::double precision;
        END IF;
    END LOOP;
    -- Rarest first, while the memories they match fit the budget.
    SELECT coalesce(array_agg(c.lexeme ORDER BY c.running), '{}'), coalesce(array_agg(c.documents ORDER BY c.running), '{}')
    INTO scored, holding
    FROM (
        SELECT f.lexeme, f.documents, sum(f.documents) OVER (ORDER BY f.documents, f.lexeme COLLATE "C") AS running
        FROM unnest(counted_words, counted) AS f (lexeme, documents)
    ) AS c
    WHERE c.running <= matched_budget;
    FOREACH word IN ARRAY scored LOOP
        wanted := CASE WHEN wanted IS NULL THEN plainto_tsquery('simple', word)
                       ELSE wanted || plainto_tsquery('simple', word) END;
    END LOOP;

    RETURN QUERY
    WITH searched AS MATERIALIZED (
        SELECT m.id, m.seq, m.source_chat_id, m.created_at,
               (1 - (m.embedding <=> query_embedding))::double precision AS similarity
        FROM memories AS m
        WHERE m.user_id = me AND m.superseded_by IS NULL AND m.embedding_model = model_name
          AND vector_dims(m.embedding) = query_dims
          AND parley.memory_visible(m.category, m.project_id, p_scope, p_no_folder)
          AND (p_category IS NULL OR m.category = p_category)
          AND m.tag_keys @> coalesce(p_tag_keys, '{}')
    ), corpus AS MATERIALIZED (
        -- Once: inlined, the planner put this count under the join of the occurrences (it expects a
        -- few) and ran it once per matching memory, seconds for a query of common words.
        SELECT count(*)::double precision AS total, coalesce(avg(m.word_count), 1)::double precision AS mean_length
        FROM memories AS m
        WHERE wanted IS NOT NULL AND m.user_id = me AND m.superseded_by IS NULL
    ), frequency AS (
        SELECT f.lexeme, f.documents FROM unnest(scored, holding) AS f (lexeme, documents)
    ), occurrences AS (
        SELECT m.id, w.lexeme, cardinality(w.positions)::double precision AS tf,
               greatest(m.word_count, 1)::double precision AS length
        FROM memories AS m
        CROSS JOIN LATERAL unnest(m.words) AS w
        WHERE wanted IS NOT NULL AND m.user_id = me AND m.superseded_by IS NULL
          AND m.words @@ wanted AND w.lexeme = ANY (scored)
    ), bm25 AS (
        SELECT o.id,
               sum(greatest(ln((c.total - f.documents + 0.5) / (f.documents + 0.5)), 1e-6)
                   * o.tf * 2.2 / (o.tf + 1.2 * (0.25 + 0.75 * o.length / greatest(c.mean_length, 1))))
                   AS score
        FROM occurrences AS o
        JOIN frequency AS f ON f.lexeme = o.lexeme
        CROSS JOIN corpus AS c
        GROUP BY o.id
    ), taken AS (
        (SELECT s.id FROM searched AS s ORDER BY s.similarity DESC, s.seq LIMIT match_count)
        UNION
        (SELECT s.id FROM searched AS s JOIN bm25 AS b ON b.id = s.id ORDER BY b.score DESC, s.seq LIMIT match_count)
        UNION
        (SELECT s.id FROM searched AS s
         WHERE p_created_from IS NOT NULL AND s.created_at >= p_created_from AND s.created_at < p_created_until
         ORDER BY s.similarity DESC, s.seq LIMIT match_count)
    ), neighbours AS (
        SELECT s.id FROM searched AS s
        WHERE s.source_chat_id IN (SELECT n.source_chat_id FROM searched AS n JOIN taken AS t ON t.id = n.id)
          AND s.id NOT IN (SELECT t.id FROM taken AS t)
        ORDER BY s.similarity DESC, s.seq
        LIMIT match_count
    )
    SELECT s.id, s.seq, s.similarity, coalesce(b.score, 0)::double precision, s.source_chat_id, s.created_at
    FROM (SELECT t.id FROM taken AS t UNION ALL SELECT n.id FROM neighbours AS n) AS chosen
    JOIN searched AS s ON s.id = chosen.id
    LEFT JOIN bm25 AS b ON b.id = s.id;
END $$;
