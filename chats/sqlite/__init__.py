"""The embedded default chat store on SQLite."""
