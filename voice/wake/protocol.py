"""What the rest of Parley needs from a wake word detector, without importing openWakeWord.

The assistant, the session and the tests depend on this module; `voice.wake.detector` holds the openWakeWord
implementation, and a scripted detector for state machine tests implements the same protocol.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterable
from dataclasses import dataclass
from typing import Protocol

from voice.audio.chunks import AudioChunk

PUSH_TO_TALK = "push_to_talk"
"""The `WakeEvent.model` of a conversation started with the push-to-talk button (score 1.0, offset the
stream position when it was pressed)."""
TYPED_TEXT = "typed_text"
"""The `WakeEvent.model` of a conversation started by a message typed while the assistant slept."""


@dataclass(frozen=True, slots=True)
class WakeEvent:
    model: str
    """Which wake word fired: a built-in model's name ("hey_jarvis") or a custom model file's stem; or
    `PUSH_TO_TALK` / `TYPED_TEXT` when no wake word woke the assistant."""
    score: float
    """The model's score on the frame that fired, between 0 and 1."""
    offset_ms: float
    """End of the audio frame that fired, relative to the start of the stream (milliseconds).
    Detection comes after the wake word was spoken: openWakeWord fires once the phrase fills its
    window, on synthetic speech 160 ms after the phrase's last sound at the median and up to 600 ms
    (bench/voice.py). Words said right after the wake word can start that much before this offset."""


class WakeDetector(Protocol):
    def detections(self, chunks: AsyncIterable[AudioChunk]) -> AsyncGenerator[WakeEvent, None]:
        """One event per wake word spoken in `chunks` (16 kHz mono PCM16, any chunk size), in order,
        until `chunks` ends. Each call is a new stream: nothing heard on an earlier one carries over.
        A generator, so that a caller who stops early can close it (`contextlib.aclosing`)."""
        ...

    async def aclose(self) -> None:
        """Release the model and its worker thread."""
        ...
