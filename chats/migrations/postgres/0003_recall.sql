-- Recall over past messages (one vector per turn and embedding model, beside the text that was
-- embedded) and per-chat working memory, with the remote procedures the store calls for them.
-- Error codes as in 0002, plus PCH22: a turn vector names a position the chat does not have.

CREATE TABLE public.chat_turn_vectors (
    chat_id   uuid NOT NULL,
    seq       integer NOT NULL,
    model     text NOT NULL,
    user_id   uuid NOT NULL DEFAULT auth.uid(),
    text      text NOT NULL,
    embedding vector NOT NULL,
    PRIMARY KEY (chat_id, seq, model),
    FOREIGN KEY (chat_id, seq) REFERENCES public.chat_turns (chat_id, seq) ON DELETE CASCADE,
    FOREIGN KEY (chat_id, user_id) REFERENCES public.chats (id, user_id) ON DELETE CASCADE
);
-- Recall compares every vector of the user and model (exact, like chat search: see 0002).
CREATE INDEX chat_turn_vectors_by_user ON public.chat_turn_vectors (user_id, model);

-- A small JSON object per chat that the model reads and patches, with a compare-and-swap version of
-- its own, so a patch never touches the chat's version (compaction's).
CREATE TABLE public.chat_working_memory (
    chat_id    uuid PRIMARY KEY,
    user_id    uuid NOT NULL DEFAULT auth.uid(),
    body       jsonb NOT NULL CHECK (jsonb_typeof(body) = 'object'),
    version    integer NOT NULL,
    updated_at timestamptz NOT NULL,
    FOREIGN KEY (chat_id, user_id) REFERENCES public.chats (id, user_id) ON DELETE CASCADE
);

ALTER TABLE public.chat_turn_vectors ENABLE ROW LEVEL SECURITY;
ALTER TABLE public.chat_working_memory ENABLE ROW LEVEL SECURITY;
CREATE POLICY chat_turn_vectors_owner ON public.chat_turn_vectors FOR ALL TO authenticated
    USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));
CREATE POLICY chat_working_memory_owner ON public.chat_working_memory FOR ALL TO authenticated
    USING (user_id = (SELECT auth.uid())) WITH CHECK (user_id = (SELECT auth.uid()));
REVOKE ALL ON public.chat_turn_vectors, public.chat_working_memory FROM PUBLIC, anon;
GRANT SELECT, INSERT, UPDATE, DELETE ON public.chat_turn_vectors, public.chat_working_memory TO authenticated;

CREATE OR REPLACE FUNCTION public.parley_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$ SELECT 3 $$;

CREATE FUNCTION parley.any_words(p_terms text[]) RETURNS tsquery
LANGUAGE plpgsql IMMUTABLE SET search_path = '' AS $$
DECLARE
    wanted tsquery;
    term text;
    part tsquery;
BEGIN
    -- Any of the terms; plainto_tsquery reads each as plain words, so nothing a user says is syntax.
    FOREACH term IN ARRAY coalesce(p_terms, '{}') LOOP
        part := plainto_tsquery('english', term);
        IF numnode(part) > 0 THEN
            wanted := CASE WHEN wanted IS NULL THEN part ELSE wanted || part END;
        END IF;
    END LOOP;
    RETURN wanted;
END $$;

-- The user's chats holding turns with no vector of `p_model`, most recent activity first.
CREATE FUNCTION public.chats_without_turn_vectors(p_model text)
RETURNS TABLE (chat_id uuid, last_activity_at timestamptz)
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    SELECT c.id, c.last_activity_at FROM chats AS c
    WHERE c.user_id = (SELECT auth.uid())
      AND c.turn_count > (SELECT count(*) FROM chat_turn_vectors AS v WHERE v.chat_id = c.id AND v.model = p_model)
    ORDER BY c.last_activity_at DESC, c.id
$$;

CREATE FUNCTION public.turns_without_vectors(p_chat_id uuid, p_model text, p_limit integer)
RETURNS TABLE (seq integer, text text)
LANGUAGE plpgsql STABLE SET search_path = public, extensions, pg_temp AS $$
BEGIN
    PERFORM 1 FROM chats AS c WHERE c.id = p_chat_id;
    IF NOT FOUND THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    RETURN QUERY
    SELECT t.seq, t.text FROM chat_turns AS t
    WHERE t.chat_id = p_chat_id
      AND NOT EXISTS (SELECT 1 FROM chat_turn_vectors AS v WHERE v.chat_id = t.chat_id AND v.seq = t.seq
                                                                AND v.model = p_model)
    ORDER BY t.seq
    LIMIT p_limit;
