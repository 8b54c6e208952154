-- Long-term memories (chats/memory): third-person facts about the user, with the remote procedures the
-- memory store calls. As for chats (0001, 0002): every row carries its owner's `auth.uid()`, row level
-- security lets `authenticated` reach only its own rows and `anon` nothing, and every procedure is
-- SECURITY INVOKER, so a memory of another user is simply not found.
--
-- Which folders see a memory is decided by its category (chats/memory/models.py `visible_in`): personal
-- ones (identity, preference, relationship) are seen from every folder, project and context ones only
-- from the folder they were saved in (or, saved in none, only outside folders).
--
-- Domain errors, as in 0002:
--   PME04  no memory with this id (visible from the folder asked)
--   PME22  an embedding whose text is not the memory's content

-- The searchable words of a memory: its content, title and tags (English stemming, like SQLite's porter).
CREATE FUNCTION parley.memory_words(p_content text, p_title text, p_tags text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$
    SELECT to_tsvector('english'::regconfig,
                       p_content || ' ' || coalesce(p_title, '') || ' ' || array_to_string(p_tags, ' '))
$$;

-- Tokens (not distinct words) in a tsvector: the document length BM25 normalises by.
CREATE FUNCTION parley.token_count(p_words tsvector) RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$
    SELECT coalesce(sum(cardinality(w.positions)), 0)::integer FROM unnest(p_words) AS w
$$;

CREATE TABLE public.memories (
    id              uuid PRIMARY KEY,
    -- Insertion order: what orders memories saved at the same instant, as SQLite's rowid does.
    seq             bigint GENERATED ALWAYS AS IDENTITY (SEQUENCE NAME public.memories_seq),
    user_id         uuid NOT NULL DEFAULT auth.uid() REFERENCES auth.users (id) ON DELETE CASCADE,
    -- The folder the memory was saved in (NULL: none). Not a foreign key: the category decides what a
    -- folder id means here, and a memory outlives the folder, as in SQLite.
    project_id      text,
    -- The fact itself; it is also the plain text of `embedding` (the store refuses any other text), so
    -- it has no separate twin column that could drift from it.
    content         text NOT NULL CHECK (char_length(content) BETWEEN 10 AND 500),
    title           text CHECK (char_length(title) BETWEEN 1 AND 120),
    category        text NOT NULL
        CHECK (category IN ('identity', 'preference', 'relationship', 'project', 'context')),
    tags            text[] NOT NULL DEFAULT '{}' CHECK (cardinality(tags) <= 20),
    -- The tags as Parley compares them (Python's case folding, `str.casefold`), computed by the client
    -- so that both stores agree exactly: the tag filter of a search is `tag_keys @> <asked keys>`.
    tag_keys        text[] NOT NULL DEFAULT '{}',
    importance      smallint NOT NULL CHECK (importance BETWEEN 1 AND 10),
    -- No fixed dimension, as for chats: search is exact (see search_memory_candidates), so no index
    -- needs one, and a new embedding model needs no migration.
    embedding       vector NOT NULL,
    embedding_model text NOT NULL,
    -- The chat the user said it in. Not a foreign key: a memory outlives its chat, and it may be saved
    -- while that chat's turns still wait in the local journal.
    source_chat_id  uuid,
    created_at      timestamptz NOT NULL DEFAULT now(),
    updated_at      timestamptz NOT NULL DEFAULT now(),
    superseded_by   uuid,
    words           tsvector GENERATED ALWAYS AS (parley.memory_words(content, title, tags)) STORED,
    word_count      integer GENERATED ALWAYS AS (parley.token_count(parley.memory_words(content, title, tags))) STORED,
    UNIQUE (id, user_id),
    -- Only the user's own newer memory can supersede one, and forgetting a memory forgets the older
    -- versions it superseded (delete_memory does it explicitly; the cascade keeps it so for any delete).
    FOREIGN KEY (superseded_by, user_id) REFERENCES public.memories (id, user_id) ON DELETE CASCADE,
    CHECK (cardinality(tag_keys) = cardinality(tags)),
    CHECK (superseded_by IS DISTINCT FROM id)
);
CREATE INDEX memories_by_user_created ON public.memories (user_id, created_at DESC, seq DESC);
-- Search compares every current vector of the user and model (exact, as chat search: see 0002).
CREATE INDEX memories_current_by_model ON public.memories (user_id, embedding_model) WHERE superseded_by IS NULL;
CREATE INDEX memories_by_superseding ON public.memories (superseded_by) WHERE superseded_by IS NOT NULL;
-- The words, for SQL run by the project's owner (the SQL editor, a service job). The user's calls do
-- not use it: under row level security Postgres applies `@@`, which is not leakproof, only after the
-- policy, so it filters the user's rows instead (see search_memory_candidates).
CREATE INDEX memories_words ON public.memories USING gin (words);

ALTER TABLE public.memories ENABLE ROW LEVEL SECURITY;
CREATE POLICY memories_owner ON public.memories FOR ALL TO authenticated
    USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));
REVOKE ALL ON public.memories FROM PUBLIC, anon;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.memories TO authenticated;
-- Supabase's default privileges grant the identity's sequence to anon too: take that away as well.
REVOKE ALL ON SEQUENCE public.memories_seq FROM PUBLIC, anon;

CREATE OR REPLACE FUNCTION public.parley_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$ SELECT 5 $$;

CREATE FUNCTION parley.memory_not_found(p_memory_id uuid) RETURNS void
LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'PME04', MESSAGE = format('no memory with id %s', p_memory_id),
        DETAIL = p_memory_id::text;
END $$;

-- `visible_in` of chats/memory/models.py: from every folder (no scope given), from outside folders
-- (`p_no_folder`), or from the folder `p_scope`. No SET search_path, unlike the other helpers, so that
-- Postgres inlines it into the queries that filter thousands of rows with it; it names no table.
CREATE FUNCTION parley.memory_visible(p_category text, p_project_id text, p_scope text, p_no_folder boolean)
RETURNS boolean
LANGUAGE sql IMMUTABLE AS $$
    SELECT p_category IN ('identity', 'preference', 'relationship')
        OR CASE WHEN p_no_folder THEN p_project_id IS NULL
                WHEN p_scope IS NULL THEN true
                ELSE coalesce(p_project_id = p_scope, false) END
$$;

CREATE FUNCTION parley.memory_json(m public.memories) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = '' AS $$
    SELECT jsonb_build_object(
        'id', m.id, 'user_id', m.user_id, 'project_id', m.project_id, 'content', m.content, 'title', m.title,
        'category', m.category, 'tags', to_jsonb(m.tags), 'importance', m.importance,
        'embedding', m.embedding::text, 'embedding_model', m.embedding_model, 'source_chat_id', m.source_chat_id,
        'created_at', m.created_at, 'updated_at', m.updated_at, 'superseded_by', m.superseded_by)
$$;

-- Keep a new memory and, in the same transaction, mark the user's current memories in `p_supersedes`
-- as superseded by it (ids of other users, or of memories already superseded, are ignored). The client
-- validated every field (chats/memory/models.py); the checks above only guard the table.
CREATE FUNCTION public.add_memory(
    p_id uuid, p_content text, p_category text, p_importance integer, p_embedding vector, p_model text,
    p_title text DEFAULT NULL, p_tags text[] DEFAULT '{}', p_tag_keys text[] DEFAULT '{}',
    p_project_id text DEFAULT NULL, p_source_chat_id uuid DEFAULT NULL, p_supersedes uuid[] DEFAULT '{}',
    p_now timestamptz DEFAULT now()
) RETURNS jsonb
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
DECLARE
    kept memories;
BEGIN
    INSERT INTO memories (id, user_id, project_id, content, title, category, tags, tag_keys, importance,
                          embedding, embedding_model, source_chat_id, created_at, updated_at)
    VALUES (p_id, auth.uid(), p_project_id, p_content, p_title, p_category, p_tags, p_tag_keys, p_importance,
            p_embedding, p_model, p_source_chat_id, p_now, p_now)
    RETURNING * INTO kept;
    UPDATE memories SET superseded_by = p_id
    WHERE user_id = (SELECT auth.uid()) AND id = ANY (p_supersedes) AND id <> p_id AND superseded_by IS NULL;
    RETURN parley.memory_json(kept);
END $$;

CREATE FUNCTION public.get_memory(p_id uuid, p_scope text DEFAULT NULL, p_no_folder boolean DEFAULT false)
RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = public, extensions, pg_temp AS $$
DECLARE
    found_memory jsonb;
BEGIN
    SELECT parley.memory_json(m) INTO found_memory FROM memories AS m
    WHERE m.id = p_id AND m.user_id = (SELECT auth.uid())
      AND parley.memory_visible(m.category, m.project_id, p_scope, p_no_folder);
    IF found_memory IS NULL THEN
        PERFORM parley.memory_not_found(p_id);
    END IF;
    RETURN found_memory;
END $$;

-- Change what is given (NULL: unchanged; the title changes only with `p_set_title`, since NULL is a
-- title too) and stamp `updated_at`. A new content comes with its embedding and model.
CREATE FUNCTION public.update_memory(
    p_id uuid, p_now timestamptz, p_scope text DEFAULT NULL, p_no_folder boolean DEFAULT false,
    p_content text DEFAULT NULL, p_embedding vector DEFAULT NULL, p_model text DEFAULT NULL,
    p_category text DEFAULT NULL, p_importance integer DEFAULT NULL,
    p_set_title boolean DEFAULT false, p_title text DEFAULT NULL,
    p_tags text[] DEFAULT NULL, p_tag_keys text[] DEFAULT NULL
) RETURNS jsonb
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
DECLARE
    changed memories;
BEGIN
    IF (p_content IS NULL) <> (p_embedding IS NULL) OR (p_embedding IS NULL) <> (p_model IS NULL)
       OR (p_tags IS NULL) <> (p_tag_keys IS NULL) THEN
        RAISE EXCEPTION USING ERRCODE = '22023',
            MESSAGE = 'a content comes with its embedding and model, tags with their keys';
    END IF;
    UPDATE memories AS m
    SET content = coalesce(p_content, m.content),
        embedding = coalesce(p_embedding, m.embedding),
        embedding_model = coalesce(p_model, m.embedding_model),
        category = coalesce(p_category, m.category),
        importance = coalesce(p_importance, m.importance),
        title = CASE WHEN p_set_title THEN p_title ELSE m.title END,
        tags = coalesce(p_tags, m.tags),
        tag_keys = coalesce(p_tag_keys, m.tag_keys),
        updated_at = p_now
    WHERE m.id = p_id AND m.user_id = (SELECT auth.uid())
      AND parley.memory_visible(m.category, m.project_id, p_scope, p_no_folder)
    RETURNING m.* INTO changed;
    IF NOT FOUND THEN
        PERFORM parley.memory_not_found(p_id);
    END IF;
    RETURN parley.memory_json(changed);
END $$;

-- Forget the memory and, in the same transaction, every older version it superseded (they were
-- versions of the same fact: forgetting "works at Meta" must not bring back "works at Google").
-- Answers how many memories went.
CREATE FUNCTION public.delete_memory(p_id uuid, p_scope text DEFAULT NULL, p_no_folder boolean DEFAULT false)
RETURNS integer
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
DECLARE
    deleted integer;
BEGIN
    PERFORM 1 FROM memories AS m
    WHERE m.id = p_id AND m.user_id = (SELECT auth.uid())
      AND parley.memory_visible(m.category, m.project_id, p_scope, p_no_folder)
    FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM parley.memory_not_found(p_id);
    END IF;
    WITH RECURSIVE chain (id) AS (
        SELECT p_id
        UNION
        SELECT m.id FROM memories AS m JOIN chain ON m.superseded_by = chain.id
        WHERE m.user_id = (SELECT auth.uid())
    )
    DELETE FROM memories AS m WHERE m.user_id = (SELECT auth.uid()) AND m.id IN (SELECT chain.id FROM chain);
    GET DIAGNOSTICS deleted = ROW_COUNT;
    RETURN deleted;
END $$;

-- Newest first; a JSON array of memories.
CREATE FUNCTION public.list_memories(
    p_limit integer, p_offset integer, p_category text DEFAULT NULL, p_scope text DEFAULT NULL,
    p_no_folder boolean DEFAULT false, p_include_superseded boolean DEFAULT false
) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    SELECT coalesce(jsonb_agg(parley.memory_json(page.m) ORDER BY page.created_at DESC, page.seq DESC), '[]')
    FROM (
        SELECT m, m.created_at, m.seq FROM memories AS m
        WHERE m.user_id = (SELECT auth.uid())
          AND (p_include_superseded OR m.superseded_by IS NULL)
          AND (p_category IS NULL OR m.category = p_category)
          AND parley.memory_visible(m.category, m.project_id, p_scope, p_no_folder)
        ORDER BY m.created_at DESC, m.seq DESC
        LIMIT p_limit OFFSET p_offset
    ) AS page
$$;

CREATE FUNCTION public.count_memories(p_include_superseded boolean DEFAULT false) RETURNS bigint
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    SELECT count(*) FROM memories AS m
    WHERE m.user_id = (SELECT auth.uid()) AND (p_include_superseded OR m.superseded_by IS NULL)
$$;

-- The memories of these ids (the user's only), in no particular order.
CREATE FUNCTION public.get_memories(p_ids uuid[]) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    SELECT coalesce(jsonb_agg(parley.memory_json(m)), '[]') FROM memories AS m
    WHERE m.user_id = (SELECT auth.uid()) AND m.id = ANY (p_ids)
$$;

-- Every memory of the user, superseded ones too, oldest first.
CREATE FUNCTION public.export_memories() RETURNS jsonb
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    SELECT coalesce(jsonb_agg(parley.memory_json(m) ORDER BY m.created_at, m.seq), '[]') FROM memories AS m
    WHERE m.user_id = (SELECT auth.uid())
$$;

-- The current personal memories, which chats/memory/preload.py makes the system prompt's block of.
CREATE FUNCTION public.preload_memories() RETURNS jsonb
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    SELECT coalesce(jsonb_agg(parley.memory_json(m) ORDER BY m.importance DESC, m.created_at, m.seq), '[]')
    FROM memories AS m
    WHERE m.user_id = (SELECT auth.uid()) AND m.superseded_by IS NULL
      AND m.category IN ('identity', 'preference', 'relationship')
$$;

-- Replace a memory's embedding with one of the same text (its content); `updated_at` is kept.
CREATE FUNCTION public.set_memory_embedding(p_id uuid, p_text text, p_embedding vector, p_model text)
RETURNS boolean
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
DECLARE
    current_content text;
BEGIN
    SELECT m.content INTO current_content FROM memories AS m
    WHERE m.id = p_id AND m.user_id = (SELECT auth.uid()) FOR UPDATE;
    IF NOT FOUND THEN
        PERFORM parley.memory_not_found(p_id);
    END IF;
    IF p_text IS DISTINCT FROM current_content THEN
        RAISE EXCEPTION USING ERRCODE = 'PME22', MESSAGE = 'an embedding''s text must be the memory''s content';
    END IF;
    UPDATE memories SET embedding = p_embedding, embedding_model = p_model WHERE id = p_id;
    RETURN true;
END $$;

-- The current memories visible from the scope by cosine similarity alone, most similar first (ties:
-- the older first), down to `min_similarity`: the candidates for duplicate and contradiction checks.
CREATE FUNCTION public.find_similar_memories(
    query_embedding vector, model_name text, match_count integer, min_similarity double precision DEFAULT -1,
    p_scope text DEFAULT NULL, p_no_folder boolean DEFAULT false
) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    SELECT coalesce(jsonb_agg(jsonb_build_object('memory', parley.memory_json(best.m), 'similarity', best.similarity)
                              ORDER BY best.similarity DESC, best.seq), '[]')
    FROM (
        SELECT m, m.seq, (1 - (m.embedding <=> query_embedding))::double precision AS similarity
        FROM memories AS m
        WHERE m.user_id = (SELECT auth.uid()) AND m.superseded_by IS NULL AND m.embedding_model = model_name
          AND vector_dims(m.embedding) = vector_dims(query_embedding)
          AND parley.memory_visible(m.category, m.project_id, p_scope, p_no_folder)
        ORDER BY similarity DESC, m.seq
        LIMIT match_count
    ) AS best
    WHERE best.similarity >= min_similarity
$$;

-- The raw signals chats/memory/ranking.py ranks, for the current memories of `model_name` visible
-- from the scope (and of `p_category`, carrying every tag key of `p_tag_keys`): the cosine similarity
-- to the query, and BM25 over content, title and tags for the query's words. BM25 is FTS5's (k1 = 1.2,
-- b = 0.75, IDF floored at 1e-6), as the SQLite store's lexical signal, with the same two limits:
-- the words are scored rarest first while the memories they match stay within 1,500, and a word in
-- more than 500 memories is not scored at all (its IDF is low anyway; scoring its matches is what
-- costs). Frequencies and lengths are over the user's current memories.
--
-- Cost, 10,000 memories of 384 floats on the test stack: about 15 ms for a query with no scored word,
-- 45 ms with three. Each scored word is a pass over the user's rows: under row level security the
-- word index is not used (`@@` is not leakproof, so Postgres applies it only after the policy).
--
-- Reported: the `match_count` most similar, the `match_count` best word matches, the `match_count`
-- most similar saved within [p_created_from, p_created_until) (the date the query names), and up to
-- `match_count` more memories said in the chats of those (the same-chat signal), most similar first;
-- each with its `seq`, the order SQLite's ranking breaks ties in.
--
-- The similarity is exact, as for chats (0002): every current vector of the user and model is
-- compared, with no approximate index. At personal scale that is fast (the 15 ms above), and right: an
-- HNSW index scanned with a per-user filter returned too few rows in pgvector 0.6, so a user could
-- miss their own best memory.
CREATE FUNCTION public.search_memory_candidates(
    query_embedding vector, model_name text, query_terms text[], match_count integer,
    p_scope text DEFAULT NULL, p_no_folder boolean DEFAULT false, p_category text DEFAULT NULL,
    p_tag_keys text[] DEFAULT '{}', p_created_from timestamptz DEFAULT NULL,
    p_created_until timestamptz DEFAULT NULL
) RETURNS TABLE (
    id uuid, seq bigint, similarity double precision, lexical double precision, source_chat_id uuid,
    created_at timestamptz
)
-- A plan made for each call's own values: the generic plan plpgsql would switch to after five calls
-- took 240 ms where these take 45 (10,000 memories, three scored words).
LANGUAGE plpgsql STABLE SET search_path = public, extensions, pg_temp SET plan_cache_mode = force_custom_plan AS $$
#variable_conflict use_column
DECLARE
    common_rows constant integer := 500;
    matched_budget constant integer := 1500;
    me uuid := auth.uid();
    counted_words text[] := '{}';
    counted double precision[] := '{}';
    scored text[];
    holding double precision[];
    word text;
    one tsquery;
    found bigint;
    wanted tsquery;
BEGIN
    -- The query's words as English lexemes, each with how many memories hold it (counted up to one past
    -- `common_rows`). Lexemes of `\w+` words are plain words, so the 'simple' configuration turns each
    -- back into a query of exactly itself. One count per word, each with its query made once: row level
    -- security keeps the word index out of these scans (`@@` is not leakproof), so each reads the
    -- user's rows, and a query made per row would cost far more than the scan.
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
          AND vector_dims(m.embedding) = vector_dims(query_embedding)
          AND parley.memory_visible(m.category, m.project_id, p_scope, p_no_folder)
          AND (p_category IS NULL OR m.category = p_category)
          AND m.tag_keys @> coalesce(p_tag_keys, '{}')
    ), corpus AS (
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

REVOKE ALL ON ALL FUNCTIONS IN SCHEMA parley FROM PUBLIC, anon;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA parley TO authenticated;
DO $$
DECLARE
    procedure regprocedure;
BEGIN
    FOR procedure IN
        SELECT p.oid::regprocedure FROM pg_proc AS p
        WHERE p.pronamespace = 'public'::regnamespace
          AND p.proname IN ('parley_schema_version', 'add_memory', 'get_memory', 'update_memory', 'delete_memory',
                            'list_memories', 'count_memories', 'get_memories', 'export_memories',
                            'preload_memories', 'set_memory_embedding', 'find_similar_memories',
                            'search_memory_candidates')
    LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC, anon', procedure);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO authenticated', procedure);
    END LOOP;
END $$;
