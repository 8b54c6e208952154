"""Recordings: audio Whisper cannot read (silence, noise, a stereo recording whose channels cancel out) makes it
say its prompt back, "A user speaks to Jarvis.": that is no user turn (heard as nothing). An 8 kHz stereo
recording is read as 16 kHz mono, its words heard. (An hour-long one read a block at a time: test_costs.py.)"""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest
import soundfile

from tests.voice.offline.said import said
from voice.audio.pcm import pcm16_to_float, resample
from voice.audio.wav import read_recording
from voice.offline.engine import ModelFolders
from voice.offline.text import whisper_prompt
from voice.offline.transcriber import WhisperTranscriber, echoes

PROMPT = whisper_prompt("hey jarvis")
RATE = 8000
"""A telephone's rate: Whisper's 16 kHz is made by resampling."""


@pytest.fixture(scope="module")
def transcriber(model_folders: ModelFolders) -> WhisperTranscriber:
    return WhisperTranscriber(model_folders.whisper)


@pytest.fixture(scope="module")
def question() -> np.ndarray:
    """ "What is the weather like tomorrow?" at 8 kHz, one channel."""
    return resample(pcm16_to_float(asyncio.run(said("What is the weather like tomorrow?")), 1), 16000, RATE)


def recording(folder: Path, channels: np.ndarray) -> Path:
    path = folder / "recording.wav"
    soundfile.write(path, channels, RATE, subtype="PCM_16")
    return path


def test_a_transcript_made_of_the_prompts_words_is_an_echo() -> None:
    assert PROMPT == "A user speaks to Jarvis, a voice assistant."
    assert echoes("A user speaks to Jarvis.", PROMPT)
    assert echoes(" a voice assistant", PROMPT)
    assert echoes(PROMPT, PROMPT)
    assert not echoes("What is the weather like tomorrow?", PROMPT)
    assert not echoes("A user speaks to Mia.", PROMPT)  # a word the prompt does not hold
    assert not echoes("Jarvis speaks to a user.", PROMPT)  # its words, not in its order
    assert not echoes("", PROMPT) and not echoes("A user", None)


def test_noise_at_8_khz_stereo_is_heard_as_nothing(transcriber: WhisperTranscriber, tmp_path: Path) -> None:
    noise = np.random.default_rng(7).normal(0.0, 0.01, (3 * RATE, 2)).astype(np.float32)
    pcm = read_recording(recording(tmp_path, noise))
    assert len(pcm) == 3 * 16000 * 2  # 16 kHz mono PCM16
    assert transcriber.transcribe(pcm, PROMPT).text == ""  # was "A user speaks to Jarvis."


def test_8_khz_stereo_speech_is_heard_even_with_one_channel_inverted(
    transcriber: WhisperTranscriber, tmp_path: Path, question: np.ndarray
) -> None:
    for channels in (np.hstack([question, question]), np.hstack([question, -question])):
        pcm = read_recording(recording(tmp_path, channels))
        assert "tomorrow" in transcriber.transcribe(pcm, PROMPT).text.lower()
