"""The user's Supabase project as the app uses it: which project (the settings), the signed-in session
(the OS keyring), and the chat and memory stores on it.

Parley signs in with the project's anon key and the user's email and password, and from then on acts
with the user's own token: it never holds a service-role key, so the project's row level security is
what keeps each user to their own rows.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import dataclass
from datetime import datetime

from app.account.session_storage import KeyringSessionStorage
from app.config.config_file import SettingsError
from app.config.secrets import Secret, SecretsError
from app.config.settings import Settings
from chats.errors import StoreUnavailable
from chats.memory.store import MemoryStore
from chats.models import utc_now
from chats.store import ChatStore
from chats.supabase.connection import SupabaseConnection
from chats.supabase.errors import SignInRequired
from chats.supabase.memories import SupabaseMemoryStore
from chats.supabase.migrations import require_schema
from chats.supabase.outage_store import OutageTolerantChatStore
from chats.supabase.started_chats import StartedChats

SIGN_IN = "parley supabase signin"
STARTED_CHATS_FILE = "supabase_started_chats.json"
"""In the data folder: the chats begun while Supabase was unreachable (chats.supabase.started_chats)."""
SET_UP = "parley supabase setup --url URL --anon-key KEY"


@dataclass(frozen=True, slots=True)
class SupabaseProject:
    url: str
    anon_key: Secret
    """Public by design, but masked all the same: it has no business in logs."""

    @property
    def sessions(self) -> KeyringSessionStorage:
        """Where this project's session is kept."""
        return KeyringSessionStorage(self.url)


def supabase_project(settings: Settings) -> SupabaseProject:
    """The project the settings name; `SettingsError` saying what to run when one is missing."""
    if settings.supabase_url is None or settings.supabase_anon_key is None:
        missing = " and ".join(
            name
            for name, value in (
                ("supabase_url", settings.supabase_url),
                ("supabase_anon_key", settings.supabase_anon_key),
            )
            if value is None
        )
        raise SettingsError(f"no Supabase project is set ({missing} missing): run `{SET_UP}`")
    return SupabaseProject(settings.supabase_url.rstrip("/"), settings.supabase_anon_key)


async def sign_in(project: SupabaseProject, email: str, password: str) -> SupabaseConnection:
    """Sign in and keep the session in the OS keyring (replacing any earlier one)."""
    return await SupabaseConnection.sign_in(
        project.url, project.anon_key.reveal(), email, password, storage=project.sessions
    )


async def sign_in_and_check(project: SupabaseProject, email: str, password: str) -> str | None:
    """Sign in and keep the session; what is wrong with the project's schema, if anything (the user is
    signed in all the same: `parley supabase setup` can still apply the migration)."""
    connection = await sign_in(project, email, password)
    try:
        await require_schema(connection.call)
    except StoreUnavailable as error:
        return str(error)
    finally:
        await connection.close()
    return None


async def sign_in_line(url: str, anon_key: str, email: str, password: str) -> str:
    """The settings window's "Sign in": one line saying how it went, never holding the password or a key."""
    url, anon_key, email = url.strip().rstrip("/"), anon_key.strip(), email.strip()
    if not url.startswith(("http://", "https://")) or not anon_key:
        return "Failed: give the project's URL (https://...) and its anon key first"
    if not email or not password:
        return "Failed: give your email address and password"
    try:
        problem = await sign_in_and_check(SupabaseProject(url, Secret(anon_key)), email, password)
    except (StoreUnavailable, SecretsError) as error:
        return f"Failed: {error}"
    return f"Signed in as {email}." + (f" But the project is not ready: {problem}" if problem else "")


async def resume(project: SupabaseProject, *, unreachable_ok: bool = False) -> SupabaseConnection:
    """The kept session, refreshed when it has expired; `SignInRequired` saying what to run when there is
    none or Supabase no longer accepts it. `unreachable_ok`: see `SupabaseConnection.resume`."""
    try:
        return await SupabaseConnection.resume(
            project.url, project.anon_key.reveal(), project.sessions, unreachable_ok=unreachable_ok
        )
    except SignInRequired as error:
        raise SignInRequired(f"{error} with `{SIGN_IN}`") from error


async def open_supabase_stores(
    settings: Settings,
    closing: AsyncExitStack,
    clock: Callable[[], datetime] = utc_now,
) -> tuple[ChatStore, MemoryStore]:
    """The chat and memory stores on one signed-in connection, closed with `closing`; `clock` stamps what
    they write. Supabase need not be reachable: Parley starts all the same,
    keeps the turns in its journal and begins a chat locally if it needs one (`OutageTolerantChatStore`);
    the project's schema is checked by the first call that reaches Supabase."""
    connection = await resume(supabase_project(settings), unreachable_ok=True)
    closing.push_async_callback(connection.close)
    store = OutageTolerantChatStore(connection, StartedChats(settings.data_dir / STARTED_CHATS_FILE), clock=clock)
    closing.push_async_callback(store.close)
    memories = SupabaseMemoryStore(connection, clock=clock)
    closing.push_async_callback(memories.close)
    return store, memories
