"""A local Supabase project for tests: real Postgres with pgvector (`pgserver`), the auth pieces a
Supabase project has, Parley's migrations, and the GoTrue and PostgREST doubles behind one URL.

`supabase_stack` (session-scoped) starts it all once, in about a second; tests keep apart by signing in
as users of their own (`SupabaseStack.new_user`). On plain Postgres the bits Supabase provides are made
by `DATABASE_BOOTSTRAP` here, never by Parley's migrations: the roles `anon`, `authenticated` and
`authenticator`, the `auth` schema with `auth.users` and `auth.uid()` reading `request.jwt.claims`, the
`extensions` schema, and Supabase's default privileges (every new table and function in `public` granted
to anon and authenticated), which the migrations must take back where they mean to.
"""

from __future__ import annotations

import contextlib
import secrets
import shutil
import subprocess
import tempfile
import uuid
import warnings
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

import psycopg
import pytest
from psycopg import sql

from chats.models import utc_now
from chats.supabase.database import applied_versions, apply_migrations
from tests.fakes.gotrue_server import GoTrueDouble, anon_key
from tests.fakes.postgrest_server import PostgrestDouble
from tests.fakes.supabase_http import SupabaseHttpServer

CLUSTER_BOOTSTRAP = """
CREATE ROLE anon NOLOGIN NOINHERIT;
CREATE ROLE authenticated NOLOGIN NOINHERIT;
CREATE ROLE service_role NOLOGIN NOINHERIT BYPASSRLS;
CREATE ROLE authenticator LOGIN NOINHERIT;
GRANT anon, authenticated TO authenticator;
"""

DATABASE_BOOTSTRAP = """
CREATE SCHEMA auth;
CREATE SCHEMA extensions;
GRANT USAGE ON SCHEMA auth, extensions, public TO anon, authenticated, service_role;

CREATE TABLE auth.users (
    id                 uuid PRIMARY KEY,
    email              text UNIQUE,
    encrypted_password text,
    email_confirmed_at timestamptz,
    created_at         timestamptz NOT NULL DEFAULT now()
);

-- As Supabase defines them.
CREATE FUNCTION auth.uid() RETURNS uuid LANGUAGE sql STABLE AS $$
    SELECT coalesce(
        nullif(current_setting('request.jwt.claim.sub', true), ''),
        (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'sub')
    )::uuid
$$;
CREATE FUNCTION auth.role() RETURNS text LANGUAGE sql STABLE AS $$
    SELECT coalesce(
        nullif(current_setting('request.jwt.claim.role', true), ''),
        (nullif(current_setting('request.jwt.claims', true), '')::jsonb ->> 'role')
    )::text
$$;
CREATE FUNCTION auth.jwt() RETURNS jsonb LANGUAGE sql STABLE AS $$
    SELECT coalesce(
        nullif(current_setting('request.jwt.claim', true), ''),
        nullif(current_setting('request.jwt.claims', true), '')
    )::jsonb
$$;
GRANT EXECUTE ON FUNCTION auth.uid(), auth.role(), auth.jwt() TO anon, authenticated, service_role;

ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON TABLES TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON FUNCTIONS TO anon, authenticated, service_role;
ALTER DEFAULT PRIVILEGES IN SCHEMA public GRANT ALL ON SEQUENCES TO anon, authenticated, service_role;
"""

PASSWORD = "correct horse battery staple"
"""Every test user's password."""


@dataclass(frozen=True, slots=True)
class TestUser:
    __test__ = False  # not a test class, whatever its name

    id: str
    email: str
    password: str


class PostgresCluster:
    """One pgserver Postgres for the test session; databases are made on it as needed."""

    def __init__(self, folder: Path) -> None:
        with warnings.catch_warnings():
            # platformdirs warns at import when XDG_RUNTIME_DIR is unset, as in CI.
            warnings.simplefilter("ignore")
            from pgserver import postgres_server

        self._folder = folder
        self._server = postgres_server.get_server(folder, cleanup_mode="delete")
        self._admin_uri = self._server.get_uri()
        with psycopg.connect(self._admin_uri, autocommit=True) as db:
            db.execute(CLUSTER_BOOTSTRAP)
            # Throwaway data: a commit need not wait for the disk (the machine may be busy with others).
            db.execute("ALTER SYSTEM SET synchronous_commit = off")
            db.execute("SELECT pg_reload_conf()")

    def conninfo(self, database: str, user: str = "postgres") -> str:
        return psycopg.conninfo.make_conninfo(self._admin_uri, dbname=database, user=user)

    def create_database(self, name: str) -> str:
        """A new database with Supabase's bootstrap, no Parley schema yet; its admin connection string."""
        with psycopg.connect(self._admin_uri, autocommit=True) as db:
            db.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        conninfo = self.conninfo(name)
        with psycopg.connect(conninfo, autocommit=True) as db:
            db.execute(DATABASE_BOOTSTRAP)
        return conninfo

    def stop(self) -> None:
        """Stop Postgres at once (no shutdown checkpoint: the data is deleted next) and delete its folder."""
        from pgserver import _commands

        with contextlib.suppress(subprocess.CalledProcessError):
            _commands.pg_ctl(  # type: ignore[attr-defined]  # made at import time, one per Postgres program
                ["-w", "-m", "immediate", "stop"], pgdata=self._folder, user=self._server.system_user
            )
        self._server.cleanup()


