"""Recordings as audio sources and sinks: `WavFileSource` plays a file in as if it were a microphone,
`WavFileSink` writes what the assistant says to a file. libsndfile (through `soundfile`) reads WAV and
the other formats it knows (FLAC, Ogg, ...); libsoxr resamples.
"""

from __future__ import annotations

import asyncio
import re
import time
import wave
from collections.abc import AsyncGenerator, Callable, Generator
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import soundfile
import soxr

from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.pacing import NoPacer, Pacer, RealTimePacer, paced
from voice.audio.pcm import float_to_pcm16, frame_samples, mapped, split
from voice.audio.playback import PlaybackTimeline
from voice.errors import AudioError, UnreadableAudio

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class RecordingHeader:
    """What a recording's header says, read without decoding it."""

    seconds: float
    """The audio the file holds (seconds)."""
    promised_seconds: float | None
    """The audio a WAV file's header announces (seconds); None when the format does not say."""

    @property
    def ended_early(self) -> bool:
        """The file was cut short: it holds less than its header announces (a copy or a recording stopped
        part way)."""
        return self.promised_seconds is not None and self.promised_seconds - self.seconds > 0.001

    def warning(self, path: Path) -> str:
        return (
            f"{path} ends early: its header announces {self.promised_seconds:.1f} s, the file holds "
            f"{self.seconds:.1f} s; using what is there"
        )


def read_header(path: Path) -> RecordingHeader:
    """The recording's header, in a few milliseconds: a command checks its input before anything else
    starts. Raises `UnreadableAudio` as `read_recording` does."""
    info = _readable(path, lambda: soundfile.info(str(path)))
    return RecordingHeader(seconds=info.frames / info.samplerate, promised_seconds=_promised_seconds(path))


BLOCK_SECONDS = 1
"""A recording is decoded and resampled this many seconds at a time: an hour of 16 kHz mono held whole is
115 MB of PCM16 and 230 MB of float32 on the way (2.4 GB at the peak of an hour's `parley listen --audio-in --fast`);
a second is 64 kB of float32, and the resampler keeps its own state from one block to the next."""


def read_recording(path: Path, target: AudioFormat = MIC_FORMAT) -> bytes:
    """Decode a whole recording and convert it to PCM16 in `target`. Blocking: call it off the loop.

    Raises `UnreadableAudio`, one line naming the file, when the file is missing, empty, a folder,
    or not audio that libsndfile can decode.
    """
    return b"".join(recording_blocks(path, target))


def recording_blocks(path: Path, target: AudioFormat = MIC_FORMAT) -> Generator[bytes, None, None]:
    """A recording decoded and converted to PCM16 in `target` a block (`BLOCK_SECONDS`) at a time, each
    block the samples it makes (which the resampler's delay makes of uneven length). Blocking, like
    `read_recording`, and raising what it raises, at the first block for a file that cannot be opened."""
    with _readable(path, lambda: soundfile.SoundFile(str(path))) as file:
        rate = int(file.samplerate)
        resampler = (
            None if rate == target.rate else soxr.ResampleStream(rate, target.rate, target.channels, quality="HQ")
        )
        block = rate * BLOCK_SECONDS
        while True:
            samples = mapped(
                _readable(path, lambda: file.read(block, dtype="float32", always_2d=True)), target.channels
            )
            last = len(samples) < block
            if resampler is not None:
                samples = resampler.resample_chunk(samples, last=last).reshape(-1, target.channels)
            yield float_to_pcm16(samples)
            if last:
                return


def _readable(path: Path, read: Callable[[], T]) -> T:
    """`read()` of an existing, non-empty audio file; its failures as one `UnreadableAudio` line."""
    try:
        if path.is_dir():
            raise UnreadableAudio(f"cannot read audio from {path}: it is a folder")
        if not path.exists():
            raise UnreadableAudio(f"cannot read audio from {path}: no such file")
        if path.stat().st_size == 0:
            raise UnreadableAudio(f"cannot read audio from {path}: the file is empty")
        return read()
    except soundfile.LibsndfileError as error:
        # Its str() repeats the path around libsndfile's own words; keep only the words.
        raise UnreadableAudio(f"cannot read audio from {path}: {_one_line(error.error_string)}") from error
    except (soundfile.SoundFileError, OSError, RuntimeError, ValueError) as error:
        raise UnreadableAudio(f"cannot read audio from {path}: {_one_line(str(error))}") from error


def _promised_seconds(path: Path) -> float | None:
    """The length a PCM WAV's header announces. libsndfile trims its count to what the file holds, so
    a truncated file looks whole to it; the standard `wave` module reports the header's own count."""
    try:
        with wave.open(str(path), "rb") as header:
            return header.getnframes() / header.getframerate()
    except (wave.Error, EOFError, OSError, ZeroDivisionError):
        return None  # not a PCM WAV (FLAC, Ogg, float WAV): their headers announce no length to check


