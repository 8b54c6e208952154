"""Chats in the user's own Supabase project, through the `supabase` client, signed in as the user."""

from chats.supabase.connection import SessionStorage, SupabaseConnection
from chats.supabase.errors import SignInRequired
from chats.supabase.memories import SupabaseMemoryStore
from chats.supabase.store import SupabaseChatStore

__all__ = ["SessionStorage", "SignInRequired", "SupabaseChatStore", "SupabaseConnection", "SupabaseMemoryStore"]
