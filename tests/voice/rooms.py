"""The dry fixtures of assets/audio put into simulated rooms: a laptop on a table in a living room, the
user talking from 1-3 m away, noise, and Parley's own voice coming back from the laptop's speaker.

Image-source rooms from `pyroomacoustics` (a dev dependency), everything drawn from a fixed seed and made
in memory: nothing large is committed. Facts that shape it:

- The room is 6 x 5 x 2.7 m, the same for every condition; the laptop's microphone sits 0.75 m high,
  1 m from one wall, facing the room. The seed places the talker (mouth 1.1-1.3 m high, within 40
  degrees of the laptop's front, at the condition's distance from the microphone) and draws the noise.
- Reverberation: `pra.inverse_sabine(rt60, dims)` alone overshoots in this room (asked 0.45 s, the
  response decays at 0.55 s; 0.7 s gives 0.88 s: Sabine's formula is for diffuse rooms). Each RT60 is
  therefore corrected once on reference responses (asked x asked / measured), which lands the
  responses within -6 % to +12 % of what was asked wherever the talker stands (T30, `measure_rt60` with
  `decay_db=30`; tests/voice/test_rooms.py checks it).
- Levels: a talker at 1 m arrives at 0.4 (-8 dB) of the fixture's own level by the direct path, plus
  the room's reflections; each doubling of distance takes 6 dB more off the direct path. The espeak-ng
  fixtures' speech is about -20 dBFS (RMS while speaking), so a talker at 2 m is about -28 dBFS (the
  reflections keep it from falling further), and Parley's voice about -19 dBFS: 5 cm from the speaker the
  direct sound dominates, so its peaks (the fixtures' crest factor) reach 0.7-1.0 of full scale and the
  loudest ones clip a little in the microphone's converter too, as laptops do.
- Parley's voice: resampled to 16 kHz, soft-clipped in the laptop's speaker (`SPEAKER_DRIVE`), its
  bass lost below about 250 Hz (a small speaker), then 5 cm of air and the room to the microphone,
  `ECHO_OVER_TALKER_DB` louder than the same speech from a talker at 1 m.
- Noise is scaled against the speech as the microphone hears it: the RMS of the reverberant talker
  over the 10 ms windows where the dry fixture is sound (`fixtures.utterances`). Pink noise is diffuse
  (made at the microphone); babble is four voices from other spots in the room, made from speech
  fixtures that do not contain the wake phrase (`BABBLE_FIXTURES`, and what follows the wake phrase in
  the positives).
- Every response keeps its full tail: `talker()` and `echo()` return the convolution in full, so they
  are longer than their input by the response's length less one sample (up to 1.6 s at RT60 0.7 s).
  The direct sound arrives after the flight time plus the 40-sample (2.5 ms) centre of pyroomacoustics'
  fractional-delay filter.
- Cost: a room at RT60 0.45 s takes about 0.5 s to compute, at 0.7 s about 2 s (5 s with babble);
  the responses are cached per (condition, seed).
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Literal

import numpy as np
import pyroomacoustics as pra
import soxr
from scipy import signal as sig

from tests.voice.fixtures import read_pcm
from tests.voice.room_sounds import (
    RATE,
    REFERENCE_SPEECH,
    Signal,
    babble_material,
    floats,
    pink,
    rms,
    speech_rms,
    to_pcm,
)

ROOM_DIMS = (6.0, 5.0, 2.7)
"""Metres: a living room."""
MIC = (1.0, 2.5, 0.75)
"""The laptop's microphone: on a table, 1 m from the wall behind it, facing +x."""
SPEAKER_OFFSET = (0.03, 0.04, -0.01)
"""The laptop's speaker, relative to the microphone (metres): 5 cm away."""
MAX_AZIMUTH_DEG = 40.0
"""The talker stands or sits within this angle of the laptop's front (+x)."""
MIC_GAIN = 0.4
"""Direct-path gain of a talker at 1 m (pyroomacoustics' responses fall as 1 / r)."""
ECHO_OVER_TALKER_DB = 8.0
"""Parley's voice at the microphone over the same speech from a talker at 1 m in the same room (dB)."""
SPEAKER_DRIVE = 1.5
"""The laptop speaker's soft clip: y = tanh(k x) / k. Unity for quiet sound, -1.4 dB at half scale,
-4.4 dB at full scale."""
SPEAKER_LOW_CUT_HZ = 250.0
"""A laptop speaker gives almost nothing below this: 2nd-order high-pass."""
BABBLE_VOICES = 4


