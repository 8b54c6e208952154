"""The embedded default chat store on SQLite."""

from chats.sqlite.store import SqliteChatStore

__all__ = ["SqliteChatStore"]
