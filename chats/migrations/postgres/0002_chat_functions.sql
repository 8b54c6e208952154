-- The chat store's remote procedures. Parley reaches its tables only through these: each runs as one
-- transaction, so appends, compare-and-swap compaction and folder changes are atomic, and one request
-- does what would otherwise take several round trips.
--
-- All are SECURITY INVOKER (the default): they run as the caller, so row level security decides which
-- rows they see, exactly as for a direct query. A chat or folder of another user is "not found".
--
-- Domain errors are raised with SQLSTATEs of Parley's own, which PostgREST passes through as `code`:
--   PCH04  no chat with this id        PFD04  no folder with this id
--   PFD09  the user already has a folder of this name (ignoring case)
-- Times the client gives (`p_now`) are the client's clock, as in the SQLite store: the time of a turn is
-- when it was spoken, even when a journal delivers it later.

-- Helpers live in the `parley` schema, which PostgREST does not expose.

CREATE FUNCTION parley.chat_not_found(p_chat_id uuid) RETURNS void
LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'PCH04', MESSAGE = format('no chat with id %s', p_chat_id),
        DETAIL = p_chat_id::text;
END $$;

CREATE FUNCTION parley.folder_not_found(p_folder_id text) RETURNS void
LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
    RAISE EXCEPTION USING ERRCODE = 'PFD04', MESSAGE = format('no folder with id %s', p_folder_id),
        DETAIL = p_folder_id;
END $$;

CREATE FUNCTION parley.require_folder(p_folder_id text) RETURNS void
LANGUAGE plpgsql SET search_path = '' AS $$
BEGIN
    -- KEY SHARE: a folder deleted meanwhile waits for this transaction, so a chat never lands in a
    -- folder that is gone.
    PERFORM 1 FROM public.chat_folders WHERE user_id = (SELECT auth.uid()) AND id = p_folder_id FOR KEY SHARE;
    IF NOT FOUND THEN
        PERFORM parley.folder_not_found(p_folder_id);
    END IF;
END $$;

CREATE FUNCTION parley.turn_text(p_body jsonb) RETURNS text
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$
    SELECT coalesce(string_agg(part ->> 'text', '' ORDER BY n), '')
    FROM jsonb_array_elements(p_body -> 'parts') WITH ORDINALITY AS p (part, n)
$$;

CREATE FUNCTION parley.insert_turns(p_chat_id uuid, p_first_seq integer, p_turns jsonb) RETURNS void
LANGUAGE sql SET search_path = '' AS $$
    INSERT INTO public.chat_turns (chat_id, user_id, seq, turn_id, body, text)
    SELECT p_chat_id, auth.uid(), p_first_seq + n::integer - 1, (t ->> 'id')::uuid, t, parley.turn_text(t)
    FROM jsonb_array_elements(p_turns) WITH ORDINALITY AS g (t, n)
$$;

CREATE FUNCTION parley.folder_json(p_folder_id text) RETURNS jsonb
LANGUAGE sql STABLE SET search_path = '' AS $$
    SELECT jsonb_build_object(
        'id', f.id, 'name', f.name, 'created_at', f.created_at,
        'chats', (SELECT count(*) FROM public.chats AS c WHERE c.user_id = f.user_id AND c.project_id = f.id))
    FROM public.chat_folders AS f
    WHERE f.user_id = (SELECT auth.uid()) AND f.id = p_folder_id
$$;

-- Which version of these functions the project has: a client refuses a project it cannot talk to
-- with a message saying which migration to apply.
CREATE FUNCTION public.parley_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$ SELECT 2 $$;

