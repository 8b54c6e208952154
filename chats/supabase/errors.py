"""Errors of the Supabase stores that callers may want to tell apart. No SDK types here."""

from __future__ import annotations

from typing import Any

from chats.errors import StoreUnavailable


class SignInRequired(StoreUnavailable):
    """Supabase refused the user's credentials or session (wrong password, a session that expired or
    was revoked, a token the project does not accept): the user must sign in again."""


class SupabaseUnreachable(StoreUnavailable):
    """Supabase did not answer, or answered that it is down (a lost network, a timeout, a 5xx, a database
    shutting down): what goes away by itself, unlike a refused session or a project without Parley's
    schema. While it lasts Parley keeps talking and journals the turns (chats.supabase.outage_store)."""


class RemoteError(Exception):
    """An error a remote procedure raised on purpose, as PostgREST reports it; the store turns the codes
    it knows into domain errors."""

    def __init__(self, code: str, message: str, details: Any = None) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        """The SQLSTATE (`PCH04`, `PFD04`, ...) or PostgREST's own code (`PGRST...`)."""
        self.message = message
        self.details = details
