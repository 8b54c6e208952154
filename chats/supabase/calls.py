"""What both Supabase stores do around their remote procedure calls: refuse once the store is closed,
make sure the project has Parley's schema, turn the database's errors into the store's own, and close
the connection with the store when the store owns it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from chats.errors import StoreUnavailable
from chats.supabase.connection import SupabaseConnection
from chats.supabase.errors import RemoteError

DomainError = Callable[[str, RemoteError], Exception]
"""The store's error for a remote procedure's (its name's) `RemoteError`."""


class StoreCalls:
    def __init__(
        self, connection: SupabaseConnection, *, what: str, domain_error: DomainError, owns_connection: bool
    ) -> None:
        """`what`: the store's name in the closed store's error ("chat", "memory")."""
        self.connection = connection
        self._what = what
        self._domain_error = domain_error
        self._owns_connection = owns_connection
        self._closed = False

    async def check_schema(self) -> None:
        """Make sure the project has Parley's schema; when it has not, close (as `close`) and raise."""
        try:
            await self.connection.ensure_schema()
        except BaseException:
            await self.close()
            raise

    async def __call__(self, function: str, params: Mapping[str, object]) -> Any:
        if self._closed:
            raise StoreUnavailable(f"the {self._what} store is closed")
        await self.connection.ensure_schema()
        try:
            return await self.connection.call(function, params)
        except RemoteError as error:
            raise self._domain_error(function, error) from error

    async def close(self) -> None:
        """Later calls raise `StoreUnavailable`; the connection closes too when the store owns it."""
        if self._closed:
            return
        self._closed = True
        if self._owns_connection:
            await self.connection.close()
