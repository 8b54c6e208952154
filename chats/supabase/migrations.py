"""The Postgres schema of the Supabase store, as versioned SQL migrations, and the script that applies
the ones a project lacks.

A project records what it has in `parley.schema_migrations` (the `parley` schema is not exposed by
PostgREST). The script is one transaction: it applies every pending migration or none. It can be pasted
into Supabase's SQL editor or run by any Postgres client with the project's connection string.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Any

from chats.errors import StoreUnavailable

SCHEMA_VERSION = 11
"""What `parley_schema_version()` answers once every bundled migration is applied."""

_MIGRATION_NAME = re.compile(r"^(\d{4})_[a-z0-9_]+\.sql$")

_BOOKKEEPING = """\
CREATE SCHEMA IF NOT EXISTS parley;
REVOKE ALL ON SCHEMA parley FROM PUBLIC;
CREATE TABLE IF NOT EXISTS parley.schema_migrations (
    version    integer PRIMARY KEY,
    name       text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
);
"""


@dataclass(frozen=True, slots=True)
class Migration:
    version: int
    name: str
    """The file name, e.g. `0001_chats.sql`."""
    sql: str


def migrations() -> list[Migration]:
    """The bundled migrations, oldest first."""
    found = []
    for entry in resources.files("chats.migrations").joinpath("postgres").iterdir():
        match = _MIGRATION_NAME.match(entry.name)
        if match:
            found.append(Migration(int(match.group(1)), entry.name, entry.read_text(encoding="utf-8")))
    return sorted(found, key=lambda migration: migration.version)


def pending(applied: Iterable[int]) -> list[Migration]:
    done = set(applied)
    return [migration for migration in migrations() if migration.version not in done]


def migration_script(applied: Iterable[int] = ()) -> str:
    """One SQL transaction applying every bundled migration whose version is not in `applied` and
    recording each; empty when nothing is pending. The search path puts pgvector's `extensions` schema
    (where Supabase installs extensions) beside `public` while the migrations run."""
    todo = pending(applied)
    if not todo:
        return ""
    parts = ["BEGIN;", "SET LOCAL search_path = public, extensions;", _BOOKKEEPING]
    for migration in todo:
        parts.append(f"-- {migration.name}\n{migration.sql}")
        parts.append(
            f"INSERT INTO parley.schema_migrations (version, name) VALUES ({migration.version}, '{migration.name}');"
        )
    parts.append("COMMIT;")
    return "\n".join(parts) + "\n"


async def require_schema(call: Callable[[str, dict[str, Any]], Awaitable[Any]]) -> int:
    """The project's schema version (`parley_schema_version()`); `StoreUnavailable` when it is older than
    `SCHEMA_VERSION`. `call` runs one RPC as the signed-in user."""
    version = await call("parley_schema_version", {})
    if not isinstance(version, int) or version < SCHEMA_VERSION:
        raise StoreUnavailable(
            f"the Supabase project has Parley schema {version}, not {SCHEMA_VERSION}: "
            "apply the newer migration (parley supabase setup)"
        )
    return version
