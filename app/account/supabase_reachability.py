"""What the window says while Supabase cannot be reached, and once it is back (the store tells it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, runtime_checkable

UNREACHABLE = (
    "Supabase cannot be reached. Parley goes on talking and keeps the new turns on this computer; they are "
    "saved to Supabase once it is back. Other chats, search and memories wait for it."
)
BACK = "Supabase is reachable again: the turns kept meanwhile are being saved."


@runtime_checkable
class WatchesReachability(Protocol):
    def watch_reachability(self, listener: Callable[[bool], None]) -> None: ...


def report_reachability(
    store: object, *, error: Callable[[str], None], resolved: Callable[[str], None], notice: Callable[[str], None]
) -> None:
    """When `store` tells whether Supabase answers (`OutageTolerantChatStore` does), say so for each
    change: `error` gets the outage's message; once Supabase is back, `resolved` gets that same message
    (its banner goes) and `notice` the news. Other stores have nothing to tell."""

    def changed(reachable: bool) -> None:
        if reachable:
            resolved(UNREACHABLE)
            notice(BACK)
        else:
            error(UNREACHABLE)

    if isinstance(store, WatchesReachability):
        store.watch_reachability(changed)
