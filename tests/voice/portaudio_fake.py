"""A stand-in for PortAudio at the SDK edge: a `StreamBackend` whose streams call our callbacks from
a thread of their own, as PortAudio's do. The stream logic of the microphone and the speaker (framing,
resampling, dropping, barge-in, drain) is tested through it; the real PortAudio is tested in
test_devices.py (no sound card) and test_virtual_microphone.py (a virtual one)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from typing import Any

import numpy as np

from voice.audio.devices import Kind, StreamCallback, StreamRequest
from voice.audio.pcm import pcm16_to_float


class FakeStream:
    def __init__(
        self,
        kind: Kind,
        *,
        rate: int,
        channels: int,
        block_ms: int,
        callback: StreamCallback,
        finished: Callable[[], None],
    ) -> None:
        self.kind = kind
        self.samplerate = float(rate)
        self.channels = channels
        self.block_frames = rate * block_ms // 1000
        self.callback = callback
        self.finished_callback = finished
        self.started = threading.Event()
        self.stopped = False
        self.closed = False

    def start(self) -> None:
        self.started.set()

    def stop(self) -> None:
        self.stopped = True

    def close(self) -> None:
        self.closed = True

    @property
    def block_bytes(self) -> int:
        return self.block_frames * self.channels * 2

    def record(self, pcm: bytes, *, overflowed: bool = False) -> None:
        """PortAudio's thread hands `pcm` to the input callback, one block at a time."""
        for offset in range(0, len(pcm), self.block_bytes):
            block = pcm[offset : offset + self.block_bytes]
            self.callback(block, len(block) // (2 * self.channels), None, 1 if overflowed else 0)

    def play(self, blocks: int) -> bytes:
        """PortAudio's thread asks the output callback for `blocks` blocks; returns what it got."""
        out = bytearray()
        for _ in range(blocks):
            buffer = bytearray(self.block_bytes)
            self.callback(buffer, self.block_frames, None, 0)
            out += buffer
        return bytes(out)


class FakeBackend:
    """A device that runs at `device_rate`, or at whatever rate it is asked for when None."""

    def __init__(self, device_rate: int | None = None) -> None:
        self.device_rate = device_rate
        self.streams: list[FakeStream] = []
        self.opened = threading.Event()

    def open_stream(self, request: StreamRequest) -> FakeStream:
        stream = FakeStream(
            request.kind,
            rate=self.device_rate or request.rate,
            channels=request.channels,
            block_ms=request.block_ms,
            callback=request.callback,
            finished=request.finished_callback,
        )
        self.streams.append(stream)
        self.opened.set()
        return stream

    async def started(self) -> FakeStream:
        """The stream, once a source or sink has opened and started it."""
        assert await asyncio.to_thread(self.opened.wait, 10)
        stream = self.streams[-1]
        assert await asyncio.to_thread(stream.started.wait, 10)
        return stream


async def on_portaudio_thread(work: Callable[[], Any]) -> Any:
    """Run `work` on another thread, as PortAudio runs callbacks. Everything it scheduled on the loop
    with `call_soon_threadsafe` has run when this returns: those callbacks were queued first."""
    result = await asyncio.to_thread(work)
    await asyncio.sleep(0)
    return result


def peak_hz(pcm: bytes, rate: int) -> float:
    samples = pcm16_to_float(pcm, 1)[:, 0]
    spectrum = np.abs(np.fft.rfft(samples * np.hanning(len(samples))))
    return float(np.fft.rfftfreq(len(samples), 1 / rate)[np.argmax(spectrum)])
