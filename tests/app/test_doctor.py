from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.cli import main
from tests.app.other_listener import another_process_listening
from tests.fakes.gemini_live_server import FakeGeminiLiveServer


async def doctor(capsys: pytest.CaptureFixture[str]) -> tuple[int, dict[str, dict[str, str]]]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["doctor", "--json"])
    return code, {f["check"]: f for f in json.loads(capsys.readouterr().out)}


async def test_a_working_setup_is_reported_check_by_check(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, findings = await doctor(capsys)
    assert list(findings) == ["store", "listening", "keys", "audio", "wake word", "live model"]
    assert findings["store"]["status"] == "ok"
    assert findings["listening"] == {
        "check": "listening",
        "status": "ok",
        "detail": "no Parley is listening on these chats",
    }
    assert findings["keys"]["detail"].startswith("gemini key in the environment")
    assert findings["wake word"] == {"check": "wake word", "status": "ok", "detail": "hey_jarvis at threshold 0.5"}
    assert findings["live model"]["status"] == "ok"
    assert (await gemini_live_server.connection(0)).model.endswith("gemini-2.5-flash-native-audio-preview-09-2025")
    assert code == 0


async def test_a_refused_key_and_a_bad_wake_model_are_problems(
    environment: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "a-wrong-key")
    monkeypatch.setenv("PARLEY_WAKE_WORD", str(environment / "missing.onnx"))
    code, findings = await doctor(capsys)
    assert code == 1
    assert findings["live model"]["status"] == "problem"
    assert "a-wrong-key" not in findings["live model"]["detail"]
    assert findings["wake word"]["status"] == "problem"
    assert "missing.onnx" in findings["wake word"]["detail"]


async def test_a_parley_listening_on_the_same_chats_is_named(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    with another_process_listening(environment / "data") as listener:
        code, findings = await doctor(capsys)
    assert findings["listening"] == {
        "check": "listening",
        "status": "warning",
        "detail": f"Parley (process {listener.pid}) is listening on these chats",
    }
    assert code == 0  # a warning: a running Parley is no fault
