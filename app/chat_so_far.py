"""The chat in conversation as the store last gave it, and what the journal says was said in it since.

Together they are what the chat holds now, without asking the store: what a conversation opens with while
the store cannot be reached (Parley goes on in the chat it was in; it cannot open another one until the store
answers again), the history a live session starts over with when its resumption handle is refused, and the
user's own words the memory tools must find a memory in. The turns said since are kept once, in the journal
(`TurnJournal.said_since_loaded`); this keeps only what the store gave."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from uuid import UUID

from chats.errors import StoreUnavailable
from chats.journal import TurnJournal
from voice.live.connection import HistoryTurn, LiveConfig


class ChatSoFar:
    """The last configuration built from the store, for one chat, with the user's words in its history."""

    def __init__(self, journal: TurnJournal) -> None:
        self._journal = journal
        self._chat_id: UUID | None = None
        self._config: LiveConfig | None = None
        self._user_said: tuple[str, ...] = ()

    def loaded(self, chat_id: UUID, config: LiveConfig, user_said: Sequence[str]) -> None:
        """A configuration built from the store: it already holds every earlier turn (`user_said`: the user's
        own words among them, summaries aside)."""
        self._chat_id, self._config, self._user_said = chat_id, config, tuple(user_said)
        self._journal.mark_loaded()

    def config(self, chat_id: UUID, unavailable: StoreUnavailable) -> LiveConfig:
        """The configuration to go on with in `chat_id`; `unavailable` again when there is none."""
        if self._config is None or chat_id != self._chat_id:
            raise unavailable
        return replace(self._config, history=self.history(chat_id))

    def history(self, chat_id: UUID) -> tuple[HistoryTurn, ...]:
        """Every turn of `chat_id` as loaded, then as said since; none when another chat was loaded last."""
        if self._config is None or chat_id != self._chat_id:
            return ()
        said = self._journal.said_since_loaded(chat_id)
        return (*self._config.history, *(HistoryTurn(turn.role, turn.text) for turn in said))

    def user_said(self, chat_id: UUID) -> tuple[str, ...]:
        """The user's own words in `chat_id`, as loaded and since: what a saved memory must come from."""
        if chat_id != self._chat_id:
            return ()
        said = self._journal.said_since_loaded(chat_id)
        return (*self._user_said, *(turn.text for turn in said if turn.role == "user"))