@dataclass(frozen=True, slots=True)
class RoomCondition:
    name: str
    """e.g. "2m_rt0.45_pink15"."""
    rt60_s: float
    """Reverberation time (seconds); 0 for no room."""
    distance_m: float
    """Talker to the laptop's microphone (metres); 0 for no room."""
    noise: Literal["none", "pink", "babble"]
    snr_db: float | None
    """Speech to noise at the microphone (dB); None with "none"."""


def condition(
    distance_m: float, rt60_s: float, noise: Literal["none", "pink", "babble"] = "none", snr_db: float | None = None
) -> RoomCondition:
    suffix = "_quiet" if noise == "none" else f"_{noise}{snr_db:g}"
    return RoomCondition(f"{distance_m:g}m_rt{rt60_s:g}{suffix}", rt60_s, distance_m, noise, snr_db)


DRY = RoomCondition("dry", 0.0, 0.0, "none", None)
GOAL_CONDITION = condition(2.0, 0.45, "pink", 15.0)
ROOM_CONDITIONS: tuple[RoomCondition, ...] = (
    # The measured points: near and easy, the goal, far.
    condition(1.0, 0.3, "pink", 20.0),
    GOAL_CONDITION,
    condition(3.0, 0.45, "pink", 15.0),
    # One axis at a time around the goal, so a lever's effect can be put down to reverberation,
    # distance or noise: the full grid (3 RT60 x 3 distances x 2 noises x 3 SNRs = 54 rooms) costs
    # minutes per lever and says little more.
    condition(2.0, 0.45),
    condition(2.0, 0.2, "pink", 15.0),
    condition(2.0, 0.7, "pink", 15.0),
    condition(2.0, 0.45, "pink", 10.0),
    condition(2.0, 0.45, "pink", 5.0),
    condition(2.0, 0.45, "babble", 20.0),
    condition(2.0, 0.45, "babble", 10.0),
    condition(2.0, 0.45, "babble", 5.0),
    # The hard corner.
    condition(3.0, 0.7, "babble", 10.0),
)
"""The grid issue 13 names (RT60 0.2-0.7 s, 1-3 m, pink and babble at 20, 10 and 5 dB), taken one axis at
a time through the goal condition plus the near and far corners."""


@functools.cache
def _absorption(rt60_s: float) -> tuple[float, int]:
    """Wall energy absorption and image-source order that give `rt60_s` (T30) in this room: Sabine's
    estimate corrected once on the mean of three reference responses (1, 2 and 3 m away)."""
    sabine, max_order = pra.inverse_sabine(rt60_s, list(ROOM_DIMS))
    spots = [_spot(1.0, 20.0, 1.2), _spot(2.0, -30.0, 1.2), _spot(3.0, 10.0, 1.2)]
    measured = float(np.mean([_measure(response) for response in _responses(sabine, max_order, spots)]))
    # The order Sabine asks for the uncorrected time is kept: a little more than needed, never less.
    absorption, _ = pra.inverse_sabine(rt60_s * rt60_s / measured, list(ROOM_DIMS))
    return float(absorption), int(max_order)


def _measure(response: Signal) -> float:
    return float(pra.experimental.measure_rt60(response, fs=RATE, decay_db=30))


def _responses(absorption: float, max_order: int, sources: list[tuple[float, float, float]]) -> list[Signal]:
    room = pra.ShoeBox(list(ROOM_DIMS), fs=RATE, materials=pra.Material(absorption), max_order=max_order)
    for source in sources:
        room.add_source(list(source))
    room.add_microphone(list(MIC))
    room.compute_rir()
    return [np.asarray(room.rir[0][index], dtype=np.float64) for index in range(len(sources))]


