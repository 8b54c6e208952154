"""The microphone as an `AudioSource`: 16 kHz mono PCM16 chunks of `frame_ms`, timed by sample count."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncGenerator
from typing import Any, Final

import numpy as np
import soxr

from voice.audio.chunks import MIC_FORMAT, AudioChunk, AudioFormat
from voice.audio.devices import DeviceSelector, PortAudioBackend, RawStream, StreamBackend, StreamRequest, close_stream
from voice.audio.pcm import frame_samples
from voice.errors import NoAudioDevice


class _End:
    """The sentinel that closes the chunk queue."""

    def __init__(self, error: NoAudioDevice | None = None) -> None:
        self.error = error


_CLOSED: Final = _End()


class MicrophoneSource:
    """Records from a PortAudio input device. The stream opens when iteration starts (so a missing
    device raises `NoAudioDevice` there) and closes when the iteration ends or `aclose()` is called.

    PortAudio's thread only hands each block to the loop with `call_soon_threadsafe`; on the loop,
    blocks are resampled if the device would not run at 16 kHz, cut into exact `frame_ms` chunks
    (openWakeWord wants 1280 samples) and queued. `start_ms` counts samples, not wall time, so it stays
    exact however late the loop runs. If the consumer falls more than `max_queued_ms` behind, the
    oldest chunks are dropped (`dropped_chunks`): a stalled loop must not grow memory without bound.
    """

    def __init__(
        self,
        *,
        device: DeviceSelector = None,
        frame_ms: int = 80,
        max_queued_ms: int = 4000,
        backend: StreamBackend | None = None,
    ) -> None:
        self._frame_bytes = frame_samples(MIC_FORMAT, frame_ms) * MIC_FORMAT.width
        self._device = device
        self._frame_ms = frame_ms
        self._max_queued = max(1, max_queued_ms // frame_ms)
        self._backend = backend or PortAudioBackend()
        self._queue: asyncio.Queue[AudioChunk | _End] | None = None
        self._closed = False
        self.dropped_chunks = 0
        """Chunks thrown away because the consumer fell behind."""
        self.overflows = 0
        """Blocks PortAudio delivered with a status flag, such as an input overflow (samples lost before
        they reached us)."""

    @property
    def format(self) -> AudioFormat:
        return MIC_FORMAT

    async def chunks(self) -> AsyncGenerator[AudioChunk, None]:
        if self._closed:
            return
        if self._queue is not None:
            raise RuntimeError("the microphone is already being read")
        loop = asyncio.get_running_loop()
        queue: asyncio.Queue[AudioChunk | _End] = asyncio.Queue()
        framer = _Framer(self._frame_bytes)
        resampler: soxr.ResampleStream | None = None
        stopping = False

        def on_block(pcm: bytes, overflowed: bool) -> None:  # on the loop
            self.overflows += overflowed
            if resampler is not None:
                pcm = resampler.resample_chunk(np.frombuffer(pcm, dtype=np.int16)).tobytes()
            for chunk in framer.feed(pcm):
                if queue.qsize() >= self._max_queued:
                    queue.get_nowait()
                    self.dropped_chunks += 1
                queue.put_nowait(chunk)

        def on_finished() -> None:  # on the loop
            if not stopping:
                queue.put_nowait(_End(NoAudioDevice("the microphone stopped: the input device went away")))

        def callback(indata: Any, frames: int, time: Any, status: Any) -> None:  # on PortAudio's thread
            with contextlib.suppress(RuntimeError):  # raised when the loop is closed: nobody listens any more
                loop.call_soon_threadsafe(on_block, bytes(indata), bool(status))

        def finished_callback() -> None:  # on PortAudio's thread
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(on_finished)

        self._queue = queue  # from here on, aclose() reaches this iteration
        stream: RawStream | None = None
        try:
            stream = await asyncio.to_thread(
                self._backend.open_stream,
                StreamRequest(
                    "input",
                    device=self._device,
                    channels=MIC_FORMAT.channels,
                    rate=MIC_FORMAT.rate,
                    block_ms=self._frame_ms,
                    callback=callback,
                    finished_callback=finished_callback,
                ),
            )
            device_rate = round(stream.samplerate)
            if device_rate != MIC_FORMAT.rate:
                resampler = soxr.ResampleStream(device_rate, MIC_FORMAT.rate, MIC_FORMAT.channels, dtype="int16")
            await asyncio.to_thread(stream.start)
            while not isinstance(item := await queue.get(), _End):
                yield item
            if item.error is not None:
                raise item.error
        finally:
            stopping = True
            self._queue = None
            if stream is not None:
                await asyncio.to_thread(close_stream, stream)

    async def aclose(self) -> None:
        """Stop recording: an iteration in progress ends after the chunks already queued."""
        self._closed = True
        if self._queue is not None:
            self._queue.put_nowait(_CLOSED)


class _Framer:
    """Re-cuts a byte stream into chunks of exactly `frame_bytes`, timed by how much came before."""

    def __init__(self, frame_bytes: int) -> None:
        self._frame_bytes = frame_bytes
        self._pending = bytearray()
        self._emitted = 0

    def feed(self, pcm: bytes) -> list[AudioChunk]:
        self._pending += pcm
        chunks = []
        while len(self._pending) >= self._frame_bytes:
            frame = bytes(self._pending[: self._frame_bytes])
            del self._pending[: self._frame_bytes]
            chunks.append(AudioChunk(MIC_FORMAT, frame, MIC_FORMAT.duration_ms(self._emitted)))
            self._emitted += len(frame)
        return chunks
