"""The offline models, for real: Whisper base on the fixtures, SmolLM2 converted from its GGUF, espeak-ng."""

from __future__ import annotations

import asyncio
import os
import re
import threading
import time
from pathlib import Path

import numpy as np
import pytest

from tests.voice.fixtures import read_pcm
from voice.audio.chunks import MODEL_VOICE_FORMAT
from voice.offline import files
from voice.offline.chat_model import ChatModel
from voice.offline.engine import ModelFolders, OfflineVoice
from voice.offline.errors import OfflineVoiceError
from voice.offline.prompt import ChatMessage
from voice.offline.speech import EspeakSynthesizer

SYSTEM = "You are Parley, a voice assistant. Answer in one short sentence."


def words(text: str) -> list[str]:
    return re.findall(r"[a-z']+", text.lower())


async def test_whisper_hears_the_question_of_the_weather_fixture(offline_voice: OfflineVoice) -> None:
    heard = await offline_voice.transcribe(read_pcm("wake_weather"))
    assert "weather" in words(heard) and "rome" in words(heard)


async def test_whisper_hears_the_chat_switch_request(offline_voice: OfflineVoice) -> None:
    heard = await offline_voice.transcribe(read_pcm("wake_switch_chat"))
    assert "kitchen renovation" in " ".join(words(heard))


def test_the_model_files_are_prepared_once(model_folders: ModelFolders) -> None:
    whisper = model_folders.whisper
    assert (whisper / "model.bin").stat().st_size == sum(p.stat().st_size for p in files.whisper_parts())
    assert {"config.json", "tokenizer.json", "vocabulary.json"} <= {p.name for p in whisper.iterdir()}
    made = (whisper / "model.bin").stat().st_mtime_ns
    assert files.whisper_base(whisper.parent) == whisper
    assert (whisper / "model.bin").stat().st_mtime_ns == made  # not joined again


def test_a_failed_preparation_leaves_nothing_behind(tmp_path: Path) -> None:
    def broken(folder: Path) -> None:
        (folder / "half.bin").write_bytes(b"x")
        raise OSError("disk full")

    with pytest.raises(OfflineVoiceError, match="disk full"):
        files.prepared(tmp_path / "model", broken)
    assert list(tmp_path.iterdir()) == []


def answer(model: ChatModel, question: str, cancel: threading.Event | None = None) -> str:
    return "".join(model.stream(SYSTEM, [ChatMessage("user", question)], cancel or threading.Event()))


@pytest.fixture(scope="module")
def chat_model(model_folders: ModelFolders) -> ChatModel:
    return ChatModel(model_folders.chat)


def test_the_converted_chat_model_answers_sensibly(chat_model: ChatModel) -> None:
    assert "paris" in words(answer(chat_model, "What is the capital of France?"))


def test_the_answer_follows_the_history(chat_model: ChatModel) -> None:
    history = [
        ChatMessage("user", "I am planning a trip to Lisbon next week."),
        ChatMessage("assistant", "Lisbon is lovely in spring."),
        ChatMessage("user", "Which city am I travelling to?"),
    ]
    said = "".join(chat_model.stream(SYSTEM, history, threading.Event()))
    assert "lisbon" in words(said)


def test_a_cancelled_answer_stops_at_once(chat_model: ChatModel) -> None:
    cancel = threading.Event()
    pieces = []
    for piece in chat_model.stream(SYSTEM, [ChatMessage("user", "Tell me a long story about a dragon.")], cancel):
        pieces.append(piece)
        cancel.set()
    assert len(pieces) == 1


async def test_espeak_speaks_at_the_model_voice_rate() -> None:
    pcm = await EspeakSynthesizer().synthesize("The weather in Rome is sunny.")
    samples = np.frombuffer(pcm, dtype="<i2")
    seconds = len(samples) / MODEL_VOICE_FORMAT.rate
    assert 1.0 < seconds < 3.0
    assert np.abs(samples).max() > 3000  # speech, not silence


def espeak_children() -> list[int]:
    """Our child processes running espeak-ng, from /proc."""
    found = []
    for status in Path("/proc").glob("[0-9]*/status"):
        try:
            fields = dict(
                line.split(":\t", 1) for line in status.read_text(encoding="utf-8").splitlines() if ":\t" in line
            )
        except OSError:
            continue  # the process ended while we looked
        if fields.get("PPid", "").strip() == str(os.getpid()) and fields.get("Name", "").strip() == "espeak-ng":
            found.append(int(status.parent.name))
    return found


def until_espeak_runs() -> None:
    deadline = time.monotonic() + 10
    while not espeak_children():  # what matters is that espeak-ng is running when the task is cancelled
        assert time.monotonic() < deadline, "espeak-ng never started"
        time.sleep(0.01)


async def test_a_cancelled_synthesis_kills_its_process() -> None:
    synthesizer = EspeakSynthesizer()
    task = asyncio.create_task(synthesizer.synthesize("word " * 5000))  # about half a minute of speech
    await asyncio.to_thread(until_espeak_runs)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert espeak_children() == []  # killed and reaped, not left speaking to nobody
