"""The Postgres migrations, applied to fresh databases of the test cluster as a user's project would get
them: once, all or nothing, taking back Supabase's default grants from anon."""

from __future__ import annotations

import uuid

import psycopg
import pytest

from chats.errors import StoreUnavailable
from chats.supabase.database import apply_migrations
from chats.supabase.migrations import SCHEMA_VERSION, migration_script, migrations
from chats.supabase.store import SupabaseChatStore
from tests.fakes.supabase_stack import PostgresCluster, SupabaseStack, applied_migrations

OWNER_RIGHTS = (
    "search_chats_semantic(",
    "recall_candidates(",
    "search_memory_candidates(",
    "parley.counted_words(",
    "parley.kept_search_vectors(",
)
"""The functions that run as their owner, past row level security (0006_fast_chat_search.sql and after)."""
TABLES = ("chats", "chat_turns", "chat_folders", "chat_turn_vectors", "chat_working_memory")


def fresh_database(cluster: PostgresCluster) -> str:
    return cluster.create_database(f"fresh_{uuid.uuid4().hex[:10]}")


def scalar(conninfo: str, statement: str) -> object:
    with psycopg.connect(conninfo, autocommit=True) as db:
        row = db.execute(statement.encode()).fetchone()
    assert row is not None
    return row[0]


def test_the_migrations_are_numbered_from_one_without_gaps() -> None:
    assert [m.version for m in migrations()] == list(range(1, len(migrations()) + 1))
    assert migration_script(m.version for m in migrations()) == ""


def test_migrations_apply_once_in_order(postgres_cluster: PostgresCluster) -> None:
    conninfo = fresh_database(postgres_cluster)
    assert applied_migrations(conninfo) == []
    assert apply_migrations(conninfo) == migrations()
    assert applied_migrations(conninfo) == [m.version for m in migrations()]
    assert scalar(conninfo, "SELECT public.parley_schema_version()") == SCHEMA_VERSION
    assert apply_migrations(conninfo) == []  # nothing pending: nothing runs
    assert applied_migrations(conninfo) == [m.version for m in migrations()]


def test_a_later_migration_applies_on_top_of_earlier_ones(postgres_cluster: PostgresCluster) -> None:
    conninfo = fresh_database(postgres_cluster)
    with psycopg.connect(conninfo, autocommit=True) as db:
        db.execute(migration_script(m.version for m in migrations()[1:]).encode())  # only the first
    assert applied_migrations(conninfo) == [1]
    assert apply_migrations(conninfo) == migrations()[1:]
    assert applied_migrations(conninfo) == [m.version for m in migrations()]


def test_a_failing_script_changes_nothing(postgres_cluster: PostgresCluster) -> None:
    conninfo = fresh_database(postgres_cluster)
    with psycopg.connect(conninfo, autocommit=True) as db:
        db.execute("CREATE TABLE public.chat_turns (clash integer)")  # the user's project has such a table
        with pytest.raises(psycopg.errors.DuplicateTable):
            db.execute(migration_script().encode())
        db.execute("ROLLBACK")
    assert applied_migrations(conninfo) == []
    assert scalar(conninfo, "SELECT to_regclass('public.chats') IS NULL") is True
    with pytest.raises(StoreUnavailable, match=r"^the Supabase database refused the migration: .*chat_turns"):
        apply_migrations(conninfo)
    assert applied_migrations(conninfo) == []


def test_a_bad_connection_string_is_refused_without_repeating_it() -> None:
    with pytest.raises(StoreUnavailable) as caught:
        apply_migrations("postgresql//parley:hunter2-secret@db.example.invalid")
    assert "not a Postgres connection string" in str(caught.value)
    assert "hunter2" not in str(caught.value)


def test_every_table_has_row_level_security_and_nothing_is_granted_to_anon(
    supabase_stack: SupabaseStack,
) -> None:
    conninfo = supabase_stack.admin_conninfo
    for table in TABLES:
        assert scalar(conninfo, f"SELECT relrowsecurity FROM pg_class WHERE oid = 'public.{table}'::regclass")
        for privilege in ("SELECT", "INSERT", "UPDATE", "DELETE"):
            assert scalar(conninfo, f"SELECT has_table_privilege('anon', 'public.{table}', '{privilege}')") is False
    functions = scalar(
        conninfo,
        "SELECT array_agg(p.oid::regprocedure::text) FROM pg_proc AS p"
        " WHERE p.pronamespace IN ('public'::regnamespace, 'parley'::regnamespace)",
    )
    assert isinstance(functions, list) and len(functions) > 20
    for function in functions:
        assert scalar(conninfo, f"SELECT has_function_privilege('anon', '{function}', 'EXECUTE')") is False
        assert scalar(conninfo, f"SELECT has_function_privilege('authenticated', '{function}', 'EXECUTE')")
        definer = scalar(conninfo, f"SELECT prosecdef FROM pg_proc WHERE oid = '{function}'::regprocedure")
        config = scalar(
            conninfo, f"SELECT coalesce(proconfig, '{{}}') FROM pg_proc WHERE oid = '{function}'::regprocedure"
        )
        if function.startswith(OWNER_RIGHTS):
            # Runs as its owner (the indexes serve it) and keeps to `auth.uid()`'s rows itself, with a search
            # path of its own so that no caller's objects stand in for the ones it means.
            assert definer is True and isinstance(config, list)
            assert any(setting.startswith("search_path=") for setting in config)
        else:
            # SECURITY INVOKER: each runs as its caller, so row level security applies inside it.
            assert definer is False


async def test_a_project_without_the_migration_is_refused_clearly(postgres_cluster: PostgresCluster) -> None:
    bare = SupabaseStack(postgres_cluster, f"bare_{uuid.uuid4().hex[:10]}", migrated=False)
    user = bare.new_user("alice")
    with pytest.raises(StoreUnavailable, match="apply Parley's migration"):
        await SupabaseChatStore.sign_in(bare.url, bare.anon_key, user.email, user.password)
    bare.close()
