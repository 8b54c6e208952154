"""Parley's microphone chain on a laptop in a simulated room, run in lockstep, faster than real time.

What Parley plays goes out of the laptop's speaker and comes back through the room (`rooms.SimulatedRoom`)
with the user's voice and the room's noise; the product's own `EchoCanceller` cleans the microphone, as
`app.voice_loop` wires it, and the product's barge-in detector (`voice.echo.barge_in`) hears the result. Time
is the stream's: 80 ms microphone chunks, the speaker's 20 ms blocks handed to the canceller as a device
would take them, and the echo reaching the microphone `OUTPUT_LATENCY_MS` after its block was handed over
(the sound card's own buffer). Nothing waits on the wall clock, so ten minutes of room take seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import soxr

from tests.voice.fixtures import read_pcm, utterances
from tests.voice.room_sounds import RATE, Signal, floats, to_pcm
from tests.voice.rooms import SimulatedRoom
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk
from voice.echo.barge_in import SpeechOverPlaybackFactory
from voice.echo.canceller import EchoCanceller

CHUNK_MS = 80
"""The microphone's chunks (`voice.audio.microphone`'s default)."""
BLOCK_MS = 20
"""The speaker's PortAudio blocks (`voice.audio.speaker.SpeakerSink`'s default)."""
OUTPUT_LATENCY_MS = 30.0
"""From a block handed to the sound card to its sound leaving the speaker."""
PARLEY_SENTENCES = (
    "wake_hey_jarvis",
    "wake_hey_jarvis_slow_female",
    "wake_hey_jarvis_fast_british",
    "wake_weather",
    "wake_switch_chat",
    "wake_goodbye",
    "wake_remember",
    "wake_recall",
    "wake_alexa",
    "speech_hello",
    "speech_hey_travis",
)
"""What Parley's voice is made of: every speech fixture, its wake word included (the worst case: Parley
saying "hey Jarvis" itself), each trimmed to its sound."""


def parley_voice(seconds: float, seed: int = 0) -> bytes:
    """`seconds` of Parley speaking (24 kHz PCM16): the fixtures' sentences in a seeded order, 0.2-0.6 s
    apart, resampled to the model's voice rate."""
    rng = np.random.default_rng([seed, 24])
    pieces: list[Signal] = []
    length = 0
    while length < seconds * RATE:
        pcm = read_pcm(PARLEY_SENTENCES[int(rng.integers(len(PARLEY_SENTENCES)))])
        spans = utterances(pcm)
        sound = floats(pcm)[round(spans[0][0] * RATE / 1000) : round(spans[-1][1] * RATE / 1000)]
        pause = np.zeros(round(rng.uniform(0.2, 0.6) * RATE))
        pieces += [sound, pause]
        length += len(sound) + len(pause)
    voice = np.concatenate(pieces)[: round(seconds * RATE)]
    resampled = np.asarray(soxr.resample(voice, RATE, MODEL_VOICE_FORMAT.rate, quality="HQ"), dtype=np.float64)
    return to_pcm(resampled)


def speech_onset_ms(pcm: bytes) -> float:
    """Where the first sound of a dry fixture starts (milliseconds)."""
    return utterances(pcm)[0][0]


@dataclass(frozen=True, slots=True)
class Said:
    """Something said (or sounded) in the room during the run."""

    at_ms: float
    """When it starts, in the run's time (milliseconds)."""
    sound: Signal
    """As the microphone hears it (16 kHz floats), the room included."""


@dataclass
class Heard:
    barge_ins_ms: list[float] = field(default_factory=list)
    """The end of each microphone chunk in which the detector said the user spoke over the voice."""
    cleaned: list[AudioChunk] = field(default_factory=list)
    """The echo-cancelled microphone, as the wake word detector and the live model get it."""


def talker_says(room: SimulatedRoom, at_ms: float, pcm: bytes) -> Said:
    """The dry fixture `pcm` said from the talker's spot, starting at `at_ms`."""
    return Said(at_ms, room.talker(pcm))


