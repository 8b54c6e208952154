"""Which chat a voice conversation is in, and where a request to change it stands: the one owner of that fact.

The conversation asks it where each finished turn goes (`place`); the switch tools tell it what they
decided (`decided`); the voice loop, the ask server and the front end read the chat from it, and the
window's choice of the next chat goes into it (`continue_in`). A switch request moves it through named
states:

- `InChat`: turns go to the chat; nothing about changing it is under way.
- `Choosing`: `switch_chat` asked which chat. The model's question and the user's answer belong to the
  request (its navigation turns, `Turn.navigation`) until the model calls a switch again; a model turn after
  the question that is not a switch means the user moved on.
- `Answering`: a request that did not switch (nothing found, already there): the model's reply answers it.
- `Switching`: a switch was decided. The rest of the session (the model's "here is your kitchen chat") goes
  to the chat switched to, and the next session opens there.

Beside them, a new chat the store does not hold yet is *opening*: its turns are journaled as opening it,
until a delivery (or a tool that needs it) puts it in the store.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal
from uuid import UUID


@dataclass(frozen=True, slots=True)
class InChat:
    """Turns go to the chat in conversation; no request to change it is under way."""


@dataclass(frozen=True, slots=True)
class Choosing:
    """`switch_chat` asked the user which chat."""

    request: tuple[UUID, ...]
    """The turns of the request so far: the words that asked, then the question and the answers."""
    asked: bool = False
    """The model has said its question: its next turn, unless a switch, means the user moved on."""


@dataclass(frozen=True, slots=True)
class Answering:
    """A switch request that did not switch: the model's next turn answers it."""


@dataclass(frozen=True, slots=True)
class Switching:
    """A switch was decided: the session ends once the model's turn is over, and the next opens in `to`."""

    to: UUID


SwitchState = InChat | Choosing | Answering | Switching


@dataclass(frozen=True, slots=True)
class TurnPlace:
    """Where a finished turn goes."""

    chat_id: UUID
    navigation: bool
    """A turn of a switch request: kept in the history, never in what the chat is about."""
    opens_chat: bool
    """The chat is not in the store yet: this turn, delivered, creates it."""


class ChatInConversation:
    def __init__(self, chat_id: UUID, *, new: bool = False) -> None:
        """`new`: `chat_id` is a new chat the store does not hold yet (it is opening)."""
        self._chat_id = chat_id
        self._state: SwitchState = InChat()
        self._opening: UUID | None = chat_id if new else None
        self._conversing = False
        self._next: UUID | None = None
        """Chosen (in the window) during a conversation: the next one continues it."""
        self._last_user_turn: UUID | None = None
        """The user's latest turn: the words of a switch request made in a chat."""

    @property
    def chat_id(self) -> UUID:
        """The chat in conversation, or the one the next conversation continues while none is under way.
        During a switch, still the chat switched from, until the session ends."""
        return self._chat_id

    @property
    def state(self) -> SwitchState:
        return self._state

    @property
    def opening(self) -> bool:
        """The chat in conversation is a new one the store does not hold yet."""
        return self._chat_id == self._opening

    def continue_in(self, chat_id: UUID) -> None:
        """The next conversation continues `chat_id`; one under way stays where it is."""
        if self._conversing:
            self._next = chat_id
        else:
            self._chat_id = chat_id

    def begin(self) -> None:
        """A conversation starts, in the chat in conversation."""
        self._conversing = True

    def session_ended(self) -> UUID | None:
        """A session ended. A request left unanswered stays where it was said, marked; after a decided switch
        the chat switched to is returned, and the conversation goes on there; else None (it ends: `over`)."""
        switched, self._state = self._state, InChat()
        if isinstance(switched, Switching):
            # The window shows the chat switched to now: a chat chosen there before is not the next one.
            self._chat_id, self._next = switched.to, None
            return switched.to
        return None

    def over(self) -> None:
        """The conversation is over, however it ended (idle, a goodbye, a failure, cancelled): a chat chosen
        while it went on is the chat in conversation from now on."""
        self._conversing, self._state = False, InChat()
        if self._next is not None:
            self._chat_id, self._next = self._next, None

    def delivered(self, chats: Iterable[UUID]) -> None:
        """The store took turns for `chats`: an opening chat among them is in the store now."""
        if self._opening in set(chats):
            self._opening = None

    def created(self) -> None:
        """The opening chat was created in the store (a tool needs it before anything was said in it)."""
        self._opening = None

    def place(self, role: Literal["user", "model"]) -> TurnPlace:
        """Where a turn just finished goes, and whether it is navigation."""
        match self._state:
            case Switching(to):
                return TurnPlace(to, True, to == self._opening)
            case Answering() | Choosing(asked=False):
                navigation = True
            case InChat() | Choosing(asked=True):
                navigation = False
        return TurnPlace(self._chat_id, navigation, self.opening)

    def recorded(self, turn_id: UUID, role: Literal["user", "model"]) -> None:
        """A turn was journaled where `place` said: the request it belongs to, or the user moved on."""
        if role == "user":
            self._last_user_turn = turn_id
        match self._state:
            case Choosing(request, asked=False):
                self._state = Choosing((*request, turn_id), asked=role == "model")
            case Choosing(request, asked=True):
                self._state = Choosing((*request, turn_id), asked=True) if role == "user" else InChat()
            case Answering() if role == "model":
                self._state = InChat()

    def request(self) -> tuple[UUID, ...]:
        """The turns of the switch request a tool call now answers: when the model asked which chat, the
        whole exchange; else the user's latest words."""
        if isinstance(self._state, Choosing):
            return self._state.request
        return () if self._last_user_turn is None else (self._last_user_turn,)

    def decided(self, switch_to: UUID | None, *, asking: bool, request: tuple[UUID, ...] = ()) -> None:
        """What a switch tool decided: to switch to `switch_to`, to ask which chat (`asking`, about
        `request`), or neither (the model answers the request)."""
        if switch_to is not None:
            self._state = Switching(switch_to)
        elif asking:
            self._state = Choosing(request)
        else:
            self._state = Answering()
