"""`look_at_screen`, the tool Gemini Live calls when the user refers to what is on the screen ("look at my
screen", "what does this error mean?"), as a `ToolKit`; the window's Look button asks for it in words.

Only on request: the screen is taken when the model calls the tool, never otherwise, and the status says
`LOOKING` meanwhile (the tray and the window show it). The picture goes to the model as the live connection's
video input just before the tool's answer (`voice.session`); the chat keeps a note of it (when, what size),
never the picture. Where the screen cannot be taken, or the picture not sent, the answer carries one sentence
for the model to say, in the user's language (`languages/<code>/screen.toml`).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from datetime import datetime
from types import TracebackType
from typing import Any
from uuid import UUID

from app.config.settings import Settings
from app.core.events import Post, StatusChanged
from app.core.status import VoiceStatus
from app.screen.grab import Look, ScreenUnavailable, take_screen
from app.wiring import spoken_language
from languages.registry import DEFAULT, table
from voice.live.connection import ToolDeclaration
from voice.session_events import ToolReply

log = logging.getLogger(__name__)

LOOK_AT_SCREEN = ToolDeclaration(
    "look_at_screen",
    "See the user's screen: Parley takes one picture of it and shows it to you just before this call's "
    "answer. Call it when the user asks you to look at the screen or speaks of something on it ('what does "
    "this error mean?', 'which of these is cheaper?'); never otherwise. Its `looked_at` says whether the picture "
    "shows the window the user is in or their whole screen. If the answer says `shown` false, say "
    "its `say` to the user in your own words, in one sentence, and go on.",
    {"type": "object", "properties": {}, "additionalProperties": False},
)

TakeScreen = Callable[[], Awaitable[Look]]


def screen_words(language: str | None) -> Mapping[str, Any]:
    """The screen's sentences in `language` (None: the default language)."""
    words: Mapping[str, Any] = table(language or DEFAULT)["screen"]
    return words


def look_request(settings: Settings) -> str:
    """What the window's Look button sends, as if typed: the user asking the model to look."""
    return str(screen_words(spoken_language(settings))["request"])


class ScreenKit:
    def __init__(
        self,
        *,
        enabled: bool,
        language: str | None,
        post: Post | None = None,
        take: TakeScreen = take_screen,
        clock: Callable[[], datetime] = lambda: datetime.now().astimezone(),
    ) -> None:
        """`enabled`: the `look_at_screen` setting (off: the tool is not declared). `language`: the user's (None:
        the default). `post`: where the status goes while looking. `take`: how the screen is taken; `clock`:
        the local time the chat's note says."""
        self._enabled = enabled
        self._words = screen_words(language)
        self._post = post or (lambda event: None)
        self._take = take
        self._clock = clock

    async def __aenter__(self) -> ScreenKit:
        return self

    async def __aexit__(
        self, kind: type[BaseException] | None, error: BaseException | None, trace: TracebackType | None
    ) -> None:
        return None

    async def declarations(self) -> tuple[ToolDeclaration, ...]:
        return (LOOK_AT_SCREEN,) if self._enabled else ()

    def handles(self, name: str) -> bool:
        return self._enabled and name == LOOK_AT_SCREEN.name

    async def call(self, name: str, args: Mapping[str, Any], chat_id: UUID) -> ToolReply:
        # A tool runs while the assistant is THINKING (`voice.session`): that is the status to go back to.
        self._post(StatusChanged(VoiceStatus.LOOKING))
        try:
            look = await self._take()
        except ScreenUnavailable as error:
            log.info("the screen could not be taken: %s", error)
            return ToolReply({"shown": False, "say": self._words[error.why]})
        finally:
            self._post(StatusChanged(VoiceStatus.THINKING))
        picture = look.picture
        size = {"width": picture.width, "height": picture.height}
        return ToolReply(
            {"shown": True, "looked_at": look.what, **size, "jpeg_bytes": len(picture.jpeg)},
            picture=picture,
            unshown={"shown": False, "say": self._words["not_sent"]},
            note=self._words["note"][look.what].format(time=f"{self._clock():%H:%M}", **size),
        )