def sounds_at(room: SimulatedRoom, at_ms: float, sound: Signal) -> Said:
    """A dry sound (a cough, a door) from the talker's spot."""
    return Said(at_ms, np.convolve(sound, room.talker_response))


async def hear(
    room: SimulatedRoom,
    played: bytes,
    said: Sequence[Said],
    barge_in: SpeechOverPlaybackFactory,
    *,
    duration_ms: float | None = None,
    stop_at_barge_in: bool = False,
    played_at_ms: float = 0.0,
    canceller: EchoCanceller | None = None,
) -> Heard:
    """Run the room for `duration_ms` (default: until the voice and everything said have ended): Parley
    plays `played` (24 kHz PCM16) from `played_at_ms`, with `said` sounding in the room and the
    condition's noise under it all. With `stop_at_barge_in` the run ends where the detector first fires.
    `canceller` is one that has heard earlier answers in this room (`warmed_canceller`); by default a new
    one, as at the first answer after Parley starts."""
    voice_ms = MODEL_VOICE_FORMAT.duration_ms(len(played))
    end_ms = duration_ms or max([played_at_ms + voice_ms, *(s.at_ms + 1000.0 * len(s.sound) / RATE for s in said)])
    samples = round(end_ms * RATE / 1000)
    others = np.zeros(samples)
    for item in said:
        start = round(item.at_ms * RATE / 1000)
        part = item.sound[: max(0, samples - start)]
        others[start : start + len(part)] += part
    echo_start = round((played_at_ms + OUTPUT_LATENCY_MS) * RATE / 1000)
    echo = room.echo(played, MODEL_VOICE_FORMAT.rate)[: max(0, samples - echo_start)]
    others[echo_start : echo_start + len(echo)] += echo
    noise = room.noise(samples, room.speech_rms)

    # As `app.voice_loop` wires it: the speaker reports every block it plays, silence included.
    canceller = canceller or EchoCanceller(clock=None)
    detector = barge_in()
    heard = Heard()
    block_bytes = MODEL_VOICE_FORMAT.bytes_per_second * BLOCK_MS // 1000
    chunk_samples = RATE * CHUNK_MS // 1000
    played_until_ms = played_at_ms + voice_ms
    if samples < chunk_samples:
        return heard
    for start in range(0, samples - chunk_samples + 1, chunk_samples):
        chunk_start_ms = 1000.0 * start / RATE
        for block_ms in np.arange(chunk_start_ms, chunk_start_ms + CHUNK_MS, BLOCK_MS):
            offset = round((block_ms - played_at_ms) * MODEL_VOICE_FORMAT.bytes_per_second / 1000)
            block = played[offset : offset + block_bytes] if played_at_ms <= block_ms < played_until_ms else b""
            canceller.played(AudioChunk(MODEL_VOICE_FORMAT, block.ljust(block_bytes, b"\0"), block_ms))
        mic = others[start : start + chunk_samples] + noise[start : start + chunk_samples]
        cleaned = canceller.cleaned(AudioChunk(MIC_FORMAT, to_pcm(mic), chunk_start_ms))
        heard.cleaned.append(cleaned)
        playing = played_at_ms <= chunk_start_ms < played_until_ms
        if await detector.heard(cleaned, playing):
            heard.barge_ins_ms.append(cleaned.end_ms)
            if stop_at_barge_in:
                break
    return heard


async def warmed_canceller(
    room: SimulatedRoom, barge_in: SpeechOverPlaybackFactory, seconds: float, seed: int
) -> EchoCanceller:
    """The echo canceller as it is after Parley has spoken `seconds` in this room: the canceller lives as
    long as the voice loop, so every answer but the first meets one that has learnt the echo path."""
    canceller = EchoCanceller(clock=None)
    await hear(room, parley_voice(seconds, seed=seed), [], barge_in, canceller=canceller)
    return canceller