CREATE FUNCTION public.get_chat(p_chat_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = public, extensions, pg_temp AS $$
DECLARE
    chat jsonb;
BEGIN
    SELECT jsonb_build_object(
        'id', c.id, 'user_id', c.user_id, 'project_id', c.project_id, 'title', c.title,
        'full_history', coalesce(
            (SELECT jsonb_agg(t.body ORDER BY t.seq) FROM chat_turns AS t WHERE t.chat_id = c.id), '[]'),
        'assistant_history', c.assistant_history,
        'summary_text', c.summary_text, 'summary_embedding', c.summary_embedding::text,
        'summary_model', c.summary_model,
        'last_activity_at', c.last_activity_at, 'created_at', c.created_at, 'version', c.version)
    INTO chat
    FROM chats AS c WHERE c.id = p_chat_id;
    IF chat IS NULL THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    RETURN chat;
END $$;

CREATE FUNCTION public.load_chat_context(p_chat_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = public, extensions, pg_temp AS $$
DECLARE
    chat jsonb;
BEGIN
    SELECT jsonb_build_object(
        'title', c.title, 'project_id', c.project_id, 'assistant_history', c.assistant_history,
        'summary_text', c.summary_text, 'summary_embedding', c.summary_embedding::text,
        'summary_model', c.summary_model,
        'topic_text', c.topic_text, 'topic_embedding', c.topic_embedding::text, 'topic_model', c.topic_model,
        'version', c.version)
    INTO chat
    FROM chats AS c WHERE c.id = p_chat_id;
    IF chat IS NULL THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    RETURN chat;
END $$;

CREATE FUNCTION public.create_chat(
    p_id uuid, p_title text, p_turns jsonb, p_project_id text, p_now timestamptz DEFAULT now()
) RETURNS jsonb
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
BEGIN
    IF p_project_id IS NOT NULL THEN
        PERFORM parley.require_folder(p_project_id);
    END IF;
    INSERT INTO chats (id, user_id, project_id, title, title_by_user, assistant_history, turn_count,
                       last_activity_at, created_at)
    VALUES (p_id, auth.uid(), p_project_id, p_title, p_title IS NOT NULL, p_turns, jsonb_array_length(p_turns),
            p_now, p_now);
    PERFORM parley.insert_turns(p_id, 0, p_turns);
    RETURN get_chat(p_id);
END $$;

CREATE FUNCTION public.list_chats(
    p_limit integer, p_offset integer, p_project_id text DEFAULT NULL, p_no_folder boolean DEFAULT false
) RETURNS TABLE (
    id uuid, title text, project_id text, summary_text text, turn_count integer,
    last_activity_at timestamptz, created_at timestamptz
)
LANGUAGE plpgsql STABLE SET search_path = public, extensions, pg_temp AS $$
BEGIN
    IF p_project_id IS NOT NULL THEN
        PERFORM parley.require_folder(p_project_id);
    END IF;
    RETURN QUERY
    SELECT c.id, c.title, c.project_id, c.summary_text, c.turn_count, c.last_activity_at, c.created_at
    FROM chats AS c
    WHERE c.user_id = (SELECT auth.uid())
      AND (p_project_id IS NULL OR c.project_id = p_project_id)
      AND (NOT p_no_folder OR c.project_id IS NULL)
    ORDER BY c.last_activity_at DESC, c.id
    LIMIT p_limit OFFSET p_offset;
END $$;

CREATE FUNCTION public.count_chats() RETURNS bigint
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    SELECT count(*) FROM chats WHERE user_id = (SELECT auth.uid())
$$;

-- Append to both histories at once. The chat row is locked first, so concurrent appends to one chat
-- queue up and each sees the turns the previous one added: a turn id the chat holds, or one repeated
-- within the call, is skipped, and delivering a turn twice changes nothing.
CREATE FUNCTION public.append_chat_turns(p_chat_id uuid, p_turns jsonb, p_now timestamptz DEFAULT now())
RETURNS jsonb
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
DECLARE
    history jsonb;
    full_turns integer;
    current_version integer;
    fresh jsonb;
    added integer;
BEGIN
    SELECT c.assistant_history, c.turn_count, c.version INTO history, full_turns, current_version
    FROM chats AS c WHERE c.id = p_chat_id FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    WITH given AS (
        SELECT g.t, g.n, g.t ->> 'id' AS turn_id FROM jsonb_array_elements(p_turns) WITH ORDINALITY AS g (t, n)
    ), firsts AS (
        SELECT DISTINCT ON (given.turn_id) given.n FROM given WHERE given.turn_id IS NOT NULL
        ORDER BY given.turn_id, given.n
    )
    SELECT coalesce(jsonb_agg(given.t ORDER BY given.n), '[]') INTO fresh
    FROM given
    WHERE given.turn_id IS NULL
       OR (given.n IN (SELECT firsts.n FROM firsts)
           AND NOT EXISTS (SELECT 1 FROM chat_turns AS held
                           WHERE held.chat_id = p_chat_id AND held.turn_id = given.turn_id::uuid));
    added := jsonb_array_length(fresh);
    IF added > 0 THEN
        PERFORM parley.insert_turns(p_chat_id, full_turns, fresh);
        -- Rewriting assistant_history is bounded: compaction keeps it near the window size.
        UPDATE chats AS c
        SET assistant_history = c.assistant_history || fresh, turn_count = c.turn_count + added,
            last_activity_at = p_now, version = c.version + 1
        WHERE c.id = p_chat_id
        RETURNING c.assistant_history, c.turn_count, c.version INTO history, full_turns, current_version;
    END IF;
    RETURN jsonb_build_object('version', current_version, 'assistant_turns', jsonb_array_length(history),
                              'full_turns', full_turns, 'appended', added);
END $$;

-- Compare-and-swap: replace assistant_history (and the summary, when one is given) only if the chat is
-- still at the version the compaction was planned on. A lost race is an answer, not an error:
-- {"applied": false, "version": <the chat's version now>}.
CREATE FUNCTION public.replace_chat_assistant_history(
    p_chat_id uuid, p_expected_version integer, p_assistant_history jsonb,
    p_summary_text text DEFAULT NULL, p_summary_embedding vector DEFAULT NULL, p_summary_model text DEFAULT NULL
) RETURNS jsonb
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
DECLARE
    new_version integer;
BEGIN
    UPDATE chats AS c
    SET assistant_history = p_assistant_history,
        version = c.version + 1,
        summary_text = CASE WHEN p_summary_model IS NULL THEN c.summary_text ELSE p_summary_text END,
        summary_embedding = CASE WHEN p_summary_model IS NULL THEN c.summary_embedding ELSE p_summary_embedding END,
        summary_model = coalesce(p_summary_model, c.summary_model)
    WHERE c.id = p_chat_id AND c.version = p_expected_version
    RETURNING c.version INTO new_version;
    IF FOUND THEN
        RETURN jsonb_build_object('applied', true, 'version', new_version);
    END IF;
    SELECT c.version INTO new_version FROM chats AS c WHERE c.id = p_chat_id;
    IF NOT FOUND THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    RETURN jsonb_build_object('applied', false, 'version', new_version);
END $$;

-- A chat's topic (the searchable text of a chat with no summary yet) or a re-embedded summary; neither
-- bumps the version, which only tracks the histories.
CREATE FUNCTION public.set_chat_embedding(
    p_chat_id uuid, p_kind text, p_text text, p_embedding vector, p_model text
) RETURNS boolean
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
BEGIN
    IF p_kind = 'summary' THEN
        UPDATE chats SET summary_text = p_text, summary_embedding = p_embedding, summary_model = p_model
        WHERE id = p_chat_id;
    ELSIF p_kind = 'topic' THEN
        UPDATE chats SET topic_text = p_text, topic_embedding = p_embedding, topic_model = p_model
        WHERE id = p_chat_id;
    ELSE
        RAISE EXCEPTION USING ERRCODE = '22023', MESSAGE = format('unknown embedding kind %L', p_kind);
    END IF;
    IF NOT FOUND THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    RETURN true;
END $$;

CREATE FUNCTION public.chat_embedded_texts() RETURNS TABLE (
    chat_id uuid, kind text, text text, embedding vector, model text
)
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    SELECT c.id, 'summary', c.summary_text, c.summary_embedding, c.summary_model
    FROM chats AS c WHERE c.user_id = (SELECT auth.uid()) AND c.summary_embedding IS NOT NULL
    UNION ALL
    SELECT c.id, 'topic', c.topic_text, c.topic_embedding, c.topic_model
    FROM chats AS c WHERE c.user_id = (SELECT auth.uid()) AND c.topic_embedding IS NOT NULL
$$;

-- An automatic (generated) title never replaces one the user chose: then nothing changes and the
-- answer is false.
CREATE FUNCTION public.rename_chat(p_chat_id uuid, p_title text, p_automatic boolean DEFAULT false)
RETURNS boolean
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
BEGIN
    UPDATE chats SET title = p_title, title_by_user = NOT p_automatic
    WHERE id = p_chat_id AND (NOT p_automatic OR NOT title_by_user);
    IF FOUND THEN
        RETURN true;
    END IF;
    PERFORM 1 FROM chats WHERE id = p_chat_id;
    IF NOT FOUND THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    RETURN false;
END $$;

CREATE FUNCTION public.move_chat(p_chat_id uuid, p_project_id text) RETURNS boolean
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
BEGIN
    PERFORM 1 FROM chats WHERE id = p_chat_id FOR NO KEY UPDATE;
    IF NOT FOUND THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    IF p_project_id IS NOT NULL THEN
        PERFORM parley.require_folder(p_project_id);
    END IF;
    UPDATE chats SET project_id = p_project_id WHERE id = p_chat_id;
    RETURN true;
END $$;

CREATE FUNCTION public.delete_chat(p_chat_id uuid) RETURNS boolean
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
BEGIN
    DELETE FROM chats WHERE id = p_chat_id;  -- its turns go with it (ON DELETE CASCADE)
    IF NOT FOUND THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    RETURN true;
END $$;

CREATE FUNCTION public.create_chat_folder(p_id text, p_name text, p_name_key text, p_now timestamptz DEFAULT now())
RETURNS jsonb
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
DECLARE
    violated text;
BEGIN
    INSERT INTO chat_folders (user_id, id, name, name_key, created_at)
    VALUES (auth.uid(), p_id, p_name, p_name_key, p_now);
    RETURN parley.folder_json(p_id);
EXCEPTION WHEN unique_violation THEN
    GET STACKED DIAGNOSTICS violated = CONSTRAINT_NAME;
    IF violated = 'chat_folders_name_unique' THEN
        RAISE EXCEPTION USING ERRCODE = 'PFD09', MESSAGE = format('a folder named %L already exists', p_name),
            DETAIL = p_name;
    END IF;
    RAISE;
END $$;

CREATE FUNCTION public.list_chat_folders() RETURNS TABLE (id text, name text, created_at timestamptz, chats bigint)
LANGUAGE sql STABLE SET search_path = public, extensions, pg_temp AS $$
    SELECT f.id, f.name, f.created_at, count(c.id)
    FROM chat_folders AS f
    LEFT JOIN chats AS c ON c.user_id = f.user_id AND c.project_id = f.id
    WHERE f.user_id = (SELECT auth.uid())
    GROUP BY f.user_id, f.id
    ORDER BY f.name_key COLLATE "C", f.id COLLATE "C"
$$;

CREATE FUNCTION public.rename_chat_folder(p_id text, p_name text, p_name_key text) RETURNS jsonb
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
DECLARE
    violated text;
BEGIN
    UPDATE chat_folders SET name = p_name, name_key = p_name_key WHERE user_id = (SELECT auth.uid()) AND id = p_id;
    IF NOT FOUND THEN
        PERFORM parley.folder_not_found(p_id);
    END IF;
    RETURN parley.folder_json(p_id);
EXCEPTION WHEN unique_violation THEN
    GET STACKED DIAGNOSTICS violated = CONSTRAINT_NAME;
    IF violated = 'chat_folders_name_unique' THEN
        RAISE EXCEPTION USING ERRCODE = 'PFD09', MESSAGE = format('a folder named %L already exists', p_name),
            DETAIL = p_name;
    END IF;
    RAISE;
END $$;

-- The folder's chats move to no folder in the same statement (the foreign key's ON DELETE SET NULL).
CREATE FUNCTION public.delete_chat_folder(p_id text) RETURNS boolean
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
BEGIN
    DELETE FROM chat_folders WHERE user_id = (SELECT auth.uid()) AND id = p_id;
    IF NOT FOUND THEN
        PERFORM parley.folder_not_found(p_id);
    END IF;
    RETURN true;
END $$;

-- The raw signals `chats.search` ranks: per chat, the cosine similarity of the query to its summary
-- (or, before its first compaction, its topic) when that vector is of `model_name`, and the text-search
-- rank of its best-matching turn, title, summary or topic for any of `query_terms`. The `match_count`
-- most similar chats and the `match_count` best word matches are returned, in no particular order.
--
-- The similarity is exact: every vector of the user is compared, with no approximate index. At personal
-- scale that is fast (10,000 chats of 384 floats: p95 10-20 ms), and it is right: an HNSW index scanned
-- with a per-user filter returned too few rows in pgvector 0.6 (the filter runs after the index has
-- picked its candidates), so a user could miss their own best chat. The per-user btree narrows the scan.
CREATE FUNCTION public.search_chats_semantic(
    query_embedding vector, match_count integer, model_name text, query_terms text[] DEFAULT '{}'
) RETURNS TABLE (
    chat_id uuid, title text, similarity double precision, lexical double precision, last_activity_at timestamptz
)
LANGUAGE plpgsql STABLE SET search_path = public, extensions, pg_temp AS $$
#variable_conflict use_column
DECLARE
    wanted tsquery;
    term text;
    part tsquery;
BEGIN
    -- Any of the terms; plainto_tsquery reads each as plain words, so nothing a user says is syntax.
    FOREACH term IN ARRAY coalesce(query_terms, '{}') LOOP
        part := plainto_tsquery('english', term);
        IF numnode(part) > 0 THEN
            wanted := CASE WHEN wanted IS NULL THEN part ELSE wanted || part END;
        END IF;
    END LOOP;
    RETURN QUERY
    WITH by_vector AS (
        SELECT c.id, (1 - (e.embedding <=> query_embedding))::double precision AS score
        FROM chats AS c
        CROSS JOIN LATERAL (
            SELECT CASE WHEN c.summary_model = model_name THEN c.summary_embedding ELSE c.topic_embedding END
        ) AS e (embedding)
        WHERE c.user_id = (SELECT auth.uid())
          AND (c.summary_model = model_name OR c.topic_model = model_name)
          AND vector_dims(e.embedding) = vector_dims(query_embedding)
    ), turn_words AS (
        SELECT t.chat_id AS id, ts_rank(t.words, wanted)::double precision AS score
        FROM chat_turns AS t
        WHERE wanted IS NOT NULL AND t.user_id = (SELECT auth.uid()) AND t.words @@ wanted
        ORDER BY score DESC
        LIMIT 500
    ), chat_words AS (
        SELECT c.id, ts_rank(c.words, wanted)::double precision AS score
        FROM chats AS c
        WHERE wanted IS NOT NULL AND c.user_id = (SELECT auth.uid()) AND c.words @@ wanted
        ORDER BY score DESC
        LIMIT 500
    ), by_words AS (
        SELECT w.id, max(w.score) AS score
        FROM (SELECT * FROM turn_words UNION ALL SELECT * FROM chat_words) AS w
        GROUP BY w.id
    ), chosen AS (
        (SELECT v.id FROM by_vector AS v ORDER BY v.score DESC LIMIT match_count)
        UNION
        (SELECT w.id FROM by_words AS w ORDER BY w.score DESC LIMIT match_count)
    )
    SELECT c.id, c.title, v.score, coalesce(w.score, 0)::double precision, c.last_activity_at
    FROM chosen
    JOIN chats AS c ON c.id = chosen.id
    LEFT JOIN by_vector AS v ON v.id = c.id
    LEFT JOIN by_words AS w ON w.id = c.id;
END $$;

-- Only signed-in users may call any of this; anon, and PUBLIC (which Postgres grants EXECUTE to by
-- default), may not. Supabase's default privileges would otherwise give anon EXECUTE too.
GRANT USAGE ON SCHEMA parley TO authenticated;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA parley FROM PUBLIC, anon;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA parley TO authenticated;
DO $$
DECLARE
    procedure regprocedure;
BEGIN
    FOR procedure IN
        SELECT p.oid::regprocedure FROM pg_proc AS p
        WHERE p.pronamespace = 'public'::regnamespace
          AND p.proname IN ('parley_schema_version', 'get_chat', 'load_chat_context', 'create_chat', 'list_chats',
                            'count_chats', 'append_chat_turns', 'replace_chat_assistant_history',
                            'set_chat_embedding', 'chat_embedded_texts', 'rename_chat', 'move_chat', 'delete_chat',
                            'create_chat_folder', 'list_chat_folders', 'rename_chat_folder', 'delete_chat_folder',
                            'search_chats_semantic')
    LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC, anon', procedure);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO authenticated', procedure);
    END LOOP;
END $$;
