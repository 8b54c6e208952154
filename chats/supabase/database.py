"""Applying Parley's migrations straight to a Supabase project's Postgres, given its connection string
(`parley supabase setup --db-url`): the one place Parley talks to the database as its owner rather
than through the API as the user. It runs once, at set-up; the app itself never holds such a string.
"""

from __future__ import annotations

from typing import Any

import psycopg

from chats.errors import StoreUnavailable
from chats.supabase.migrations import Migration, migration_script, pending


def applied_versions(db: psycopg.Connection[Any]) -> list[int]:
    """The migration versions the database records (none before the first set-up)."""
    row = db.execute("SELECT to_regclass('parley.schema_migrations') IS NOT NULL").fetchone()
    if not row or not row[0]:
        return []
    return [version for (version,) in db.execute("SELECT version FROM parley.schema_migrations ORDER BY version")]


def apply_migrations(db_url: str) -> list[Migration]:
    """Apply the migrations the database lacks, in one transaction; the ones applied (none when it is up
    to date). `StoreUnavailable` when the database cannot be reached or refuses the script; the message
    never repeats the connection string, which holds a password."""
    try:
        db = psycopg.connect(db_url, autocommit=True, connect_timeout=15)
    except psycopg.OperationalError as error:
        raise StoreUnavailable(f"cannot connect to the Supabase database: {_first_line(error)}") from None
    except psycopg.Error:
        # Its text quotes the string it could not read, password and all.
        raise StoreUnavailable("not a Postgres connection string (postgresql://user:password@host:port/db)") from None
    try:
        with db:
            applied = applied_versions(db)
            if pending(applied):
                db.execute(migration_script(applied).encode())
    except psycopg.Error as error:
        raise StoreUnavailable(f"the Supabase database refused the migration: {_first_line(error)}") from None
    return pending(applied)


def _first_line(error: Exception) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]
