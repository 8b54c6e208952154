"""The speaker as an `AudioSink`: a playback buffer that PortAudio's callback pulls from, emptied at
once by `clear()` for barge-in."""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections import deque
from collections.abc import Callable
from typing import Any

import numpy as np
import soxr

from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.devices import DeviceSelector, PortAudioBackend, RawStream, StreamBackend, StreamRequest, close_stream
from voice.audio.overlay import overlaid
from voice.errors import NoAudioDevice


class PlaybackBuffer:
    """A FIFO of PCM bytes shared by the loop (which pushes and clears) and PortAudio's callback
    thread (which pulls), with a track of overlays beside it, mixed in as it is pulled (so an overlay can be
    withdrawn at once, the queued sound going on as it was). The lock is held only to move bytes, never
    across a wait."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._blocks: deque[bytes] = deque()
        self._head = 0
        """Bytes of `_blocks[0]` already pulled."""
        self._size = 0
        """Bytes queued in `_blocks`."""
        self._overlays = bytearray()
        """The overlays still to play, from the next pull on."""

    def __len__(self) -> int:
        """Bytes waiting to be played."""
        return max(self._size, len(self._overlays))

    def push(self, pcm: bytes) -> None:
        if pcm:
            with self._lock:
                self._blocks.append(pcm)
                self._size += len(pcm)

    def pull(self, count: int) -> tuple[bytes, bool]:
        """`count` bytes to play, padded with silence (zero bytes) when the buffer runs short, and
        whether this pull emptied a buffer that held audio."""
        with self._lock:
            had_audio = len(self) > 0
            parts: list[bytes] = []
            wanted = count
            while wanted and self._blocks:
                block = self._blocks[0]
                part = block[self._head : self._head + wanted]
                parts.append(part)
                wanted -= len(part)
                self._head += len(part)
                if self._head == len(block):
                    self._blocks.popleft()
                    self._head = 0
            self._size -= count - wanted
            queued = b"".join(parts)
            over = bytes(self._overlays[:count])
            del self._overlays[:count]
            emptied = had_audio and len(self) == 0
        pcm = overlaid(queued, over) if over else queued
        return pcm + bytes(count - len(pcm)), emptied

    def overlay(self, pcm: bytes) -> None:
        """Mix PCM16 `pcm` over what is still to play (`voice.audio.overlay`): from the next pull on, or
        right after the previous overlay while that still plays (overlays follow each other as pushes do)."""
        with self._lock:
            self._overlays += pcm

    def withdraw_overlays(self) -> int:
        """Drop what the overlays still had to play (a ring stopped): the queued sound goes on from the next
        pull as it was, no longer ducked. Returns the bytes dropped."""
        with self._lock:
            dropped = len(self._overlays)
            self._overlays.clear()
        return dropped

    def clear(self) -> int:
        """Drop everything, overlays too; returns how many bytes were dropped."""
        with self._lock:
            dropped = len(self)
            self._blocks.clear()
            self._head = self._size = 0
            self._overlays.clear()
        return dropped


class SpeakerSink:
    """Plays `format` chunks on a PortAudio output device.

    The stream opens on the first `write()` (raising `NoAudioDevice` there) and then runs until
    `aclose()`, playing silence when there is nothing to play, so a reply starts without the delay of
    opening a device. PortAudio asks for `block_ms` of audio per callback: `clear()` empties the buffer
    at once, and the next callback, at most `block_ms` later, already plays silence (plus whatever the
    device itself had buffered: PortAudio's low-latency setting keeps that to a few blocks).

    An output callback cannot hand its work to the loop: it must fill the device's buffer before it
    returns. So it pulls from `PlaybackBuffer` under a short lock, and reaches the loop only through
    `call_soon_threadsafe`, to say the buffer ran empty (which ends `drain()`). When the device will
    not run at `format.rate`, the audio is resampled (a streaming resampler, seamless across chunks).
    """

    def __init__(
        self,
        format: AudioFormat = MODEL_VOICE_FORMAT,
        *,
        device: DeviceSelector = None,
        block_ms: int = 20,
        backend: StreamBackend | None = None,
        on_played: Callable[[AudioChunk], None] | None = None,
    ) -> None:
        """`on_played`, when given, receives on the event loop every block as the device takes it (in the
        device's rate): what an echo canceller must know the room is hearing."""
        self._format = format
        self._device = device
        self._block_ms = block_ms
        self._backend = backend or PortAudioBackend()
        self._buffer = PlaybackBuffer()
        self._stream: RawStream | None = None
        self._resampler: soxr.ResampleStream | None = None
        self._open_lock = asyncio.Lock()
        self._emptied = asyncio.Event()
        self._emptied.set()
        self._closed = False
        self._failure: NoAudioDevice | None = None
        """Set when the device stops under us: every later call raises it."""
        self.dropped_bytes = 0
        """Device-rate bytes thrown away by `clear()` (barge-in)."""
        self._on_played = on_played
        self._played_ms = 0.0

    @property
    def format(self) -> AudioFormat:
        return self._format

    @property
    def queued_ms(self) -> float:
        """Audio written and not yet handed to the device (milliseconds)."""
        rate = round(self._stream.samplerate) if self._stream is not None else self._format.rate
        return 1000.0 * len(self._buffer) / (rate * self._format.channels * self._format.width)

    async def write(self, chunk: AudioChunk) -> None:
        pcm = await self._taken(chunk)
        if self._resampler is not None:
            samples = np.frombuffer(pcm, dtype=np.int16).reshape(-1, self._format.channels)
            pcm = self._resampler.resample_chunk(samples).tobytes()
        if pcm:
            self._emptied.clear()
            self._buffer.push(pcm)

    async def overlay(self, chunk: AudioChunk) -> None:
        """Play `chunk` at once, over what is queued (ducked beneath it): a timer's ring over the model."""
        pcm = await self._taken(chunk)
        if self._stream is not None and round(self._stream.samplerate) != self._format.rate:
            samples = np.frombuffer(pcm, dtype=np.int16).reshape(-1, self._format.channels)
            pcm = soxr.resample(samples, self._format.rate, round(self._stream.samplerate)).astype(np.int16).tobytes()
        if pcm:
            self._emptied.clear()
            self._buffer.overlay(pcm)

    async def _taken(self, chunk: AudioChunk) -> bytes:
        """`chunk`'s PCM, once the speaker is open to take it; why not (closed, another format, failed)."""
        if self._closed:
            raise RuntimeError("the speaker is closed")
        if chunk.format != self._format:
            raise ValueError(f"chunk format {chunk.format} does not match the speaker's {self._format}")
        if self._failure is not None:
            raise self._failure
        await self._ensure_open()
        return chunk.pcm

    def withdraw_overlays(self) -> None:
        """Silence the overlays from the next callback on (a ring stopped); the queued voice goes on."""
        self._buffer.withdraw_overlays()
        if len(self._buffer) == 0:
            self._emptied.set()

    def clear(self) -> None:
        self.dropped_bytes += self._buffer.clear()
        if self._resampler is not None:
            self._resampler.clear()
        self._emptied.set()

    async def drain(self) -> None:
        """Wait until the callback has taken everything written (the device may still be sounding its
        last block). A drain ends a stretch of audio: the resampler, if any, gives up what it held back."""
        if self._stream is None:
            return
        if self._resampler is not None:
            empty = np.zeros((0, self._format.channels), dtype=np.int16)
            tail = self._resampler.resample_chunk(empty, last=True).tobytes()
            self._resampler.clear()
            if tail:
                self._emptied.clear()
                self._buffer.push(tail)
        await self._emptied.wait()
        if self._failure is not None:
            raise self._failure

    async def aclose(self) -> None:
        """Stop at once: what is still queued is dropped (call `drain()` first to hear it out)."""
        self._closed = True
        self.clear()
        stream, self._stream = self._stream, None
        if stream is not None:
            await asyncio.to_thread(close_stream, stream)

    async def _ensure_open(self) -> None:
        async with self._open_lock:
            if self._stream is not None:
                return
            loop = asyncio.get_running_loop()
            buffer = self._buffer

            def on_emptied() -> None:  # on the loop; a write may have refilled the buffer meanwhile
                if len(buffer) == 0:
                    self._emptied.set()

            def on_finished() -> None:  # on the loop
                if not self._closed:
                    self._failure = NoAudioDevice("the speaker stopped: the output device went away")
                    self.clear()

            def finished_callback() -> None:  # PortAudio's thread
                with contextlib.suppress(RuntimeError):
                    loop.call_soon_threadsafe(on_finished)

            device: AudioFormat | None = None
            """The device's format, known once its stream is open: before `start()` returns, which may be
            after PortAudio's first callbacks."""

            def on_block(pcm: bytes) -> None:  # on the loop
                assert self._on_played is not None and device is not None
                self._on_played(AudioChunk(device, pcm, self._played_ms))
                self._played_ms += device.duration_ms(len(pcm))

            def callback(outdata: Any, frames: int, time: Any, status: Any) -> None:  # PortAudio's thread
                pcm, emptied = buffer.pull(len(outdata))
                outdata[:] = pcm
                with contextlib.suppress(RuntimeError):  # the loop is closed: nobody listens any more
                    if self._on_played is not None:
                        loop.call_soon_threadsafe(on_block, bytes(pcm))
                    if emptied:
                        loop.call_soon_threadsafe(on_emptied)

            stream = await asyncio.to_thread(
                self._backend.open_stream,
                StreamRequest(
                    "output",
                    device=self._device,
                    channels=self._format.channels,
                    rate=self._format.rate,
                    block_ms=self._block_ms,
                    callback=callback,
                    finished_callback=finished_callback,
                ),
            )
            device_rate = round(stream.samplerate)
            device = AudioFormat(device_rate, self._format.channels)
            if device_rate != self._format.rate:
                self._resampler = soxr.ResampleStream(
                    self._format.rate, device_rate, self._format.channels, dtype="int16"
                )
            await asyncio.to_thread(stream.start)
            self._stream = stream
