"""A speaker the conversation can do without: the answer is still shown when it cannot be played."""

from __future__ import annotations

import logging
from collections.abc import Callable

from voice.audio.chunks import AudioChunk, AudioFormat, AudioSink
from voice.audio.synthetic import silence
from voice.errors import AudioError

log = logging.getLogger(__name__)

PROBE_MS = 20
"""The silence `retry` plays (milliseconds): one block of the speaker's, unheard."""


class OptionalSink:
    """Plays through `sink` until it fails with `AudioError` (no speaker can be opened, or the device went
    away); then tells `on_failure` why, once, and from then on takes the voice and drops it, so that the
    conversation goes on in text, until `retry` (the device was opened again: `app.front.device_switch`)."""

    def __init__(self, sink: AudioSink, on_failure: Callable[[AudioError], None]) -> None:
        self._sink = sink
        self._on_failure = on_failure
        self.failure: AudioError | None = None
        """Why the sink plays nothing any more; None while it works."""

    @property
    def format(self) -> AudioFormat:
        return self._sink.format

    @property
    def queued_ms(self) -> float:
        return 0.0 if self.failure is not None else self._sink.queued_ms

    async def write(self, chunk: AudioChunk) -> None:
        if self.failure is None:
            try:
                await self._sink.write(chunk)
            except AudioError as error:
                self._failed(error)

    def clear(self) -> None:
        if self.failure is None:
            self._sink.clear()

    async def drain(self) -> None:
        if self.failure is None:
            try:
                await self._sink.drain()
            except AudioError as error:
                self._failed(error)

    async def retry(self) -> bool:
        """After a failure, try `sink` again (the device behind it was replaced) with a moment of silence,
        which opens a speaker that opens on its first write: True when it plays now; when it fails again,
        `on_failure` is told again. False too when it had not failed."""
        if self.failure is None:
            return False
        self.failure = None
        await self.write(silence(PROBE_MS, format=self.format))
        return self.failure is None

    async def aclose(self) -> None:
        await self._sink.aclose()

    def _failed(self, error: AudioError) -> None:
        log.warning("the speaker failed, answers are shown but not spoken: %s", error)
        self.failure = error
        self._on_failure(error)
