"""What bench/wake_rooms.py plays into its rooms: the voices that say "hey jarvis" (the committed fixtures
and more espeak-ng voices made in memory), their enrolment utterances, and the other speech and sounds
that must not wake Parley. Everything from the committed dry fixtures and from espeak-ng (Debian)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from functools import cache

import numpy as np
import soxr

from tests.voice.fixtures import read_pcm, silence, wake_phrase_end_ms
from tests.voice.room_sounds import to_pcm
from voice.audio.chunks import MIC_FORMAT

RATE = MIC_FORMAT.rate


@dataclass(frozen=True, slots=True)
class Voice:
    name: str
    espeak: tuple[str, int] | None
    """(voice, words a minute) for espeak-ng, or None for a committed fixture (`name`)."""
    fixture: str | None = None


FIXTURE_VOICES = (
    Voice("en-us (fixture)", None, "wake_hey_jarvis"),
    Voice("en+f2 slow (fixture)", None, "wake_hey_jarvis_slow_female"),
    Voice("en-gb-x-rp fast (fixture)", None, "wake_hey_jarvis_fast_british"),
    Voice("en-us, then a question (fixture)", None, "wake_weather"),
)
ESPEAK_VOICES = (
    Voice("en-us+m3", ("en-us+m3", 165)),
    Voice("en-us+f3", ("en-us+f3", 175)),
    Voice("en-gb-scotland", ("en-gb-scotland", 170)),
    Voice("en-029", ("en-029", 180)),
    Voice("en-us-nyc+m5", ("en-us-nyc+m5", 185)),
    Voice("en-gb-x-gbclan+f4", ("en-gb-x-gbclan+f4", 160)),
    Voice("en-gb-x-gbcwmd+m7", ("en-gb-x-gbcwmd+m7", 175)),
    Voice("en-us+f5", ("en-us+f5", 150)),
)
"""Voices beyond the committed fixtures, spoken by espeak-ng in memory."""
VOICES = FIXTURE_VOICES + ESPEAK_VOICES
"""The tuning part: the voices every wake word choice so far was made on (the threshold, the VAD gate, the
verifier's rule, where it is asked, its C and phases: voice/wake/detector.py, voice/wake/verifier.py)."""
TEST_VOICES = (
    Voice("en-gb+klatt2 (test)", ("en-gb+klatt2", 165)),
    Voice("en-us+klatt4 (test)", ("en-us+klatt4", 180)),
    Voice("en-gb-x-rp+Annie (test)", ("en-gb-x-rp+Annie", 170)),
    Voice("en-us+Andy (test)", ("en-us+Andy", 160)),
    Voice("en-gb+grandma (test)", ("en-gb+grandma", 150)),
    Voice("de+m2, German accent (test)", ("de+m2", 165)),
    Voice("nl+f4, Dutch accent (test)", ("nl+f4", 170)),
    Voice("sv+m1, Swedish accent (test)", ("sv+m1", 175)),
)
"""The test part, made apart from the tuning part and never used to choose anything: espeak-ng variants
no tuning voice uses (two of them Klatt's formant synthesis, not espeak's own), and English said by the
German, Dutch and Swedish voices (accented speakers). Chosen by name before any was measured, none dropped
after. Their enrolments are made the same way (`enrolment_utterances`)."""


def espeak(voice: str, speed: int, text: str, pitch: int = 50) -> bytes:
    """espeak-ng's speech at 16 kHz PCM16, its own silence trimmed (under 0.1 % of full scale), as
    scripts/make_audio_fixtures.sh makes the fixtures (there with sox; here with soxr)."""
    wav = subprocess.run(
        ["espeak-ng", "-v", voice, "-s", str(speed), "-p", str(pitch), "--stdout", text],
        check=True,
        capture_output=True,
    ).stdout
    # espeak-ng's --stdout WAV header is 44 bytes; 22.05 kHz mono PCM16.
    audio = np.frombuffer(wav[44:], dtype="<i2").astype(np.float64) / 32768.0
    audio = np.asarray(soxr.resample(audio, 22_050, RATE), dtype=np.float64)
    loud = np.flatnonzero(np.abs(audio) >= 0.001)
    return to_pcm(audio[loud[0] : loud[-1] + 1]) if len(loud) else b""


@cache
def positive(voice: Voice, lead_ms: float = 800.0) -> bytes:
    """The voice saying "hey jarvis", `lead_ms` of silence before and 0.8 s after (as the fixtures)."""
    if voice.fixture is not None:
        return read_pcm(voice.fixture)
    assert voice.espeak is not None
    return silence(lead_ms) + espeak(*voice.espeak, "hey jarvis") + silence(800.0)


ENROLMENT_VARIANTS = ((-15, 44), (0, 56), (12, 50))
"""(words a minute added, pitch) of the three enrolment utterances: the same voice, said a little
differently each time."""


def enrolment_utterances(voice: Voice) -> list[bytes]:
    """Three dry "hey jarvis" of `voice`, none the same as the positive it is tested on."""
    if voice.espeak is not None:
        name, speed = voice.espeak
    else:
        name, speed = {
            "wake_hey_jarvis": ("en-us", 175),
            "wake_weather": ("en-us", 175),
            "wake_hey_jarvis_slow_female": ("en+f2", 140),
            "wake_hey_jarvis_fast_british": ("en-gb-x-rp", 200),
        }[voice.fixture or ""]
    return [
        silence(700.0) + espeak(name, speed + extra, "hey jarvis", pitch) + silence(800.0)
        for extra, pitch in ENROLMENT_VARIANTS
    ]


NEGATIVE_FIXTURES = ("speech_hello", "speech_hey_travis", "silence", "white_noise", "pink_noise")
AFTER_WAKE = ("wake_weather", "wake_switch_chat", "wake_goodbye", "wake_remember", "wake_recall")
OTHER_SENTENCES = (
    "hello there, how are you today?",
    "hey Travis, pass me the jar",
    "have you seen the car keys anywhere?",
    "the garden needs watering again, it has not rained for weeks",
    "he says the service was good but the dessert was far too sweet",
    "turn the radio down a little, please",
    "Jarvis Cocker was the singer of Pulp",
    "hey, are you coming to dinner on Friday?",
    "a harvest of jars, chairs and jackets",
    "hey there, is this the bus to Jarrow?",
)
"""Speech for the hour of negatives: ordinary sentences and near words (Travis, Jarvis alone, hey there)."""
TEST_SENTENCES = (
    "could you hand me the jam jar from the top shelf?",
    "Harvey, is this your jacket or mine?",
    "Harvis Street is closed for the market on Sunday",
    "the service is at half past nine, don't be late",
    "hey, have you fed the cat yet?",
    "Mavis says the parcel arrived this morning",
    "they are serving jacket potatoes with beans",
    "hey Charlie, where did you park the car?",
    "our neighbour Travis is moving to Paris",
    "I think the jars go in the glass recycling",
)
"""The test part's hour of other speech, written apart from `OTHER_SENTENCES` (new near words: Harvey,
Mavis, Harvis Street, "hey Charlie") and spoken by `TEST_VOICES`."""


def after_wake(name: str) -> bytes:
    """What a positive fixture says after its wake phrase (the rest of the file)."""
    pcm = read_pcm(name)
    cut = round((wake_phrase_end_ms(pcm) + 150.0) * RATE / 1000) * 2
    return pcm[cut:]