def applied_migrations(conninfo: str) -> list[int]:
    with psycopg.connect(conninfo, autocommit=True) as db:
        return applied_versions(db)


class SupabaseStack:
    """A database (migrated unless told otherwise) behind the GoTrue and PostgREST doubles."""

    def __init__(self, cluster: PostgresCluster, database: str, *, migrated: bool = True) -> None:
        self.admin_conninfo = cluster.create_database(database)
        if migrated:
            apply_migrations(self.admin_conninfo)
        self.jwt_secret = secrets.token_urlsafe(32)
        self.anon_key = anon_key(self.jwt_secret)
        self.postgrest = PostgrestDouble(cluster.conninfo(database, user="authenticator"), self.jwt_secret)
        self._front: SupabaseHttpServer | None = None
        self.auth = GoTrueDouble(self.admin_conninfo, self.jwt_secret, issuer="parley-test/auth/v1")
        self._front = self.serve()

    @property
    def url(self) -> str:
        assert self._front is not None
        return self._front.url

    def serve(self, port: int = 0) -> SupabaseHttpServer:
        """Another HTTP front on these doubles, at an address of its own (stop it to cut the network; serve
        again on its port to bring it back)."""
        return SupabaseHttpServer({"/auth/v1/": self.auth.handle, "/rest/v1/": self.postgrest.handle}, port)

    def new_user(self, name: str) -> TestUser:
        """A confirmed user no other test has: `name` plus a random tag."""
        email = f"{name}-{uuid.uuid4().hex[:12]}@example.com"
        return TestUser(self.auth.add_user(email, PASSWORD), email, PASSWORD)

    def query(self, statement: str, *parameters: Any) -> list[tuple[Any, ...]]:
        """Run SQL as the database owner, past row level security: to look at what really is stored."""
        with psycopg.connect(self.admin_conninfo, autocommit=True) as db:
            return db.execute(statement.encode(), parameters).fetchall()

    def close(self) -> None:
        if self._front is not None:
            self._front.stop()
        self.postgrest.close()


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[PostgresCluster]:
    # Not under pytest's temporary folder: as root, Postgres runs as the `pgserver` user, which must be
    # able to enter every folder above its data, and every pytest run starting meanwhile (another
    # terminal, another checkout) resets that folder's mode to 0700.
    folder = Path(tempfile.mkdtemp(prefix="parley-postgres-"))
    cluster = PostgresCluster(folder / "data")
    yield cluster
    cluster.stop()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def supabase_stack(postgres_cluster: PostgresCluster) -> Iterator[SupabaseStack]:
    stack = SupabaseStack(postgres_cluster, "parley")
    yield stack
    stack.close()


StoreT_co = TypeVar("StoreT_co", covariant=True)


class SignIn(Protocol[StoreT_co]):
    """A Supabase store's `sign_in`."""

    def __call__(
        self, url: str, anon_key: str, email: str, password: str, *, clock: Callable[[], datetime]
    ) -> Awaitable[StoreT_co]: ...


class SignedInStores(Generic[StoreT_co]):
    """`make("alice")` signs in as this test's alice (a user no other test has) and opens a store there."""

    def __init__(self, stack: SupabaseStack, sign_in: SignIn[StoreT_co]) -> None:
        self.stack = stack
        self._sign_in = sign_in
        self.users: dict[str, TestUser] = {}

    def user(self, name: str) -> TestUser:
        if name not in self.users:
            self.users[name] = self.stack.new_user(name)
        return self.users[name]

    async def __call__(self, user_id: str) -> StoreT_co:
        return await self.with_clock(user_id)

    async def with_clock(self, user_id: str, clock: Callable[[], datetime] = utc_now) -> StoreT_co:
        user = self.user(user_id)
        return await self._sign_in(self.stack.url, self.stack.anon_key, user.email, user.password, clock=clock)
