"""`parley setup` answered on stdin: the microphone heard and the chime played, "hey Jarvis" said three
times in a simulated room (the enrolment stored), the language saved in the config file, a Gemini key tested against the
fake Live server (a refused one is one line and asked again; a working one goes to the keyring, never the
file), Enter everywhere keeping the defaults and staying offline, and the window's guide not offered after."""

from __future__ import annotations

import asyncio
import io
import os
from collections.abc import Callable
from pathlib import Path

import keyring
import pytest

from app.cli.main import main
from app.cli.setup_command import AudioParts, run_setup
from app.config.secrets import KEYRING_SERVICE
from app.config.settings import load_settings
from app.front.first_start import guide_done
from app.wake_enrolment import verifier_path
from languages.registry import SUPPORTED
from tests.app import MemoryKeyring
from tests.app.test_wake_command import ENROLMENT_ROOM
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.voice.fixtures import read_pcm, split
from tests.voice.rooms import SimulatedRoom
from tests.voice.session_harness import RecordingSink
from voice.audio.chunks import AudioSource
from voice.audio.devices import AudioDevice
from voice.audio.synthetic import SyntheticSource


async def setup(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], answers: str) -> tuple[int, str]:
    monkeypatch.setattr("sys.stdin", io.StringIO(answers))
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["setup", "--no-audio"])
    return code, capsys.readouterr().out


def stored_gemini_key() -> str | None:
    return keyring.get_password(KEYRING_SERVICE, "gemini_api_key")


@pytest.fixture
def no_key(environment: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The fake Live server's environment, with no key set in it: the user brings one."""
    monkeypatch.delenv("GEMINI_API_KEY")
    return environment


async def test_the_language_and_a_working_key_are_saved_where_parley_reads_them(
    no_key: Path,
    gemini_live_server: FakeGeminiLiveServer,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    wrong = "AIza-wrong-key-9999"
    code, out = await setup(monkeypatch, capsys, f"klingon\nit\n{wrong}\n{gemini_live_server.api_key}\n")
    assert code == 0
    lines = out.splitlines()
    assert any(
        line.endswith(f"Not a language Parley speaks: 'klingon'. Answer one of {', '.join(SUPPORTED)}, auto.")
        for line in lines
    )
    refused = [line for line in lines if "Failed: " in line]
    assert len(refused) == 1 and "Gemini Live refused the API key" in refused[0] and wrong not in out
    assert any(line.endswith("Stored in the OS keyring.") for line in lines)
    assert stored_gemini_key() == gemini_live_server.api_key
    config = Path(os.environ["PARLEY_CONFIG"])
    assert b"AIza" not in await asyncio.to_thread(config.read_bytes)
    settings = load_settings({}, env=os.environ)
    assert settings.language == "it"
    assert settings.gemini_api_key is not None and settings.gemini_api_key.reveal() == gemini_live_server.api_key
    assert guide_done(settings)


async def test_enter_everywhere_keeps_the_language_and_stays_offline(
    no_key: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    before = load_settings({}, env=os.environ).language
    code, out = await setup(monkeypatch, capsys, "")  # the end of stdin at once: every default
    assert code == 0
    assert "No key: Parley stays offline (later: `parley keys set gemini`)." in out
    assert "Wake word enrolment skipped: later, `parley wake enrol`" in out
    assert stored_gemini_key() is None
    after = load_settings({}, env=os.environ)
    assert after.language == before
    assert guide_done(after)


def saying_hey_jarvis(opened: list[str | None]) -> Callable[[str | None], AudioSource]:
    """A microphone that hears "hey Jarvis" from another spot of the enrolment room each time it opens."""

    def microphone(device: str | None) -> AudioSource:
        opened.append(device)
        room = SimulatedRoom(ENROLMENT_ROOM, 100 + len(opened))
        return SyntheticSource(split(room.microphone(read_pcm("wake_hey_jarvis"))))

    return microphone


def test_the_terminal_checks_the_sound_and_enrols_the_voice(
    tmp_path: Path,
    memory_keyring: MemoryKeyring,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    config = tmp_path / "config.toml"
    config.write_text("", encoding="utf-8")
    settings = load_settings({"data_dir": str(tmp_path / "data"), "config_file": str(config)}, env={})
    opened: list[str | None] = []
    sink = RecordingSink()
    card = AudioDevice(0, "Built-in Audio", "ALSA", 2, 2, 48_000.0, True, True)
    audio = AudioParts(lambda: [card], saying_hey_jarvis(opened), lambda _device: sink)
    monkeypatch.setattr("sys.stdin", io.StringIO("y\ny\ny\nfr\n\n"))  # test, play, enrol, French, no key
    assert run_setup(settings, audio) == 0
    out = capsys.readouterr().out
    assert "Microphones: Built-in Audio. Speakers: Built-in Audio." in out
    assert "Loudest in 3 s: " in out
    assert "Played Parley's chime" in out and sink.played
    assert '3/3: say "hey jarvis" now…' in out
    assert "Enrolled: the wake word listens for your voice now." in out
    assert opened == [None] * 4  # the level test, then three recordings, from the configured (default) device
    assert verifier_path(settings).is_file()
    assert (
        load_settings({"data_dir": str(settings.data_dir), "config_file": str(settings.config_file)}, env={}).language
        == "fr"
    )
    assert guide_done(settings)
