"""`parley listen` with no Gemini key: the offline voice end to end on the fixtures. The real wake word
model, VAD, Whisper, SmolLM2, espeak-ng, the real embedder for intents, the real SQLite store."""

from __future__ import annotations

import asyncio
import json
import wave
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from app.cli import main
from tests.app import MemoryKeyring, using_keyring
from tests.voice.offline.models import prepared_models, xdg_cache
from voice.earcon import earcon

ASSETS = Path(__file__).resolve().parents[2] / "assets" / "audio"


@pytest.fixture(scope="session")
def model_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The offline models prepared once per test session, where the app looks for them (XDG cache)."""
    prepared_models(tmp_path_factory)
    return xdg_cache(tmp_path_factory)


@pytest.fixture
def offline(tmp_path: Path, model_cache: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Parley with no key at all, on a temporary data folder."""
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    for name, value in {
        "PARLEY_CONFIG": str(config),
        "PARLEY_DATA_DIR": str(tmp_path / "data"),
        "XDG_CACHE_HOME": str(model_cache),
        "PARLEY_IDLE_SECONDS": "1",
    }.items():
        monkeypatch.setenv(name, value)
    for name in ("GEMINI_API_KEY", "GOOGLE_API_KEY", "OPENAI_API_KEY", "PARLEY_VOICE_MODEL", "PARLEY_EMBEDDER"):
        monkeypatch.delenv(name, raising=False)
    with using_keyring(MemoryKeyring()):
        yield tmp_path


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