def _spot(distance_m: float, azimuth_deg: float, height_m: float) -> tuple[float, float, float]:
    """A point `distance_m` from the microphone (3-D), at `azimuth_deg` from its front and `height_m` high."""
    rise = height_m - MIC[2]
    across = np.sqrt(max(distance_m**2 - rise**2, 0.01))
    angle = np.radians(azimuth_deg)
    return (MIC[0] + across * np.cos(angle), MIC[1] + across * np.sin(angle), height_m)


def _speaker_low_cut() -> Signal:
    """Impulse response (50 ms) of the laptop speaker's missing bass."""
    sos = sig.butter(2, SPEAKER_LOW_CUT_HZ, btype="highpass", fs=RATE, output="sos")
    impulse = np.zeros(RATE // 20)
    impulse[0] = 1.0
    return np.asarray(sig.sosfilt(sos, impulse), dtype=np.float64)


def soft_clip(signal: Signal) -> Signal:
    """The laptop speaker driven hard: unity gain for quiet sound, a gentle knee towards full scale."""
    return np.tanh(SPEAKER_DRIVE * signal) / SPEAKER_DRIVE


@dataclass(frozen=True, slots=True)
class _Acoustics:
    """What a (condition, seed) fixes: computed once, shared read-only by every `SimulatedRoom` of it."""

    talker_position: tuple[float, float, float] | None
    talker_response: Signal
    echo_response: Signal
    babble_responses: tuple[Signal, ...]
    noise_seed: int


@functools.cache
def _acoustics(condition: RoomCondition, seed: int) -> _Acoustics:
    rng = np.random.default_rng([seed, round(condition.rt60_s * 1000), round(condition.distance_m * 1000)])
    noise_seed = int(rng.integers(2**31))
    babble_spots: list[tuple[float, float, float]] = []
    if condition.noise == "babble":
        # Other people anywhere in the room but within a metre of the laptop, standing or sitting.
        while len(babble_spots) < BABBLE_VOICES:
            spot = (rng.uniform(0.5, ROOM_DIMS[0] - 0.5), rng.uniform(0.5, ROOM_DIMS[1] - 0.5), rng.uniform(1.1, 1.7))
            if math.dist(spot, MIC) >= 1.0:
                babble_spots.append(spot)
    position: tuple[float, float, float] | None = None
    if condition.rt60_s <= 0:
        talker = np.array([1.0])
        reference = np.array([MIC_GAIN])
        echo_air = np.array([1.0])
        babble = [np.array([MIC_GAIN / 2]) for _ in babble_spots]
    else:
        azimuth = rng.uniform(-MAX_AZIMUTH_DEG, MAX_AZIMUTH_DEG)
        height = rng.uniform(1.1, 1.3)
        position = _spot(condition.distance_m, azimuth, height)
        speaker = (MIC[0] + SPEAKER_OFFSET[0], MIC[1] + SPEAKER_OFFSET[1], MIC[2] + SPEAKER_OFFSET[2])
        absorption, max_order = _absorption(condition.rt60_s)
        # pyroomacoustics' direct path is 1 / r (r in metres): scaled so a talker at 1 m arrives at MIC_GAIN.
        talker, reference, echo_air, *babble = (
            MIC_GAIN * response
            for response in _responses(
                absorption, max_order, [position, _spot(1.0, azimuth, height), speaker, *babble_spots]
            )
        )
    # Parley's voice is calibrated on the reference speech without the clip (which happens in the
    # speaker, before the room, and only on loud parts).
    echo_path = np.convolve(echo_air, _speaker_low_cut())
    pcm = read_pcm(REFERENCE_SPEECH)
    dry = floats(pcm)
    talker_level = speech_rms(pcm, np.convolve(dry, reference))
    echo_level = speech_rms(pcm, np.convolve(dry, echo_path))
    echo = echo_path * (talker_level / echo_level) * 10 ** (ECHO_OVER_TALKER_DB / 20)
    return _Acoustics(position, _frozen(talker), _frozen(echo), tuple(_frozen(b) for b in babble), noise_seed)


def _frozen(array: Signal) -> Signal:
    array = np.array(array, dtype=np.float64)
    array.setflags(write=False)
    return array


class SimulatedRoom:
    """One room condition with one talker position and one draw of noise, from `seed`. The impulse
    responses are computed once per (condition, seed) and shared (read-only)."""

    sample_rate: int = RATE

    def __init__(self, condition: RoomCondition, seed: int = 0) -> None:
        self.condition = condition
        self.seed = seed
        acoustics = _acoustics(condition, seed)
        self.talker_position = acoustics.talker_position
        """Where the talker's mouth is (metres, room coordinates); None for `DRY`."""
        self.talker_response: Signal = acoustics.talker_response
        """Impulse response, talker's spot -> microphone, 16 kHz."""
        self.echo_response: Signal = acoustics.echo_response
        """Impulse response, laptop speaker -> microphone, 16 kHz (the speaker's missing bass included)."""
        self._babble_responses = acoustics.babble_responses
        self._noise_seed = acoustics.noise_seed
        reference = read_pcm(REFERENCE_SPEECH)
        self.speech_rms = speech_rms(reference, self.talker(reference))
        """The reference speech's level from the talker's spot (RMS while speaking, full scale 1.0)."""

    def talker(self, pcm: bytes) -> Signal:
        """Dry 16 kHz mono PCM16 as the microphone hears it from the talker's spot (full tail kept)."""
        return np.asarray(sig.oaconvolve(floats(pcm), self.talker_response), dtype=np.float64)

    def echo(self, played: bytes, rate: int = 24_000) -> Signal:
        """Parley's voice (PCM16 mono at `rate`) as the microphone hears it through the laptop's speaker,
        at 16 kHz, soft-clipped in the speaker (full tail kept)."""
        audio = floats(played)
        if rate != RATE:
            audio = np.asarray(soxr.resample(audio, rate, RATE, quality="HQ"), dtype=np.float64)
        return np.asarray(sig.oaconvolve(soft_clip(audio), self.echo_response), dtype=np.float64)

    def noise(self, samples: int, speech_rms: float) -> Signal:
        """`samples` of the condition's noise at `snr_db` under `speech_rms`; zeros for "none".
        The same room gives the same noise for the same arguments."""
        kind, snr_db = self.condition.noise, self.condition.snr_db
        if kind == "none" or snr_db is None or samples == 0:
            return np.zeros(samples)
        rng = np.random.default_rng([self._noise_seed, samples])
        noise = pink(rng, samples) if kind == "pink" else self._babble(rng, samples)
        return noise * (speech_rms / rms(noise)) * 10 ** (-snr_db / 20)

    def _babble(self, rng: np.random.Generator, samples: int) -> Signal:
        material = babble_material()
        total = np.zeros(samples)
        for response in self._babble_responses:
            # One voice: utterances in a random order with short random pauses, starting mid-stream.
            voice: list[Signal] = []
            length = 0
            skip = int(rng.integers(RATE * 3))
            while length < samples + skip + len(response):
                piece = material[int(rng.integers(len(material)))]
                pause = np.zeros(int(rng.integers(RATE // 20, RATE // 2)))
                voice += [piece, pause]
                length += len(piece) + len(pause)
            dry = np.concatenate(voice)[skip : skip + samples]
            total += sig.oaconvolve(dry, response)[:samples]
        return total

    def microphone(
        self,
        talker_pcm: bytes,
        *,
        played: bytes | None = None,
        played_rate: int = 24_000,
        played_offset_ms: float = 0.0,
    ) -> bytes:
        """Everything the laptop's microphone records, as 16 kHz PCM16 (clipped to the int16 range): the
        talker's `talker_pcm`, Parley's `played` voice starting `played_offset_ms` into it, and the
        condition's noise at `snr_db` under the talker's speech (under `speech_rms`, the reference speech
        from the same spot, when `talker_pcm` holds none). As long as the longest part, tails included."""
        heard = self.talker(talker_pcm)
        level = speech_rms(talker_pcm, heard) or self.speech_rms
        parts = [(0, heard)]
        if played is not None:
            parts.append((round(played_offset_ms * RATE / 1000), self.echo(played, played_rate)))
        mix = np.zeros(max(start + len(part) for start, part in parts))
        for start, part in parts:
            mix[start : start + len(part)] += part
        return to_pcm(mix + self.noise(len(mix), level))