END $$;

-- Store turn vectors, each `{"chat_id", "index", "text", "embedding", "model"}`, replacing one of the
-- same turn and model. All or nothing: one bad entry stores none.
CREATE FUNCTION public.set_turn_vectors(p_vectors jsonb) RETURNS integer
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
DECLARE
    entry jsonb;
    stored integer := 0;
BEGIN
    FOR entry IN SELECT value FROM jsonb_array_elements(p_vectors) LOOP
        PERFORM 1 FROM chats AS c WHERE c.id = (entry ->> 'chat_id')::uuid;
        IF NOT FOUND THEN
            PERFORM parley.chat_not_found((entry ->> 'chat_id')::uuid);
        END IF;
        PERFORM 1 FROM chat_turns AS t WHERE t.chat_id = (entry ->> 'chat_id')::uuid AND t.seq = (entry ->> 'index')::integer;
        IF NOT FOUND THEN
            RAISE EXCEPTION USING ERRCODE = 'PCH22',
                MESSAGE = format('chat %s has no turn at position %s', entry ->> 'chat_id', entry ->> 'index');
        END IF;
        INSERT INTO chat_turn_vectors (chat_id, seq, model, user_id, text, embedding)
        VALUES ((entry ->> 'chat_id')::uuid, (entry ->> 'index')::integer, entry ->> 'model', auth.uid(),
                entry ->> 'text', (entry ->> 'embedding')::vector)
        ON CONFLICT (chat_id, seq, model) DO UPDATE SET text = excluded.text, embedding = excluded.embedding;
        stored := stored + 1;
    END LOOP;
    RETURN stored;
END $$;

-- The raw signals `chats.recall` ranks, per turn: the `match_count` turns most similar to the query
-- (exact cosine over the user's vectors of `model_name`, as in search_chats_semantic) and the
-- `match_count` best text-search matches, plus every existing turn within `context` positions of those
-- in the same chat, each with both signals. Turns in the chat's hidden tail (its last `hidden_count`
-- turns, which the model has verbatim) are never reported; a folder filter keeps to one folder's chats
-- (`p_project_id`) or to those in none (`p_no_folder`).
CREATE FUNCTION public.recall_candidates(
    query_embedding vector, model_name text, query_terms text[], match_count integer, context integer,
    hidden_chat_id uuid DEFAULT NULL, hidden_count integer DEFAULT 0,
    p_project_id text DEFAULT NULL, p_no_folder boolean DEFAULT false
) RETURNS TABLE (chat_id uuid, seq integer, similarity double precision, lexical double precision)
LANGUAGE plpgsql STABLE SET search_path = public, extensions, pg_temp AS $$
#variable_conflict use_column
DECLARE
    wanted tsquery := parley.any_words(query_terms);
    hidden_from integer;
BEGIN
    IF p_project_id IS NOT NULL THEN
        PERFORM parley.require_folder(p_project_id);
    END IF;
    IF hidden_count > 0 THEN
        SELECT c.turn_count - hidden_count INTO hidden_from FROM chats AS c WHERE c.id = hidden_chat_id;
    END IF;
    RETURN QUERY
    WITH allowed AS (
        SELECT c.id FROM chats AS c
        WHERE c.user_id = (SELECT auth.uid())
          AND (p_project_id IS NULL OR c.project_id = p_project_id)
          AND (NOT p_no_folder OR c.project_id IS NULL)
    ), by_vector AS (
        SELECT v.chat_id AS id, v.seq AS n, (1 - (v.embedding <=> query_embedding))::double precision AS score
        FROM chat_turn_vectors AS v
        JOIN allowed AS a ON a.id = v.chat_id
        WHERE v.user_id = (SELECT auth.uid()) AND v.model = model_name
          AND vector_dims(v.embedding) = vector_dims(query_embedding)
          AND NOT coalesce(v.chat_id = hidden_chat_id AND v.seq >= hidden_from, false)
    ), by_words AS (
        SELECT t.chat_id AS id, t.seq AS n, ts_rank(t.words, wanted)::double precision AS score
        FROM chat_turns AS t
        JOIN allowed AS a ON a.id = t.chat_id
        WHERE wanted IS NOT NULL AND t.user_id = (SELECT auth.uid()) AND t.words @@ wanted
          AND NOT coalesce(t.chat_id = hidden_chat_id AND t.seq >= hidden_from, false)
    ), taken AS (
        (SELECT v.id, v.n FROM by_vector AS v ORDER BY v.score DESC, v.id, v.n LIMIT match_count)
        UNION
        (SELECT w.id, w.n FROM by_words AS w ORDER BY w.score DESC, w.id, w.n LIMIT match_count)
    ), reported AS (
        SELECT DISTINCT taken.id, near.n
        FROM taken
        CROSS JOIN LATERAL generate_series(greatest(taken.n - context, 0), taken.n + context) AS near (n)
    )
    SELECT r.id, r.n, v.score, coalesce(w.score, 0)::double precision
    FROM reported AS r
    LEFT JOIN by_vector AS v ON v.id = r.id AND v.n = r.n
    LEFT JOIN by_words AS w ON w.id = r.id AND w.n = r.n
    WHERE v.score IS NOT NULL OR w.score > 0;
