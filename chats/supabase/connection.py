"""A signed-in connection to the user's Supabase project: the only module that uses the `supabase` SDK.

Parley signs in as the user (Supabase Auth, email and password) with the project's anon key and then
calls remote procedures with the user's access token, so the project's row level security is what keeps
users apart; it never holds a service-role key.

Tokens: the SDK can refresh on a timer task of its own, which nothing here would own or cancel, so it is
switched off; instead every call first asks the SDK for the session, which refreshes the access token
when it expires within 10 seconds and then (through the SDK's auth listener) sends the new token with
the calls that follow. A lock keeps concurrent calls from refreshing at once: a refresh token is good
for one refresh.

Errors leave as chats errors: `StoreUnavailable` when Supabase cannot be reached or answers 5xx,
`SignInRequired` when it refuses the credentials or the session, and `RemoteError` for what a procedure
raised on purpose (the store turns those into `ChatNotFound`, `FolderNotFound`, ...).
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any, Protocol

import httpx
from postgrest.exceptions import APIError
from supabase import AsyncClient, AsyncClientOptions, acreate_client
from supabase._async.client import SupabaseException
from supabase_auth import AsyncMemoryStorage, AsyncSupportedStorage
from supabase_auth.errors import AuthError, AuthRetryableError

from chats.errors import StoreUnavailable
from chats.supabase.errors import RemoteError, SignInRequired

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
    def __init__(self, client: AsyncClient, http: httpx.AsyncClient, user_id: str) -> None:
        self._client = client
        self._http = http
        self._user_id = user_id
        self._auth_lock = asyncio.Lock()
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
                raise StoreUnavailable(f"cannot reach Supabase at {url}: {error.message}") from error
            except AuthError as error:
                raise SignInRequired(f"Supabase did not accept the sign-in for {email}: {error.message}") from error
            if response.user is None:
                raise SignInRequired(f"Supabase did not sign in {email}")
            return cls(client, http, response.user.id)
        except BaseException:
            await http.aclose()
            raise

    @classmethod
    async def resume(
        cls, url: str, anon_key: str, storage: SessionStorage, *, timeout_s: float = DEFAULT_TIMEOUT_S
    ) -> SupabaseConnection:
        """Go on with the session kept in `storage` (refreshing it if it has expired); raises
        `SignInRequired` when there is none or Supabase no longer accepts it."""
        client, http = await _client(url, anon_key, storage, timeout_s)
        try:
            connection = cls(client, http, "")
            session = await connection._session()
            connection._user_id = session.user.id
            return connection
        except BaseException:
            await http.aclose()
            raise

    @property
    def user_id(self) -> str:
        """The signed-in user's id (`auth.uid()` in the database)."""
        return self._user_id

    async def call(self, function: str, params: Mapping[str, object]) -> Any:
        """Call a remote procedure as the user; its JSON answer."""
        if self._closed:
            raise StoreUnavailable("the Supabase connection is closed")
        await self._session()
        try:
            response = await self._client.rpc(function, dict(params)).execute()
        except APIError as error:
            raise _remote_error(function, error) from error
        except httpx.TimeoutException as error:
            raise StoreUnavailable(f"Supabase did not answer {function} in time") from error
        except httpx.TransportError as error:
            raise StoreUnavailable(f"Supabase is unreachable: {error}") from error
        return response.data

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
                raise StoreUnavailable(f"Supabase is unreachable: {error.message}") from error
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
        return StoreUnavailable(f"Supabase is unavailable ({code}: {message})")
    if code in ("401", "403"):
        return SignInRequired(f"Supabase refused the request ({message}): sign in again")
    return RemoteError(code, message, error.details)
