-- Chat search within 20 ms at 10,000 chats (bench/supabase.py). Three causes of a slow
-- search_chats_semantic, measured on 10,000 chats of 40 turns (about 600 ms at p95 before):
--
-- 1. Row level security kept the full-text indexes unused. A policy's condition must be checked before
--    any condition of the query that could leak what it sees, and `tsvector @@ tsquery` is not marked
--    leakproof, so Postgres read every turn of the table and tested the words on each. The search now
--    runs as its owner (SECURITY DEFINER) and filters on `auth.uid()` itself, in every part, so the GIN
--    indexes serve the words.
-- 2. Common words matched tens of thousands of turns, each ranked. Like the SQLite store
--    (chats.sqlite.fts.discriminating_terms), only the words that tell turns apart are searched: those
--    found in at most 500 of the user's rows, rarest first, while their rows add up to at most 1500.
--    Counting a word's rows through the GIN index means reading them (tens of ms for a common word), so
--    the counts are kept in a table of their own, current in every transaction.
-- 3. Each vector was read from the TOAST table: a chat row with its assistant history is past the
--    2 kB at which Postgres moves its widest values out of line, and pgvector lets vectors go (and the
--    words, ranked for every match, went too). Storage MAIN keeps both in the row (out of line only if
--    the row could not fit a page otherwise), so the scans read one table; the assistant history and
--    texts, read one chat at a time, are the ones that go. The rows written before are rewritten once.
--
-- And the plan: PL/pgSQL caches a generic plan after five calls, one that cannot know how rare the
-- words are; `plan_cache_mode = force_custom_plan` plans each call for its own words.

CREATE OR REPLACE FUNCTION public.parley_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$ SELECT 6 $$;

ALTER TABLE public.chats
    ALTER COLUMN summary_embedding SET STORAGE MAIN,
    ALTER COLUMN topic_embedding SET STORAGE MAIN,
    ALTER COLUMN words SET STORAGE MAIN;
-- A fresh value (not the stored out-of-line pointer) is what the new storage applies to; the words,
-- a generated column, are computed afresh by any update of the row.
UPDATE public.chats
SET summary_embedding = summary_embedding::text::vector, topic_embedding = topic_embedding::text::vector
WHERE summary_embedding IS NOT NULL OR topic_embedding IS NOT NULL;

-- How many of each user's rows hold each word (a lexeme, as the English configuration stems it): in
-- their turns, and in their chats' titles, summaries and topics. What FTS5 knows from its index and
-- Postgres's GIN index does not say without reading the rows: here it costs one lookup a word. Kept by
-- the triggers below, in the transaction that changes the rows; only the search reads it.
CREATE TABLE parley.word_counts (
    user_id  uuid NOT NULL,
    in_turns boolean NOT NULL,
    lexeme   text NOT NULL,
    rows     integer NOT NULL,
    PRIMARY KEY (user_id, in_turns, lexeme)
);
REVOKE ALL ON parley.word_counts FROM PUBLIC, anon, authenticated;

INSERT INTO parley.word_counts (user_id, in_turns, lexeme, rows)
SELECT t.user_id, true, l.lexeme, count(*) FROM public.chat_turns AS t CROSS JOIN LATERAL unnest(t.words) AS l
GROUP BY t.user_id, l.lexeme;
INSERT INTO parley.word_counts (user_id, in_turns, lexeme, rows)
SELECT c.user_id, false, l.lexeme, count(*) FROM public.chats AS c CROSS JOIN LATERAL unnest(c.words) AS l
GROUP BY c.user_id, l.lexeme;
ANALYZE parley.word_counts;

-- One statement's changes to the counts. As the owner: the callers may not write the counts themselves.
-- In lexeme order, so that two transactions of one user lock the rows they share in the same order.
CREATE FUNCTION parley.counted_words() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, extensions, pg_temp AS $$
DECLARE
    of_turns boolean := TG_TABLE_NAME = 'chat_turns';