END $$;

-- The turns of each span `{"chat_id", "first", "last"}` that exist and are not in the hidden tail, in
-- the order asked; a span of a chat that is not the user's, or with no such turn, is left out.
CREATE FUNCTION public.chat_excerpts(p_spans jsonb, p_hidden_chat_id uuid DEFAULT NULL, p_hidden_count integer DEFAULT 0)
RETURNS TABLE (chat_id uuid, title text, first integer, turns jsonb)
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    WITH spans AS (
        SELECT (s ->> 'chat_id')::uuid AS chat_id, (s ->> 'first')::integer AS first,
               (s ->> 'last')::integer AS last, n
        FROM jsonb_array_elements(p_spans) WITH ORDINALITY AS g (s, n)
    ), bounded AS (
        SELECT sp.n, c.id, c.title, greatest(sp.first, 0) AS first,
               least(sp.last, c.turn_count - 1,
                     CASE WHEN c.id = p_hidden_chat_id THEN c.turn_count - greatest(p_hidden_count, 0) - 1
                          ELSE sp.last END) AS last
        FROM spans AS sp
        JOIN chats AS c ON c.id = sp.chat_id AND c.user_id = (SELECT auth.uid())
    )
    SELECT b.id, b.title, b.first,
           (SELECT jsonb_agg(t.body ORDER BY t.seq) FROM chat_turns AS t
            WHERE t.chat_id = b.id AND t.seq BETWEEN b.first AND b.last)
    FROM bounded AS b
    WHERE b.first <= b.last
    ORDER BY b.n
$$;

CREATE FUNCTION public.get_working_memory(p_chat_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = public, extensions, pg_temp AS $$
DECLARE
    memory jsonb;
BEGIN
    SELECT jsonb_build_object('data', coalesce(w.body, '{}'), 'version', coalesce(w.version, 0)) INTO memory
    FROM chats AS c LEFT JOIN chat_working_memory AS w ON w.chat_id = c.id
    WHERE c.id = p_chat_id;
    IF memory IS NULL THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    RETURN memory;
END $$;

-- Compare-and-swap, answered like replace_chat_assistant_history: {"applied", "version"}.
CREATE FUNCTION public.put_working_memory(
    p_chat_id uuid, p_data jsonb, p_expected_version integer, p_now timestamptz DEFAULT now()
) RETURNS jsonb
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
DECLARE
    actual integer;
BEGIN
    -- Writers of one chat's working memory queue on the chat row.
    PERFORM 1 FROM chats AS c WHERE c.id = p_chat_id FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    SELECT coalesce((SELECT w.version FROM chat_working_memory AS w WHERE w.chat_id = p_chat_id), 0) INTO actual;
    IF actual <> p_expected_version THEN
        RETURN jsonb_build_object('applied', false, 'version', actual);
    END IF;
    INSERT INTO chat_working_memory (chat_id, user_id, body, version, updated_at)
    VALUES (p_chat_id, auth.uid(), p_data, actual + 1, p_now)
    ON CONFLICT (chat_id) DO UPDATE SET body = excluded.body, version = excluded.version,
                                        updated_at = excluded.updated_at;
    RETURN jsonb_build_object('applied', true, 'version', actual + 1);
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
          AND p.proname IN ('parley_schema_version', 'chats_without_turn_vectors', 'turns_without_vectors',
                            'set_turn_vectors', 'recall_candidates', 'chat_excerpts', 'get_working_memory',
                            'put_working_memory')
    LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC, anon', procedure);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO authenticated', procedure);
    END LOOP;
END $$;
