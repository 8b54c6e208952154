from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from app.cli.main import main
from app.config.settings import Settings
from app.front.device_checks import microphone_level, survey_devices, wake_model_problem
from app.front.shortcut.talk import NO_DESKTOP
from tests.app.other_listener import another_process_listening
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.gemini_models import CATALOGUE, TEXT, KnownModel
from voice.audio.chunks import AudioSource
from voice.audio.devices import AudioDevice
from voice.audio.synthetic import SyntheticSource, silence, tone
from voice.errors import NoAudioDevice

DEFAULTS = Settings(data_dir=Path("unused"), config_file=Path("unused"))


async def doctor(capsys: pytest.CaptureFixture[str], *options: str) -> tuple[int, dict[str, dict[str, str]]]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["doctor", "--json", *options])
    return code, {f["check"]: f for f in json.loads(capsys.readouterr().out)}


async def test_a_working_setup_is_reported_check_by_check(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, findings = await doctor(capsys)
    assert list(findings) == ["store", "listening", "keys", "models", "audio", "wake word", "shortcut", "live model"]
    assert findings["store"]["status"] == "ok"
    assert findings["listening"] == {
        "check": "listening",
        "status": "ok",
        "detail": "no Parley is listening on these chats",
    }
    assert findings["keys"]["detail"].startswith("gemini key in the environment")
    assert findings["wake word"] == {"check": "wake word", "status": "ok", "detail": "hey_jarvis at threshold 0.5"}
    assert findings["models"] == {
        "check": "models",
        "status": "ok",
        "detail": f"{DEFAULTS.gemini_live_model} (Live), {DEFAULTS.gemini_text_model} (text) listed at"
        f" {gemini_live_server.base_url}",
    }
    # Asked with the models call, one name at a time.
    assert gemini_live_server.rest_requests == [
        f"/v1/models/{DEFAULTS.gemini_live_model}",
        f"/v1/models/{DEFAULTS.gemini_text_model}",
    ]
    assert findings["live model"]["status"] == "ok"
    assert (await gemini_live_server.connection(0)).model == f"models/{DEFAULTS.gemini_live_model}"
    assert code == 0


async def test_without_a_desktop_the_talk_shortcut_is_said_not_to_work_and_the_rest_goes_on(
    environment: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("DISPLAY", "WAYLAND_DISPLAY"):
        monkeypatch.delenv(name, raising=False)
    code, findings = await doctor(capsys)
    assert findings["shortcut"] == {"check": "shortcut", "status": "warning", "detail": f"Ctrl+Alt+Space: {NO_DESKTOP}"}
    assert code == 0
    (environment / "config.toml").write_text('talk_shortcut = ""\n', encoding="utf-8")  # none
    _, findings = await doctor(capsys)
    assert findings["shortcut"]["detail"] == "none set (talk_shortcut is empty)"


async def test_a_model_the_service_does_not_list_is_named_with_its_setting(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PARLEY_GEMINI_LIVE_MODEL", "gemini-2.0-flash-live-001")
    code, findings = await doctor(capsys)
    assert code == 1
    assert findings["models"] == {
        "check": "models",
        "status": "problem",
        "detail": "Gemini does not know gemini_live_model 'gemini-2.0-flash-live-001': set a current model"
        " (parley config)",
    }
    # The Live check meets the service's refusal and says the same in its own words.
    assert findings["live model"] == {
        "check": "live model",
        "status": "problem",
        "detail": "Gemini Live does not know the model 'gemini-2.0-flash-live-001': set gemini_live_model to a"
        " current Live model (parley config)",
    }


async def test_a_text_model_as_the_live_model_and_a_missing_text_model_are_both_said(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    gemini_live_server.models = (*CATALOGUE, KnownModel("gemini-3.8-flash-text", "A text model", TEXT))
    monkeypatch.setenv("PARLEY_GEMINI_LIVE_MODEL", "gemini-3.8-flash-text")
    monkeypatch.setenv("PARLEY_GEMINI_TEXT_MODEL", "gemini-9-nonexistent")
    code, findings = await doctor(capsys)
    assert code == 1
    assert findings["models"]["status"] == "problem"
    assert findings["models"]["detail"] == (
        "gemini_live_model 'gemini-3.8-flash-text' is not a Live model; Gemini does not know gemini_text_model"
        " 'gemini-9-nonexistent': set a current model (parley config)"
    )


async def test_models_are_not_asked_about_without_a_key(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.delenv("GOOGLE_API_KEY", raising=False)
    _, findings = await doctor(capsys)
    assert findings["models"] == {"check": "models", "status": "ok", "detail": "not checked: no Gemini key is set"}
    assert gemini_live_server.rest_requests == []


async def test_a_refused_key_and_a_bad_wake_model_are_problems(
    environment: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "a-wrong-key")
    monkeypatch.setenv("PARLEY_WAKE_WORD", str(environment / "missing.onnx"))
    code, findings = await doctor(capsys)
    assert code == 1
    assert findings["live model"]["status"] == "problem"
    assert "a-wrong-key" not in findings["live model"]["detail"]
    assert findings["models"]["status"] == "problem"
    assert findings["models"]["detail"].startswith("Gemini Live refused the API key")
    assert "a-wrong-key" not in findings["models"]["detail"]
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


async def test_the_microphone_test_is_asked_for_and_follows_the_audio_devices(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    _, findings = await doctor(capsys, "--microphone")
    checks = ["store", "listening", "keys", "models", "audio", "microphone", "wake word", "shortcut", "live model"]
    assert list(findings) == checks
    # Whatever this machine has: heard, or one line on why not (no sound card here, say). Never a problem:
    # typed messages and recordings work without a microphone.
    assert findings["microphone"]["status"] in ("ok", "warning")
    assert findings["microphone"]["detail"].startswith(("Loudest in 3 s: ", "Failed: "))


# The checks `parley doctor` shares with the settings window (tests/ui/test_settings_dialog.py drives them
# through the window).


def opens(source: AudioSource) -> Callable[[str | None], AudioSource]:
    def microphone(_device: str | None) -> AudioSource:
        return source

    return microphone


async def test_the_microphone_test_says_how_loud_or_why_not_in_one_line() -> None:
    loud = await microphone_level(opens(SyntheticSource([tone(400, 440.0, amplitude=0.5)])), None, 0.2)
    assert (loud.line, loud.heard) == ("Loudest in 0.2 s: -6 dBFS", True)
    quiet = await microphone_level(opens(SyntheticSource([silence(400)])), None, 0.2)
    assert quiet.line == "Loudest in 0.2 s: -96 dBFS (very quiet: is this the right microphone, and is it muted?)"
    assert not quiet.heard


def test_devices_are_listed_by_what_they_do_and_a_failure_is_said() -> None:
    def two() -> list[AudioDevice]:
        return [
            AudioDevice(0, "Built-in Audio", "ALSA", 2, 2, 48_000.0, True, True),
            AudioDevice(1, "Headphones", "ALSA", 0, 2, 48_000.0, False, False),
        ]

    def none() -> list[AudioDevice]:
        raise NoAudioDevice("no audio device found: the PortAudio library is missing (test)")

    found = survey_devices(two)
    assert (found.inputs, found.outputs, found.failure) == (("Built-in Audio",), ("Built-in Audio", "Headphones"), None)
    assert survey_devices(none).problem == "no audio device found: the PortAudio library is missing (test)"
    assert survey_devices(list).problem == "no audio devices found: no sound card, and no sound server running"


def test_the_wake_model_check_names_what_is_wrong(tmp_path: Path) -> None:
    assert wake_model_problem(" hey_jarvis ") is None
    assert "unknown wake word model 'hey_nobody'" in (wake_model_problem("hey_nobody") or "")
    assert (
        wake_model_problem(str(tmp_path / "missing.onnx"))
        == f"the wake word model {tmp_path / 'missing.onnx'} does not exist"
    )
