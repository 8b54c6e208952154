"""Chats in the user's own Supabase project, through the `supabase` client, signed in as the user."""
