"""`SupabaseStore`: what both Supabase stores are. A store works on a signed-in connection, its own (from
`sign_in`, closed with the store) or one it shares with the other store; it makes sure the project has
Parley's schema, calls remote procedures as the user and turns what they raise into its own errors,
stamps what it writes with its clock, and refuses calls once closed."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Any, ClassVar, Self

from chats.errors import StoreUnavailable
from chats.models import utc_now
from chats.supabase.connection import SupabaseConnection
from chats.supabase.errors import RemoteError


class SupabaseStore:
    what: ClassVar[str]
    """The store's name in messages ("chat", "memory")."""

    def __init__(
        self,
        connection: SupabaseConnection,
        *,
        clock: Callable[[], datetime] = utc_now,
        owns_connection: bool = False,
    ) -> None:
        """Use `open` (which checks the project's schema now) or `sign_in`; made directly, the store checks
        it before its first call (see `SupabaseConnection.ensure_schema`). `clock` stamps what the store
        writes, as in the SQLite stores."""
        self._connection = connection
        self._clock = clock
        self._owns_connection = owns_connection
        self._closed = False

    @classmethod
    async def open(cls, connection: SupabaseConnection, **options: Any) -> Self:
        """The store on a signed-in connection, once the project is known to have Parley's schema (when it
        has not, the store is closed and the error raised). `options`: the store's constructor's."""
        store = cls(connection, **options)
        try:
            await connection.ensure_schema()
        except BaseException:
            await store.close()
            raise
        return store

    @classmethod
    async def sign_in(cls, url: str, anon_key: str, email: str, password: str, **options: Any) -> Self:
        """Sign in (`SupabaseConnection.sign_in`, keeping the session in memory only) and open the store on
        that connection, closed with the store. `options`: the store's constructor's."""
        connection = await SupabaseConnection.sign_in(url, anon_key, email, password)
        return await cls.open(connection, owns_connection=True, **options)

    @property
    def user_id(self) -> str:
        return self._connection.user_id

    def _now(self) -> str:
        return self._clock().isoformat()

    async def _call(self, function: str, params: Mapping[str, object]) -> Any:
        """Call a remote procedure as the user; its JSON answer."""
        if self._closed:
            raise StoreUnavailable(f"the {self.what} store is closed")
        await self._connection.ensure_schema()
        try:
            return await self._connection.call(function, params)
        except RemoteError as error:
            raise self._domain_error(function, error) from error

    def _domain_error(self, function: str, error: RemoteError) -> Exception:
        """The store's own error for what a remote procedure raised on purpose. A code the store does not
        know means the project's functions are not the ones Parley expects."""
        return StoreUnavailable(f"Supabase refused {function} ({error.code}: {error.message})")

    async def close(self) -> None:
        """Later calls raise `StoreUnavailable`; the connection closes too when the store owns it."""
        if self._closed:
            return
        self._closed = True
        if self._owns_connection:
            await self._connection.close()
