"""A sound card in a simulated room, in real time: the laptop's microphone and speaker as PortAudio streams
(the `StreamBackend` that `MicrophoneSource` and `SpeakerSink` open), driven by a thread of their own as
PortAudio drives its callbacks.

Every `BLOCK_MS` of wall time the thread takes one block from the speaker's callback, sends it through the
laptop's echo path (`rooms.SimulatedRoom`: the speaker's clip, 5 cm of air, the room), `OUTPUT_LATENCY_MS`
late, and adds it to what the microphone records with the user's voice (`say`) and the room's noise; the
microphone's callback gets each of its blocks once it is whole. So the product's echo canceller, barge-in
detector and session hear the room as they would on a laptop.
"""

from __future__ import annotations

import threading
import time
from types import TracebackType

import numpy as np
import soxr
from scipy import signal as sig

from tests.voice.portaudio_fake import FakeBackend, FakeStream
from tests.voice.room_sounds import RATE, Signal, to_pcm
from tests.voice.rooms import SimulatedRoom, soft_clip
from voice.audio.devices import Kind

BLOCK_MS = 20
OUTPUT_LATENCY_MS = 30
"""From a block taken by the sound card to its sound leaving the speaker."""


class RoomSoundCard(FakeBackend):
    """A `StreamBackend` whose streams run at the rates asked for; a context manager that runs the room
    while it is open."""

    def __init__(self, room: SimulatedRoom, *, laptop_echo: bool = True) -> None:
        """`laptop_echo`: what the speaker plays reaches the microphone (False: the user's voice and the
        noise only, as with headphones)."""
        super().__init__()
        self._room = room
        self._laptop_echo = laptop_echo
        self._lock = threading.Lock()
        self._said: list[Signal] = []
        """What the user has just said (16 kHz floats, the room included), for the thread to take."""
        block = RATE * BLOCK_MS // 1000
        self._block = block
        self._echo_tail = np.zeros(len(room.echo_response) + block)
        """The echo still to come of what was played: convolution tails carried from block to block."""
        self._echo_delay = np.zeros(RATE * OUTPUT_LATENCY_MS // 1000)
        self._mic = np.zeros(0)
        """Microphone samples not yet a whole block of its stream."""
        self._user = np.zeros(0)
        """The user's voice still to reach the microphone."""
        self._resampler: soxr.ResampleStream | None = None
        self._resampled = np.zeros(0)
        """Played audio at the room's rate not yet sent through the echo path."""
        self._noise = room.noise(RATE * 60, room.speech_rms)
        self._position = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="room-sound-card", daemon=True)
        self.played_blocks = 0
        """Speaker blocks that held sound."""

    def say(self, pcm: bytes) -> None:
        """The user says the dry 16 kHz fixture `pcm` from the talker's spot, starting now."""
        heard = self._room.talker(pcm)
        with self._lock:
            self._said.append(heard)

    def __enter__(self) -> RoomSoundCard:
        self._thread.start()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, traceback: TracebackType | None
    ) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        origin = time.monotonic()
        blocks = 0
        while not self._stop.is_set():
            blocks += 1
            # Absolute deadlines: a late block shortens the next wait instead of delaying all that follow.
            delay = origin + blocks * BLOCK_MS / 1000 - time.monotonic()
            if delay > 0 and self._stop.wait(delay):
                return
            self._tick()

    def _tick(self) -> None:
        speaker, microphone = self._stream("output"), self._stream("input")
        with self._lock:
            said, self._said = self._said, []
        played = self._played(speaker)
        echo = self._echo(played) if self._laptop_echo else np.zeros(self._block)
        block = echo + self._noise[(self._position + np.arange(self._block)) % len(self._noise)]
        self._position += self._block
        for voice in said:
            self._mix_user(voice)
        block += self._user_block()
        self._mic = np.concatenate([self._mic, block])
        if microphone is not None and microphone.started.is_set():
            whole = len(self._mic) - len(self._mic) % (microphone.block_bytes // 2)
            if whole:
                microphone.record(to_pcm(self._mic[:whole]))
                self._mic = self._mic[whole:]
        elif len(self._mic) > RATE:
            self._mic = self._mic[-RATE:]

    def _stream(self, kind: Kind) -> FakeStream | None:
        """The last stream of `kind` the product opened (the list grows on its thread)."""
        return next((stream for stream in reversed(list(self.streams)) if stream.kind == kind), None)

    def _played(self, speaker: FakeStream | None) -> Signal:
        """One block of what the speaker plays, at 16 kHz (silence while it is not open)."""
        if speaker is None or not speaker.started.is_set():
            return np.zeros(self._block)
        pcm = speaker.play(1)
        samples = np.frombuffer(pcm, dtype="<i2").astype(np.float64) / 32768.0
        if speaker.channels > 1:
            samples = samples.reshape(-1, speaker.channels).mean(axis=1)
        if np.any(samples):
            self.played_blocks += 1
        if round(speaker.samplerate) == RATE:
            return samples
        if self._resampler is None:
            self._resampler = soxr.ResampleStream(round(speaker.samplerate), RATE, 1, dtype="float64")
        # A streaming resampler gives a few samples more or less per block: a FIFO keeps the stream whole.
        self._resampled = np.concatenate([self._resampled, self._resampler.resample_chunk(samples)])
        block, self._resampled = self._resampled[: self._block], self._resampled[self._block :]
        return np.pad(block, (0, self._block - len(block)))

    def _echo(self, played: Signal) -> Signal:
        """The echo of `played` reaching the microphone now, and the rest carried for later blocks."""
        delayed = np.concatenate([self._echo_delay, played])
        self._echo_delay, played = delayed[len(played) :], delayed[: len(played)]
        self._echo_tail[: len(played) + len(self._room.echo_response) - 1] += sig.oaconvolve(
            soft_clip(played), self._room.echo_response
        )
        now = self._echo_tail[: self._block].copy()
        self._echo_tail = np.concatenate([self._echo_tail[self._block :], np.zeros(self._block)])
        return now

    def _mix_user(self, voice: Signal) -> None:
        if len(voice) > len(self._user):
            voice = voice.copy()
            voice[: len(self._user)] += self._user
            self._user = voice
        else:
            self._user = self._user.copy()
            self._user[: len(voice)] += voice

    def _user_block(self) -> Signal:
        part = self._user[: self._block]
        self._user = self._user[self._block :]
        return np.pad(part, (0, self._block - len(part)))
