"""The signed-in Supabase session, kept in the OS keyring between runs.

The `supabase` client hands the session (a JSON text with the access and refresh tokens) to a storage
object when the user signs in and whenever it refreshes the tokens, and reads it back before each call.
This storage keeps it in one keyring entry per project URL, so another project never sees it.

Every load reads the keyring again rather than a copy held here: the window and a `parley` command may
run at once, and a refresh token is good for one refresh, so each must see the other's newest session.
"""

from __future__ import annotations

import asyncio

from app.config.secrets import delete_entry, read_entry, write_entry


def session_entry(project_url: str) -> str:
    """The keyring username of the session for `project_url`."""
    return f"supabase_session {project_url.rstrip('/')}"


class KeyringSessionStorage:
    """`chats.supabase.SessionStorage` on the OS keyring. Keyring backends may block (D-Bus, a locked
    keychain asking to open), so each access runs on a worker thread, never on the event loop."""

    def __init__(self, project_url: str) -> None:
        self._entry = session_entry(project_url)

    async def load(self) -> str | None:
        return await asyncio.to_thread(read_entry, self._entry)

    async def save(self, session: str) -> None:
        await asyncio.to_thread(write_entry, self._entry, session, what="the Supabase session")

    async def clear(self) -> None:
        await asyncio.to_thread(delete_entry, self._entry)
