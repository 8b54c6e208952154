pytest_plugins = [
    "tests.fakes.openai_server",
    "tests.fakes.gemini_server",
    "tests.fakes.gemini_live_server",
    # The local Supabase project (Postgres with pgvector, GoTrue and PostgREST doubles), started once per run.
    "tests.fakes.supabase_stack",
]
