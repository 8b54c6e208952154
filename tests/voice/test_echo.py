"""Echo cancellation on real speech. Parley's reply (the espeak-ng fixtures in assets/audio/; it even says
"hey jarvis") comes back to the microphone through a made-up room: delayed, attenuated, smoothed and with
a few reflections. Both streams go through the real `EchoCanceller` in the order they would live: each
played chunk when the speaker starts playing it, each microphone chunk once it has been recorded.

Thresholds. Echo return loss enhancement (ERLE: the echo's energy over what is left of it) is asserted
at >= 30 dB after a 2 s convergence period; WebRTC's AEC3 reaches about 60 to 70 dB on these signals
(figures in each test's docstring). 30 dB takes the echo here, -28 dBFS, down to -58 dBFS: 13 dB under
the level these tests count as someone speaking, and under the noise of most rooms through a laptop
microphone. The rest is margin for another build of the native library. Speech is compared by its log spectrogram, not
its waveform: WebRTC's high-pass filter turns the phase of speech by up to 2 radians below 500 Hz, which
alone brings the waveform correlation of clean speech with itself down to 0.71.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pytest

from tests.voice.echo_simulation import (
    ASSETS,
    CHUNK_MS,
    CONVERGED_MS,
    MIN_ERLE_DB,
    RATE,
    REPLY,
    SPEAKING_DBFS,
    USER,
    Signal,
    chunk_levels,
    erle_db,
    floats,
    level_db,
    pcm16,
    playing,
    reply,
    room_echo,
    samples,
    simulate,
    spectral_similarity,
    whole_chunks,
)
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk, AudioFormat
from voice.audio.wav import read_recording

# Echo alone: Parley talks, nobody else does.


@pytest.mark.parametrize(("delay_ms", "gain"), [(40.0, 0.3), (50.0, 0.5), (60.0, 0.7)])
def test_the_echo_of_a_reply_is_removed(delay_ms: float, gain: float) -> None:
    """Measured: 61 to 71 dB of ERLE after 2 s; the loudest 80 ms chunk left is at -78 dBFS or below."""
    played = reply()
    echo = whole_chunks(room_echo(floats(played), delay_ms=delay_ms, gain=gain))

    cleaned, _ = simulate(echo, playing(played))

    assert erle_db(echo, cleaned) >= MIN_ERLE_DB
    loudest_left = chunk_levels(cleaned, samples(CONVERGED_MS)).max()
    assert loudest_left <= level_db(echo[samples(CONVERGED_MS) :]) - MIN_ERLE_DB


@pytest.mark.parametrize(
    ("played_format", "played_chunk_ms", "mic_chunk_ms"),
    [
        (MODEL_VOICE_FORMAT, 80, 80),  # Gemini's 24 kHz voice, straight from the model
        (MODEL_VOICE_FORMAT, 20, 80),  # the same, in the speaker's 20 ms blocks
        (MODEL_VOICE_FORMAT, 20, 85),  # microphone chunks that are not whole 10 ms frames
        (MODEL_VOICE_FORMAT, 100, 30),
        (AudioFormat(rate=48_000, channels=2), 20, 80),  # a stereo 48 kHz device
        (AudioFormat(rate=44_100, channels=1), 20, 80),
        (AudioFormat(rate=22_050, channels=1), 20, 80),  # no whole 10 ms frame: resampled with libsoxr
    ],
)
def test_played_audio_in_any_format_and_chunking_is_cancelled(
    played_format: AudioFormat, played_chunk_ms: int, mic_chunk_ms: int
) -> None:
    """The speaker's audio at its own rate, the echo recorded at 16 kHz. Measured: 65 to 68 dB."""
    echo = whole_chunks(room_echo(floats(reply()), delay_ms=50.0, gain=0.5))

    played = playing(reply(played_format), played_format, played_chunk_ms)

    cleaned, _ = simulate(echo, played, mic_chunk_ms=mic_chunk_ms)

    assert erle_db(echo, cleaned) >= MIN_ERLE_DB


def test_in_a_noisy_room_only_the_noise_is_left() -> None:
    """White noise at -70 dBFS under the echo. Measured: the output sits at -72 dBFS after 2 s."""
    played = playing(reply(MODEL_VOICE_FORMAT), MODEL_VOICE_FORMAT, 20)
    echo = whole_chunks(room_echo(floats(reply()), delay_ms=50.0, gain=0.5))
    noise = np.random.default_rng(7).normal(0.0, 10 ** (-70 / 20), len(echo))

    cleaned, _ = simulate(echo + noise, played)

    assert level_db(cleaned[samples(CONVERGED_MS) :]) <= level_db(noise) + 3.0


