"""What a conversation opens with while the chat store cannot be reached: the chat's context as it was
last loaded, with every turn spoken since (the journal holds them until the store is back). Parley goes
on talking in the chat it was in; it cannot open another one until the store answers again."""

from __future__ import annotations

from dataclasses import replace
from uuid import UUID

from chats.errors import StoreUnavailable
from voice.live import HistoryTurn, LiveConfig


class LastConfig:
    """The last configuration built from the store, for one chat, and the turns spoken after it."""

    def __init__(self) -> None:
        self._chat_id: UUID | None = None
        self._config: LiveConfig | None = None
        self._since: list[HistoryTurn] = []

    def loaded(self, chat_id: UUID, config: LiveConfig) -> None:
        """A configuration built from the store: it already holds every earlier turn."""
        self._chat_id, self._config, self._since = chat_id, config, []

    def spoken(self, chat_id: UUID, turn: HistoryTurn) -> None:
        if chat_id == self._chat_id:
            self._since.append(turn)

    def config(self, chat_id: UUID, unavailable: StoreUnavailable) -> LiveConfig:
        """The configuration to go on with in `chat_id`; `unavailable` again when there is none."""
        if self._config is None or chat_id != self._chat_id:
            raise unavailable
        return replace(self._config, history=(*self._config.history, *self._since))