BEGIN
    IF TG_OP = 'INSERT' THEN
        INSERT INTO parley.word_counts AS w (user_id, in_turns, lexeme, rows)
        SELECT r.user_id, of_turns, l.lexeme, count(*)
        FROM new_rows AS r CROSS JOIN LATERAL unnest(r.words) AS l
        GROUP BY r.user_id, l.lexeme
        ORDER BY r.user_id, l.lexeme
        ON CONFLICT (user_id, in_turns, lexeme) DO UPDATE SET rows = w.rows + excluded.rows;
    ELSIF TG_OP = 'DELETE' THEN
        UPDATE parley.word_counts AS w SET rows = w.rows - gone.n
        FROM (SELECT r.user_id, l.lexeme, count(*) AS n
              FROM old_rows AS r CROSS JOIN LATERAL unnest(r.words) AS l
              GROUP BY r.user_id, l.lexeme) AS gone
        WHERE w.user_id = gone.user_id AND w.in_turns = of_turns AND w.lexeme = gone.lexeme;
    ELSE
        -- Chats only (turns are never updated), and only those whose words changed: an append updates
        -- the chat but not its title, summary or topic.
        INSERT INTO parley.word_counts AS w (user_id, in_turns, lexeme, rows)
        SELECT changed.user_id, false, changed.lexeme, sum(changed.n)
        FROM (
            SELECT n.user_id, l.lexeme, 1 AS n
            FROM new_rows AS n JOIN old_rows AS o ON o.id = n.id CROSS JOIN LATERAL unnest(n.words) AS l
            WHERE o.words IS DISTINCT FROM n.words
            UNION ALL
            SELECT o.user_id, l.lexeme, -1 AS n
            FROM old_rows AS o JOIN new_rows AS n ON n.id = o.id CROSS JOIN LATERAL unnest(o.words) AS l
            WHERE o.words IS DISTINCT FROM n.words
        ) AS changed
        GROUP BY changed.user_id, changed.lexeme
        HAVING sum(changed.n) <> 0
        ORDER BY changed.user_id, changed.lexeme
        ON CONFLICT (user_id, in_turns, lexeme) DO UPDATE SET rows = w.rows + excluded.rows;
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER chat_turns_words_added AFTER INSERT ON public.chat_turns
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION parley.counted_words();
CREATE TRIGGER chat_turns_words_removed AFTER DELETE ON public.chat_turns
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION parley.counted_words();
CREATE TRIGGER chats_words_added AFTER INSERT ON public.chats
    REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION parley.counted_words();
CREATE TRIGGER chats_words_changed AFTER UPDATE ON public.chats
    REFERENCING OLD TABLE AS old_rows NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION parley.counted_words();
CREATE TRIGGER chats_words_removed AFTER DELETE ON public.chats
    REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION parley.counted_words();

-- The words of `p_terms` that tell the user's turns (`p_in_turns`) or chats apart, as one tsquery
-- matching any of them; NULL when none does. A word made of several lexemes counts as its rarest.
-- Reads the counts, which only the owner may: it runs inside the search below.
CREATE FUNCTION parley.telling_words(p_user uuid, p_terms text[], p_in_turns boolean) RETURNS tsquery
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
        WHERE counted.found BETWEEN 1 AND 500
    )
    SELECT string_agg('(' || plainto_tsquery('english', kept.term)::text || ')', ' | ')::tsquery
    FROM kept
    WHERE kept.rows_so_far <= 1500
$$;
REVOKE ALL ON FUNCTION parley.telling_words(uuid, text[], boolean), parley.counted_words() FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION parley.telling_words(uuid, text[], boolean), parley.counted_words() TO authenticated;

-- The chat's vector of `p_model`: its summary's, else its topic's (a young chat has only a topic). No
-- search path of its own: it names no object, and a SET clause would keep Postgres from inlining it.
CREATE FUNCTION parley.search_vector(c public.chats, p_model text) RETURNS vector
LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE WHEN c.summary_model = p_model THEN c.summary_embedding
                WHEN c.topic_model = p_model THEN c.topic_embedding END
$$;
REVOKE ALL ON FUNCTION parley.search_vector(public.chats, text) FROM PUBLIC, anon;
GRANT EXECUTE ON FUNCTION parley.search_vector(public.chats, text) TO authenticated;

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
    ), chosen AS (
        -- The nearest by an exact scan that keeps only the best `match_count` (no 10,000-row table of
        -- scores to join back), and the best by words; their similarities are computed again below.
        (SELECT c.id FROM chats AS c
         WHERE c.user_id = me AND (c.summary_model = model_name OR c.topic_model = model_name)
           AND vector_dims(parley.search_vector(c, model_name)) = vector_dims(query_embedding)
         ORDER BY parley.search_vector(c, model_name) <=> query_embedding
         LIMIT match_count)
        UNION
        (SELECT w.id FROM by_words AS w ORDER BY w.score DESC LIMIT match_count)
    )
    SELECT c.id, c.title,
           CASE WHEN vector_dims(v.embedding) = vector_dims(query_embedding)
                THEN (1 - (v.embedding <=> query_embedding))::double precision END,
           coalesce(w.score, 0)::double precision, c.last_activity_at
    FROM chosen
    JOIN chats AS c ON c.id = chosen.id AND c.user_id = me
    CROSS JOIN LATERAL (SELECT parley.search_vector(c, model_name)) AS v (embedding)
    LEFT JOIN by_words AS w ON w.id = c.id;
END $$;