@pytest.mark.parametrize("pause_ms", [20, 80, 200, 1500])
@pytest.mark.parametrize("silence_passed_on", [False, True], ids=["silence left out", "silence passed on"])
def test_cancellation_holds_when_the_speaker_pauses(pause_ms: int, silence_passed_on: bool) -> None:
    """Part of the reply, a pause, the rest. Whether the caller passes the speaker's silence on or not,
    the echo after the pause is removed from its first chunk on. Measured: the worst 80 ms chunk in
    the second after the pause keeps 43 to 45 dB of cancellation, the same either way (when the
    canceller did not yet continue the reference with silence itself, pauses of 80 ms and more left
    chunks with 3 to 11 dB)."""
    speech = floats(read_recording(ASSETS / REPLY[0]))
    cut = samples(2600)  # mid-sentence
    before, after = pcm16(speech[:cut]), pcm16(speech[cut:])
    pause = bytes(samples(pause_ms) * MIC_FORMAT.width)
    echo = whole_chunks(room_echo(floats(before + pause + after), delay_ms=50.0, gain=0.5))
    resume_ms = MIC_FORMAT.duration_ms(len(before + pause))
    if silence_passed_on:
        played = playing(before + pause + after, chunk_ms=20)
    else:
        played = playing(before, chunk_ms=20) + playing(after, chunk_ms=20, start_ms=resume_ms)

    cleaned, _ = simulate(echo, played)

    resumed = samples(resume_ms)
    next_second = slice(resumed, resumed + RATE)
    worst = (chunk_levels(echo[next_second]) - chunk_levels(cleaned[next_second])).min()
    assert worst >= MIN_ERLE_DB
    assert erle_db(echo, cleaned) >= MIN_ERLE_DB


def test_played_calls_that_come_a_little_late_do_no_harm() -> None:
    """The loop hands each 20 ms block to the canceller up to 15 ms late (at random, order kept), as
    `call_soon_threadsafe` from a speaker callback might. Measured: 66 dB, the worst chunk 40 dB
    (with up to 25 ms: 58 and 41 dB)."""
    on_time = playing(reply(MODEL_VOICE_FORMAT), MODEL_VOICE_FORMAT, 20)
    echo = whole_chunks(room_echo(floats(reply()), delay_ms=50.0, gain=0.5))
    lateness = np.random.default_rng(1).uniform(0.0, 15.0, size=len(on_time))
    # `simulate` hands each played chunk over at its `start_ms`: moving that makes the hand-over late.
    played = [
        AudioChunk(chunk.format, chunk.pcm, chunk.start_ms + late)
        for chunk, late in zip(on_time, lateness, strict=True)
    ]

    cleaned, _ = simulate(echo, played)

    assert erle_db(echo, cleaned) >= MIN_ERLE_DB
    converged = samples(CONVERGED_MS)
    echoing = chunk_levels(echo, converged) > -50.0
    assert (chunk_levels(echo, converged) - chunk_levels(cleaned, converged))[echoing].min() >= MIN_ERLE_DB


def test_cancellation_resumes_at_once_after_a_long_quiet() -> None:
    """A reply, 5 s of nothing played (after a barge-in the speaker is cleared), the next reply.
    Measured: 68 dB over the first second of the next reply's sound."""
    first, second = (read_recording(ASSETS / name) for name in REPLY)
    second_start_ms = MIC_FORMAT.duration_ms(len(first)) + 5000
    gap = bytes(samples(5000) * MIC_FORMAT.width)
    echo = whole_chunks(room_echo(floats(first + gap + second), delay_ms=50.0, gain=0.5))
    played = playing(first, chunk_ms=20) + playing(second, chunk_ms=20, start_ms=second_start_ms)

    cleaned, _ = simulate(echo, played)

    sound_start = samples(second_start_ms) + int(np.flatnonzero(floats(second))[0])  # past its lead silence
    first_second = slice(sound_start, sound_start + RATE)
    assert level_db(echo[first_second]) - level_db(cleaned[first_second]) >= MIN_ERLE_DB
    assert erle_db(echo, cleaned, from_ms=second_start_ms) >= MIN_ERLE_DB


