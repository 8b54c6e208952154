"""The settings dialog as the tests open it (`make_dialog`) on a list of sound cards (`DEVICES`), the keys
typed into it, the keyring and config file it writes (`stored`, `reload`), and a user enrolling from the
laptop (`Talker`)."""

from __future__ import annotations

import keyring
from pytestqt.qtbot import QtBot

from app.config.secrets import KEYRING_SERVICE
from app.config.settings import Settings, load_settings
from app.runtime import Runtime
from tests.voice.fixtures import read_pcm, split
from tests.voice.rooms import RoomCondition, SimulatedRoom
from ui.settings.dialog import SettingsDialog
from voice.audio.chunks import AudioSource
from voice.audio.devices import AudioDevice
from voice.audio.synthetic import SyntheticSource
from voice.errors import NoAudioDevice

GEMINI_KEY = "AIza-typed-gemini-key-0001"
OPENAI_KEY = "sk-typed-openai-key-0002"
ENROLMENT_ROOM = RoomCondition("1m_rt0.45_pink20", 0.45, 1.0, "pink", 20.0)
"""Where the user enrols: at the laptop, in the room of issue 13's goal condition."""


def device(index: int, name: str, *, inputs: int, outputs: int) -> AudioDevice:
    return AudioDevice(index, name, "ALSA", inputs, outputs, 48_000.0, index == 0, index == 0)


DEVICES = [
    device(0, "Built-in Audio", inputs=2, outputs=2),
    device(1, "USB Microphone", inputs=1, outputs=0),
    device(2, "Headphones", inputs=0, outputs=2),
]


def no_devices() -> list[AudioDevice]:
    raise NoAudioDevice("no audio device found: the PortAudio library is missing (test)")


def make_dialog(
    qtbot: QtBot, settings: Settings, runtime: Runtime, devices: list[AudioDevice] | None = None
) -> SettingsDialog:
    dialog = SettingsDialog(settings, runtime, devices=lambda: list(DEVICES if devices is None else devices), env={})
    qtbot.addWidget(dialog)
    return dialog


def stored(name: str) -> str | None:
    return keyring.get_password(KEYRING_SERVICE, f"{name}_api_key")


def reload(settings: Settings) -> Settings:
    return load_settings({"data_dir": str(settings.data_dir), "config_file": str(settings.config_file)}, env={})


class Talker:
    """The chosen microphone: each time it is opened, `fixture` said once more from another spot 1 m from
    the laptop in `ENROLMENT_ROOM`, with its noise. Which device each opening asked for is kept."""

    def __init__(self, fixture: str) -> None:
        self.fixture = fixture
        self.opened: list[str | None] = []

    def __call__(self, device: str | None) -> AudioSource:
        self.opened.append(device)
        room = SimulatedRoom(ENROLMENT_ROOM, 100 + len(self.opened))
        return SyntheticSource(split(room.microphone(read_pcm(self.fixture))))
