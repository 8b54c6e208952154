"""Parley with no Gemini key: the offline voice end to end on the fixtures, through `parley listen` and
through the voice loop on a fed microphone. The real wake word model, VAD, Whisper, SmolLM2, espeak-ng,
the real embedder for intents, the real tools and SQLite store."""

from __future__ import annotations

import asyncio
import json
import time
import wave
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.cli.main import main
from tests.app.voice_harness import history, running_loop
from tests.voice.fixtures import read_pcm, silence
from voice.audio.chunks import MIC_FORMAT, MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.earcon import earcon
from voice.audio.null_sink import NullSink
from voice.session_events import ToolUsed
from voice.state import AssistantState

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"


async def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(args))
    return code, capsys.readouterr().out


async def listen(capsys: pytest.CaptureFixture[str], *args: str) -> list[dict[str, Any]]:
    code, out = await run(capsys, "listen", "--fast", "--events", *args)
    assert code == 0
    return [json.loads(line) for line in out.splitlines()]


async def test_a_question_is_answered_aloud_offline_and_both_turns_saved(
    offline: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = offline / "reply.wav"
    events = await listen(capsys, "--audio-in", str(ASSETS / "wake_weather.wav"), "--audio-out", str(out))
    turns = [(e["role"], e["text"]) for e in events if e["event"] == "transcript"]
    assert [role for role, _ in turns] == ["user", "model"]
    assert "weather" in turns[0][1] and "Rome" in turns[0][1] and turns[1][1]
    saved = next(e for e in events if e["event"] == "saved")
    assert saved["turns"] == 2
    _, shown = await run(capsys, "chats", "show", saved["chat_id"], "--json")
    assert [t["parts"][0]["text"] for t in json.loads(shown)["full_history"]] == [text for _, text in turns]
    with wave.open(str(out), "rb") as reply:
        assert reply.getframerate() == 24_000
        voice = reply.readframes(reply.getnframes())[len(earcon().pcm) :]
    assert len(voice) > 24_000 * 2  # over a second of speech after the chime
    assert np.abs(np.frombuffer(voice, dtype="<i2")).max() > 3000


async def test_a_chat_switch_by_voice_offline(offline: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kitchen = offline / "kitchen.json"
    kitchen.write_text(
        json.dumps(
            [
                {"role": "user", "parts": [{"text": "We are renovating the kitchen with oak cabinets."}]},
                {"role": "model", "parts": [{"text": "Oak is a fine choice."}]},
            ]
        ),
        encoding="utf-8",
    )
    code, imported = await run(capsys, "chats", "import", str(kitchen), "--json")
    assert code == 0
    kitchen_id = json.loads(imported)[0]["id"]
    events = await listen(capsys, "--audio-in", str(ASSETS / "wake_switch_chat.wav"), "--new-chat")
    [tool] = [e for e in events if e["event"] == "tool_call"]
    assert tool["name"] == "switch_chat" and "kitchen renovation" in tool["args"]["query"]
    assert tool["result"]["outcome"] == "switched" and tool["result"]["chat_id"] == kitchen_id
    assert {"event": "chat", "chat_id": kitchen_id} in events
    said = [e["text"] for e in events if e["event"] == "transcript" and e["role"] == "model"]
    assert said and said[0].startswith("Switching to")


async def test_saying_goodbye_ends_the_offline_conversation(offline: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # Whisper base hears this fixture's "now. Goodbye." as "out-of-by" (bench/offline.py): the farewell
    # is still recognised from the rest of what was said.
    events = await listen(capsys, "--audio-in", str(ASSETS / "wake_goodbye.wav"))
    [tool] = [e for e in events if e["event"] == "tool_call"]
    assert tool["name"] == "end_conversation"
    said = [e["text"] for e in events if e["event"] == "transcript"]
    assert "that's all" in said[0].lower()
    assert next(e for e in events if e["event"] == "saved")["turns"] == len(said)


async def test_doctor_says_the_offline_model_is_small(offline: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out = await run(capsys, "doctor", "--json")
    findings = {f["check"]: f for f in json.loads(out)}
    assert findings["live model"]["status"] == "warning"
    assert "small local model" in findings["live model"]["detail"]
    assert "offline" in findings["keys"]["detail"]


async def test_gemini_chosen_without_a_key_is_refused_in_one_line(
    offline: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_VOICE_MODEL", "gemini")
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["listen", "--audio-in", str(ASSETS / "silence.wav"), "--fast"])
    assert code == 1
    assert "voice_model is gemini but no Gemini API key" in capsys.readouterr().err


async def test_a_fact_said_to_remember_is_saved_through_the_memory_tool(
    offline: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = await listen(capsys, "--audio-in", str(ASSETS / "wake_remember.wav"))
    [tool] = [e for e in events if e["event"] == "tool_call"]
    assert tool["name"] == "save_memory" and "Mia" in tool["args"]["content"]
    assert tool["result"]["success"] is True  # grounded in the user's own words, which were saved first
    said = [e["text"] for e in events if e["event"] == "transcript" and e["role"] == "model"]
    assert said == ["Okay, I'll remember that."]
    _, listed = await run(capsys, "memories", "list", "--json")
    assert [memory["content"] for memory in json.loads(listed)] == [tool["result"]["content"]]


async def test_an_earlier_chat_is_recalled_and_answered_from(offline: Path, capsys: pytest.CaptureFixture[str]) -> None:
    kitchen = offline / "kitchen.json"
    tiles = "Let's go with the white zellige tiles for the wall behind the sink."
    kitchen.write_text(
        json.dumps(
            [
                {"role": "user", "parts": [{"text": tiles}]},
                {"role": "model", "parts": [{"text": "Zellige will look lovely there."}]},
            ]
        ),
        encoding="utf-8",
    )
    code, _ = await run(capsys, "chats", "import", str(kitchen), "--json")
    assert code == 0
    events = await listen(capsys, "--audio-in", str(ASSETS / "wake_recall.wav"), "--new-chat")
    [tool] = [e for e in events if e["event"] == "tool_call"]
    assert tool["name"] == "recall_conversations" and "kitchen tile" in tool["args"]["query"]
    assert tool["result"]["results"][0]["text"] == tiles
    said = " ".join(e["text"] for e in events if e["event"] == "transcript" and e["role"] == "model")
    assert "zellige" in said.lower() or "sink" in said.lower()  # the answer comes from what was found


class HeldClock:
    """Stands still, moved by hand (`advance`), until `release()`; then runs with the monotonic clock."""

    def __init__(self) -> None:
        self._now = 0.0
        self._released_at: float | None = None

    def __call__(self) -> float:
        return self._now if self._released_at is None else self._now + time.monotonic() - self._released_at

    def advance(self, seconds: float) -> None:
        self._now += seconds

    def release(self) -> None:
        self._released_at = time.monotonic()


async def test_speaking_over_the_offline_voice_stops_it(offline: Path) -> None:
    # The whole loop on a microphone the test feeds: the wake word model, the VAD, Whisper, SmolLM2 and
    # espeak-ng for real; the speaker a sink that keeps count of what it was given and told to drop. Its
    # clock is moved by hand until the first answer is cut: 300 ms of that answer have played when the user
    # speaks, however long it is and however slow the machine, whether or not it was still being written.
    clock = HeldClock()
    chime_ms = earcon(MODEL_VOICE_FORMAT).duration_ms
    async with running_loop(offline, sink=NullSink(clock=clock)) as running:
        running.microphone.feed(AudioChunk(MIC_FORMAT, read_pcm("wake_weather"), 0.0))
        await running.watcher.until(lambda: running.sink.written_ms > chime_ms)  # the answer's voice came
        clock.advance((chime_ms + 300.0) / 1000.0)
        running.microphone.feed(AudioChunk(MIC_FORMAT, read_pcm("speech_hello"), 0.0))
        await running.watcher.until(lambda: any(t.interrupted for t in running.watcher.spoken()))
        clock.release()  # from here on the voice plays in real time
        await running.watcher.until_saved(turns=4)
        saved = await history(running)
    turns = running.watcher.spoken()
    assert [(t.role, t.interrupted) for t in turns] == [
        ("user", False),
        ("model", True),
        ("user", False),
        ("model", False),
    ]
    assert "weather" in turns[0].text and "hello" in turns[2].text.lower()
    assert saved == [(t.role, t.text) for t in turns]
    assert running.sink.clears == 1 and running.sink.dropped_ms > 0  # the voice queued was dropped at once
    states = running.watcher.of("state")
    barged = states.index(AssistantState.RESPONDING)
    assert AssistantState.LISTENING in states[barged:]  # back to listening, then the new question answered


async def test_what_parley_remembers_is_looked_up_and_told(offline: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A typed message counts as the user being active: the idle countdown waits for its answer, however
    # slow the machine (the system prompt's first reading, the embedding, the search, the model's words).
    code, _ = await run(capsys, "memories", "add", "My daughter is called Mia and she loves horses.")
    assert code == 0
    async with running_loop(offline) as running:
        running.microphone.feed(AudioChunk(MIC_FORMAT, silence(240), 0.0))
        await running.microphone.until_drained()
        await running.loop.send_text("What do you remember about my daughter?")
        await running.watcher.until_saved(turns=2)
    [used] = [e for e in running.watcher.of("conversation") if isinstance(e, ToolUsed)]
    assert used.call.name == "search_memories" and used.call.args["query"] == "my daughter"
    found = used.reply.result["results"][0]["content"]
    assert "Mia" in found
    [answer] = [turn.text for turn in running.watcher.spoken() if turn.role == "model"]
    assert "Mia" in answer  # the model's words about the memory, or the memory read out