# Double talk: the user talks over Parley, which is what barge-in has to hear.


@dataclass(frozen=True)
class DoubleTalk:
    user: Signal
    """The user's speech alone, as it reaches the microphone."""
    echo: Signal
    """Parley's reply alone, as it reaches the microphone."""
    mic: Signal
    """Both: what the microphone records."""
    cleaned: Signal
    """What the canceller makes of `mic`."""
    speech: slice
    """Where the user speaks (samples)."""


@pytest.fixture(scope="module")
def double_talk() -> DoubleTalk:
    """The user says "hello there, how are you today?" at full level 5 s into Parley's reply (24 kHz,
    played in 20 ms blocks), long after the canceller has converged, and stops before the reply ends."""
    echo = whole_chunks(room_echo(floats(reply()), delay_ms=50.0, gain=0.5))
    clip = floats(read_recording(ASSETS / USER))
    start = samples(5000)
    user = np.zeros_like(echo)
    user[start : start + len(clip)] = clip
    mic = echo + user
    cleaned, _ = simulate(mic, playing(reply(MODEL_VOICE_FORMAT), MODEL_VOICE_FORMAT, 20))
    return DoubleTalk(user=user, echo=echo, mic=mic, cleaned=cleaned, speech=slice(start, start + len(clip)))


def test_the_users_speech_survives_double_talk(double_talk: DoubleTalk) -> None:
    """Measured: the user's speaking chunks come out 0.9 dB softer than the clean speech; the output's
    spectral similarity to the clean speech is 0.89 (the uncancelled microphone's is 0.75)."""
    user, mic, cleaned, speech = double_talk.user, double_talk.mic, double_talk.cleaned, double_talk.speech
    speaking = chunk_levels(user) > SPEAKING_DBFS

    def speaking_level(signal: Signal) -> float:
        return level_db(whole_chunks(signal).reshape(-1, samples(CHUNK_MS))[speaking])

    assert abs(speaking_level(cleaned) - speaking_level(user)) <= 3.0
    similarity = spectral_similarity(cleaned[speech], user[speech])
    assert similarity >= 0.8
    assert similarity > spectral_similarity(mic[speech], user[speech]) + 0.05


def test_the_echo_is_removed_while_the_user_talks(double_talk: DoubleTalk) -> None:
    """Under the user's speech, the output keeps no trace of the reply's spectrogram (similarity 0.02,
    against 0.60 for the microphone), and the filter does not lose its grip: 67 dB of ERLE before the
    user starts and after they stop."""
    echo, mic, cleaned, speech = double_talk.echo, double_talk.mic, double_talk.cleaned, double_talk.speech

    assert spectral_similarity(mic[speech], echo[speech]) >= 0.5  # the echo was there to remove
    assert spectral_similarity(cleaned[speech], echo[speech]) <= 0.2
    before = slice(samples(CONVERGED_MS), speech.start)
    after = slice(speech.stop, len(echo))
    for part in (before, after):
        assert level_db(echo[part]) - level_db(cleaned[part]) >= MIN_ERLE_DB


def test_barge_in_is_heard_and_the_echo_alone_is_not(double_talk: DoubleTalk) -> None:
    """Chunk by chunk, as a barge-in detector would see it. Measured: 20 of the 21 chunks where the user
    speaks stay above the speaking level (the one lost is a quiet stretch, -37 dBFS, under louder echo,
    -30 dBFS, which AEC3's suppressor takes for echo); none of the 54 chunks that hold only echo after
    convergence does (53 would without the canceller; the loudest of them comes out at -92 dBFS)."""
    user, echo, mic, cleaned = double_talk.user, double_talk.echo, double_talk.mic, double_talk.cleaned
    converged = samples(CONVERGED_MS)
    user_levels, echo_levels = chunk_levels(user, converged), chunk_levels(echo, converged)
    user_speaks = user_levels > SPEAKING_DBFS
    echo_only = (user_levels < -90.0) & (echo_levels > -50.0)
    heard = chunk_levels(cleaned, converged) > SPEAKING_DBFS

    assert user_speaks.sum() >= 15 and echo_only.sum() >= 30  # the scenario has both kinds of chunk
    assert (chunk_levels(mic, converged)[echo_only] > SPEAKING_DBFS).mean() >= 0.9  # the echo alone is loud
    assert heard[user_speaks].mean() >= 0.9
    assert not heard[echo_only].any()