class WavFileSource:
    """A recording as a 16 kHz mono PCM16 stream (`MIC_FORMAT`), cut into `frame_ms` chunks.

    The file is read a block at a time (`recording_blocks`), so an hour's recording takes no more memory
    than a second's; one that cannot be opened raises `UnreadableAudio` before any chunk is yielded. The
    last chunk holds the remainder and may be shorter than `frame_ms` (never zero-padded: the stream
    carries exactly the recording's samples).

    With `realtime` (the default) each chunk is handed out when a microphone would have finished
    recording it, at `stream start + chunk.end_ms`; `realtime=False` hands chunks out as fast as they
    are taken. `pacer` replaces the wall clock (tests pass a fake one).
    """

    def __init__(
        self,
        path: Path | str,
        *,
        frame_ms: int = 80,
        realtime: bool = True,
        pacer: Pacer | None = None,
    ) -> None:
        frame_samples(MIC_FORMAT, frame_ms)  # a bad frame length fails here, not mid-stream
        if pacer is not None and not realtime:
            raise ValueError("a pacer paces real-time playback: pass realtime=True or no pacer")
        self._path = Path(path)
        self._frame_ms = frame_ms
        self._pacer: Pacer = NoPacer() if not realtime else pacer or RealTimePacer()
        self._closed = False

    @property
    def format(self) -> AudioFormat:
        return MIC_FORMAT

    @property
    def path(self) -> Path:
        return self._path

    async def chunks(self) -> AsyncGenerator[AudioChunk, None]:
        async for chunk in paced(self._frames(), self._pacer, lambda: self._closed):
            yield chunk

    async def _frames(self) -> AsyncGenerator[AudioChunk, None]:
        """The blocks cut into `frame_ms` chunks, a block's remainder carried into the next."""
        step = frame_samples(MIC_FORMAT, self._frame_ms) * MIC_FORMAT.width
        blocks = recording_blocks(self._path, MIC_FORMAT)
        pending, offset = b"", 0
        try:
            while (block := await asyncio.to_thread(next, blocks, None)) is not None:
                pending += block
                whole = len(pending) - len(pending) % step
                for chunk in split(
                    pending[:whole], MIC_FORMAT, self._frame_ms, start_ms=MIC_FORMAT.duration_ms(offset)
                ):
                    yield chunk
                pending, offset = pending[whole:], offset + whole
            for chunk in split(pending, MIC_FORMAT, self._frame_ms, start_ms=MIC_FORMAT.duration_ms(offset)):
                yield chunk
        finally:
            blocks.close()  # the file, when the stream stops before its end

    async def aclose(self) -> None:
        """Stop the stream: an iteration in progress ends before its next chunk."""
        self._closed = True


class WavFileSink:
    """Writes PCM16 chunks in `format` to a WAV file; the header is complete once `aclose()` returns.

    The file stands for a speaker: what is written "plays" in real time by `clock` (`voice.audio.playback`),
    and `clear()` drops what had not played yet, as barge-in does, so the file holds what a listener
    would have heard. Written chunks wait in memory until `drain()` (or `aclose()`) writes them out and
    counts what was still to play as played.
    """

    def __init__(
        self,
        path: Path | str,
        format: AudioFormat = MODEL_VOICE_FORMAT,
        *,
        clock: Callable[[], float] | None = time.monotonic,
    ) -> None:
        """`clock`: seconds, monotonic; one that stands still keeps everything queued until `drain()`, None
        plays everything at once (a recording read as fast as possible)."""
        self._path = Path(path)
        self._format = format
        self._timeline = PlaybackTimeline(format, clock)
        self._queued: list[bytes] = []
        self._file: soundfile.SoundFile | None = None
        self._written_bytes = 0
        self._lock = asyncio.Lock()
        self._closed = False

    @property
    def format(self) -> AudioFormat:
        return self._format

    @property
    def path(self) -> Path:
        return self._path

    @property
    def written_ms(self) -> float:
        """Audio in the file so far (milliseconds)."""
        return self._format.duration_ms(self._written_bytes)

    @property
    def queued_ms(self) -> float:
        """Audio written to the sink and not yet played (milliseconds)."""
        return self._timeline.queued_ms

    async def write(self, chunk: AudioChunk) -> None:
        if self._closed:
            raise RuntimeError(f"the WAV sink for {self._path} is closed")
        if chunk.format != self._format:
            raise ValueError(f"chunk format {chunk.format} does not match the sink's {self._format}")
        self._queued.append(chunk.pcm)
        self._timeline.written(len(chunk.pcm))

    def clear(self) -> None:
        unplayed = self._timeline.stop()
        pending = b"".join(self._queued)
        self._queued = [pending[: max(0, len(pending) - unplayed)]]

    async def drain(self) -> None:
        async with self._lock:
            self._timeline.stop()
            pcm, self._queued = b"".join(self._queued), []
            if self._file is None:
                self._file = await asyncio.to_thread(self._open)
            file: soundfile.SoundFile = self._file
            if pcm:
                await asyncio.to_thread(file.buffer_write, pcm, dtype="int16")
                self._written_bytes += len(pcm)

    async def aclose(self) -> None:
        """Write what is queued and finish the file's header. An untouched sink leaves a valid empty WAV."""
        if self._closed:
            return
        await self.drain()
        self._closed = True
        if self._file is not None:
            await asyncio.to_thread(self._file.close)

    def _open(self) -> soundfile.SoundFile:
        if not self._path.parent.is_dir():
            raise AudioError(f"cannot write audio to {self._path}: folder {self._path.parent} does not exist")
        try:
            return soundfile.SoundFile(
                self._path,
                mode="w",
                samplerate=self._format.rate,
                channels=self._format.channels,
                format="WAV",
                subtype="PCM_16",
            )
        except soundfile.LibsndfileError as error:
            raise AudioError(f"cannot write audio to {self._path}: {_one_line(error.error_string)}") from error
        except (soundfile.SoundFileError, OSError) as error:
            raise AudioError(f"cannot write audio to {self._path}: {_one_line(str(error))}") from error


def _one_line(text: str) -> str:
    line = re.sub(r"\s+", " ", text).strip().rstrip(".") or "unknown error"
    return line[0].lower() + line[1:]
