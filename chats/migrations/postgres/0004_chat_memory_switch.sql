-- Long-term memory can be switched off per chat: its conversations then neither see the pre-loaded
-- memories nor get the memory tools. On by default, and for every chat that exists.
ALTER TABLE chats ADD COLUMN memory_enabled boolean NOT NULL DEFAULT true;

CREATE OR REPLACE FUNCTION public.parley_schema_version() RETURNS integer
LANGUAGE sql IMMUTABLE SET search_path = '' AS $$ SELECT 4 $$;

CREATE OR REPLACE FUNCTION public.load_chat_context(p_chat_id uuid) RETURNS jsonb
LANGUAGE plpgsql STABLE SET search_path = public, extensions, pg_temp AS $$
DECLARE
    chat jsonb;
BEGIN
    SELECT jsonb_build_object(
        'title', c.title, 'project_id', c.project_id, 'memory_enabled', c.memory_enabled,
        'assistant_history', c.assistant_history,
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

CREATE FUNCTION public.set_chat_memory(p_chat_id uuid, p_enabled boolean) RETURNS boolean
LANGUAGE plpgsql SET search_path = public, extensions, pg_temp AS $$
BEGIN
    UPDATE chats SET memory_enabled = p_enabled WHERE id = p_chat_id;
    IF NOT FOUND THEN
        PERFORM parley.chat_not_found(p_chat_id);
    END IF;
    RETURN true;
END $$;

DO $$
DECLARE
    procedure regprocedure;
BEGIN
    FOR procedure IN
        SELECT p.oid::regprocedure FROM pg_proc AS p
        WHERE p.pronamespace = 'public'::regnamespace
          AND p.proname IN ('parley_schema_version', 'load_chat_context', 'set_chat_memory')
    LOOP
        EXECUTE format('REVOKE ALL ON FUNCTION %s FROM PUBLIC, anon', procedure);
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO authenticated', procedure);
    END LOOP;
END $$;
