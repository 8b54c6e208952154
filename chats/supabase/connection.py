"""A signed-in connection to the user's Supabase project: the only module that uses the `supabase` SDK.

Parley signs in as the user (Supabase Auth, email and password) with the project's anon key and then
calls remote procedures with the user's access token, so the project's row level security is what keeps
users apart; it never holds a service-role key.

Tokens: the SDK can refresh on a timer task of its own, which nothing here would own or cancel, so it is
switched off; instead every call first asks the SDK for the session, which refreshes the access token
when it expires within 10 seconds and then (through the SDK's auth listener) sends the new token with
the calls that follow. A lock keeps concurrent calls from refreshing at once: a refresh token is good
for one refresh.

Errors leave as chats errors: `SupabaseUnreachable` (a `StoreUnavailable`) when Supabase cannot be
reached or answers 5xx, `SignInRequired` when it refuses the credentials or the session, another
`StoreUnavailable` when the project lacks Parley's schema, and `RemoteError` for what a procedure raised
on purpose (the store turns those into `ChatNotFound`, `FolderNotFound`, ...).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Mapping
from typing import Any, Protocol

import httpx
from postgrest.exceptions import APIError
from supabase import AsyncClient, AsyncClientOptions, acreate_client
from supabase._async.client import SupabaseException
from supabase_auth import AsyncMemoryStorage, AsyncSupportedStorage
from supabase_auth.errors import AuthError, AuthRetryableError

from chats.errors import StoreUnavailable
from chats.supabase.errors import RemoteError, SignInRequired, SupabaseUnreachable
from chats.supabase.migrations import require_schema

DEFAULT_TIMEOUT_S = 10.0
"""How long one request may take before Supabase counts as unreachable (seconds)."""

_SESSION_CODES = frozenset({"PGRST301", "PGRST302", "PGRST303"})
"""PostgREST: the token is invalid, missing, or expired."""
_MISSING_CODES = frozenset({"PGRST202", "42883"})
"""PostgREST or Postgres: no such function (the project lacks Parley's migration)."""
_DOWN_CLASSES = ("08", "53", "57", "58", "XX")
"""SQLSTATE classes of a database that is down, overloaded, shutting down or broken."""


class SessionStorage(Protocol):
    """Where the signed-in session (a JSON text holding the refresh token) is kept between runs: the
    OS keyring in the app, a dict in tests."""

    async def load(self) -> str | None: ...

    async def save(self, session: str) -> None: ...

    async def clear(self) -> None: ...


class _StorageAdapter(AsyncSupportedStorage):
    """Our `SessionStorage` as the SDK's storage (it has one session, so the key does not matter)."""

    def __init__(self, storage: SessionStorage) -> None:
        self._storage = storage

    async def get_item(self, key: str) -> str | None:
        return await self._storage.load()

    async def set_item(self, key: str, value: str) -> None:
        await self._storage.save(value)

    async def remove_item(self, key: str) -> None:
        await self._storage.clear()


class SupabaseConnection:
    def __init__(self, client: AsyncClient, http: httpx.AsyncClient, user_id: str, email: str | None) -> None:
        self._client = client
        self._http = http
        self._user_id = user_id
        self._email = email
        self._auth_lock = asyncio.Lock()
        self._schema: int | None = None
        self._reachable: bool | None = None
        """Whether the last request reached Supabase (None before the first)."""
        self._reachability_listeners: list[Callable[[bool], None]] = []
        self._closed = False

    @classmethod
    async def sign_in(
        cls,
        url: str,
        anon_key: str,
        email: str,
        password: str,
        *,
        storage: SessionStorage | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> SupabaseConnection:
        """Sign in with email and password; the session goes to `storage` when given.

        Raises `SignInRequired` when Supabase refuses the credentials, `StoreUnavailable` when it cannot
        be reached."""
        client, http = await _client(url, anon_key, storage, timeout_s)
        try:
            try:
                response = await client.auth.sign_in_with_password({"email": email, "password": password})
            except AuthRetryableError as error:
                raise SupabaseUnreachable(f"cannot reach Supabase at {url}: {error.message}") from error
            except AuthError as error:
                raise SignInRequired(f"Supabase did not accept the sign-in for {email}: {error.message}") from error
            if response.user is None:
                raise SignInRequired(f"Supabase did not sign in {email}")
            return cls(client, http, response.user.id, response.user.email)
        except BaseException:
            await http.aclose()
            raise

    @classmethod
    async def resume(
        cls,
        url: str,
        anon_key: str,
        storage: SessionStorage,
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        unreachable_ok: bool = False,
    ) -> SupabaseConnection:
        """Go on with the session kept in `storage` (refreshing it if it has expired); raises
        `SignInRequired` when there is none or Supabase no longer accepts it. `unreachable_ok`: when an
        expired session cannot be refreshed because Supabase is unreachable, go on as the user the kept
        session names; the refresh happens on the first call that reaches Supabase."""
        client, http = await _client(url, anon_key, storage, timeout_s)
        try:
            connection = cls(client, http, "", None)
            try:
                session = await connection._session()
                connection._user_id, connection._email = session.user.id, session.user.email
            except SupabaseUnreachable:
                if not unreachable_ok:
                    raise
                connection._user_id, connection._email = _kept_user(await storage.load())
            return connection
        except BaseException:
            await http.aclose()
            raise

    @property
    def user_id(self) -> str:
        """The signed-in user's id (`auth.uid()` in the database)."""
        return self._user_id

    @property
    def email(self) -> str | None:
        """The signed-in user's email address, as Supabase Auth knows it."""
        return self._email

    async def call(self, function: str, params: Mapping[str, object]) -> Any:
        """Call a remote procedure as the user; its JSON answer."""
        if self._closed:
            raise StoreUnavailable("the Supabase connection is closed")
        try:
            await self._session()
            try:
                response = await self._client.rpc(function, dict(params)).execute()
            except APIError as error:
                raise _remote_error(function, error) from error
            except httpx.TimeoutException as error:
                raise SupabaseUnreachable(f"Supabase did not answer {function} in time") from error
            except httpx.TransportError as error:
                raise SupabaseUnreachable(f"Supabase is unreachable: {error}") from error
        except SupabaseUnreachable:
            self._now_reachable(False)
            raise
        except (StoreUnavailable, RemoteError):
            self._now_reachable(True)  # it answered: a refusal, or an error a procedure raised
            raise
        self._now_reachable(True)
        return response.data

    def watch_reachability(self, listener: Callable[[bool], None]) -> None:
        """Have `listener` hear False when a call finds Supabase unreachable, and True when a call reaches
        it again; at once False if the last call found it unreachable. Called on the caller's thread."""
        self._reachability_listeners.append(listener)
        if self._reachable is False:
            listener(False)

    def _now_reachable(self, reachable: bool) -> None:
        before, self._reachable = self._reachable, reachable
        if reachable is not before and (before is not None or not reachable):
            for listener in self._reachability_listeners:
                listener(reachable)

    async def ensure_schema(self) -> None:
        """Check, once per connection, that the project has Parley's schema: `StoreUnavailable` saying what
        to run when it is older. The stores do before their first call, so a store opened while Supabase
        was unreachable checks it once Supabase answers."""
        if self._schema is None:
            self._schema = await require_schema(self.call)

    async def sign_out(self) -> None:
        """End this session on the server and forget it (other devices stay signed in)."""
        try:
            await self._client.auth.sign_out({"scope": "local"})
        except AuthError as error:
            raise StoreUnavailable(f"Supabase could not sign out: {error.message}") from error

    async def close(self) -> None:
        """Close the network connections; the session stays in its storage for the next run."""
        if self._closed:
            return
        self._closed = True
        await self._http.aclose()

    async def _session(self) -> Any:
        async with self._auth_lock:
            try:
                session = await self._client.auth.get_session()
            except AuthRetryableError as error:
                raise SupabaseUnreachable(f"Supabase is unreachable: {error.message}") from error
            except AuthError as error:
                raise SignInRequired(f"Supabase ended the session ({error.message}): sign in again") from error
        if session is None:
            raise SignInRequired("not signed in to Supabase: sign in again")
        return session


async def _client(
    url: str, anon_key: str, storage: SessionStorage | None, timeout_s: float
) -> tuple[AsyncClient, httpx.AsyncClient]:
    # One HTTP client for auth and data, owned (and closed) by the connection. No retries inside the
    # SDK: a failed call surfaces at once, and the journal is what retries.
    http = httpx.AsyncClient(timeout=timeout_s)
    options = AsyncClientOptions(
        auto_refresh_token=False,
        persist_session=True,
        storage=_StorageAdapter(storage) if storage is not None else AsyncMemoryStorage(),
        httpx_client=http,
        postgrest_client_retry=False,
    )
    try:
        return await acreate_client(url, anon_key, options), http
    except SupabaseException as error:
        await http.aclose()
        raise StoreUnavailable(f"not a Supabase project URL and key: {error.message}") from error


def _kept_user(session: str | None) -> tuple[str, str | None]:
    """The user id and email of a kept session (the SDK's JSON); `SignInRequired` when there is none."""
    try:
        user = json.loads(session or "")["user"]
        return str(user["id"]), user.get("email")
    except (ValueError, KeyError, TypeError):
        raise SignInRequired("not signed in to Supabase: sign in again") from None


def _remote_error(function: str, error: APIError) -> Exception:
    code = error.code or ""
    message = error.message or "no message"
    if code in _SESSION_CODES:
        return SignInRequired(f"Supabase refused the session ({message}): sign in again")
    if code == "42501":
        return StoreUnavailable(
            f"Supabase refused {function} (permission denied): is Parley's migration applied to the project?"
        )
    if code in _MISSING_CODES:
        return StoreUnavailable(
            f"the Supabase project has no {function} function: apply Parley's migration (parley supabase setup)"
        )
    if code.startswith("PGRST0") or code.startswith(_DOWN_CLASSES) or (code.isdigit() and code.startswith("5")):
        return SupabaseUnreachable(f"Supabase is unavailable ({code}: {message})")
    if code in ("401", "403"):
        return SignInRequired(f"Supabase refused the request ({message}): sign in again")
    return RemoteError(code, message, error.details)
