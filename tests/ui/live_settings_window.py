"""The real window (`ui.app.open_window`) listening on sound cards the test feeds (`Devices`), its Settings
window opened and saved, audio fed or handed to a microphone on the runtime's loop, and a USB card unplugged
then plugged in (`UnpluggedCard`). Shared by test_settings_live.py, test_settings_live_microphone.py and
test_device_retry.py (their settings come from the `parley` fixture in tests/ui/conftest.py)."""

from __future__ import annotations

from dataclasses import dataclass, field

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QApplication
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.front.device_switch import OpenDevices
from app.runtime import Runtime
from tests.fakes.fed_microphone import FedMicrophone
from tests.ui.conftest import TIMEOUT_MS
from tests.voice.fixtures import split
from tests.voice.portaudio_fake import FakeBackend, FakeStream
from ui.app import ParleyWindow, open_window
from ui.settings.dialog import SettingsDialog
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioSink, AudioSource
from voice.audio.devices import AudioDevice, StreamRequest
from voice.audio.microphone import MicrophoneSource
from voice.audio.null_sink import NullSink
from voice.audio.speaker import SpeakerSink
from voice.errors import NoAudioDevice

DEVICES = [
    AudioDevice(0, "Built-in Audio", "ALSA", 2, 2, 48_000.0, True, True),
    AudioDevice(1, "USB Microphone", "ALSA", 1, 0, 48_000.0, False, False),
]


@dataclass
class Devices:
    """The sound cards: each opening of the window's devices gets a microphone of its own, fed by the test."""

    opened: list[tuple[str | None, FedMicrophone]] = field(default_factory=list)

    def open(self, settings: Settings) -> tuple[AudioSource, AudioSink]:
        microphone = FedMicrophone()
        self.opened.append((settings.input_device, microphone))
        return microphone, NullSink(MODEL_VOICE_FORMAT)

    @property
    def microphone(self) -> FedMicrophone:
        """The microphone opened last."""
        return self.opened[-1][1]


def listening(qtbot: QtBot, runtime: Runtime, settings: Settings, devices: Devices) -> tuple[ParleyWindow, list[str]]:
    """The window, listening for the wake word; the states it goes through from then on."""
    window = open_window(settings, runtime, tray_available=False, open_devices=devices.open, devices=lambda: DEVICES)
    qtbot.addWidget(window.main)
    states: list[str] = []
    window.bridge.state_changed.connect(states.append)
    qtbot.waitUntil(lambda: "sleeping" in states, timeout=TIMEOUT_MS)  # the loop is ready
    return window, states


def settings_of(window: ParleyWindow) -> SettingsDialog:
    window.main.open_settings()
    dialog = window.main.settings_dialog
    assert dialog is not None
    return dialog


def save(dialog: SettingsDialog) -> None:
    QTest.mouseClick(dialog.ok_button, Qt.MouseButton.LeftButton)
    assert dialog.error.isHidden(), dialog.error.text()


def feed(runtime: Runtime, microphone: FedMicrophone, pcm: bytes) -> None:
    """Feed the microphone on the runtime's loop, where its reader runs, and wait until it is read."""

    async def go() -> None:
        microphone.put(*split(pcm, start_ms=microphone.end_ms))
        await microphone.until_drained()

    runtime.submit(go()).result(timeout=TIMEOUT_MS / 1000)


def hand(runtime: Runtime, microphone: FedMicrophone, pcm: bytes) -> None:
    """Hand `pcm` to the microphone on the runtime's loop (a recording of a set length reads it, then stops)."""

    async def go() -> None:
        microphone.put(*split(pcm, start_ms=microphone.end_ms))

    runtime.submit(go()).result(timeout=TIMEOUT_MS / 1000)


def close(window: ParleyWindow) -> None:
    QApplication.instance().setQuitOnLastWindowClosed(True)  # type: ignore[union-attr]
    window.main.close()


class UnpluggedCard(FakeBackend):
    """A USB microphone (or speaker) on PortAudio's side, unplugged until `plug_in`: opening a stream fails as
    PortAudio fails on a device that is not there, saying `problem`; once plugged in, its streams record
    what the test gives them (or play what is written to them)."""

    def __init__(self, problem: str = "no microphone found: the USB microphone is unplugged (test)") -> None:
        super().__init__()
        self.plugged = False
        self.problem = problem

    def plug_in(self) -> None:
        self.plugged = True

    def open_stream(self, request: StreamRequest) -> FakeStream:
        if not self.plugged:
            raise NoAudioDevice(self.problem)
        return super().open_stream(request)

    def stream(self) -> FakeStream:
        """The stream opened last, once it has started (from the test's thread)."""
        assert self.opened.wait(TIMEOUT_MS / 1000)
        assert self.streams[-1].started.wait(TIMEOUT_MS / 1000)
        return self.streams[-1]


def recording_on(card: FakeBackend) -> tuple[list[str | None], OpenDevices]:
    """The microphones the window opens, on `card`, as the device Settings name (None: the default)."""
    opened: list[str | None] = []

    def open_devices(chosen: Settings) -> tuple[AudioSource, AudioSink]:
        opened.append(chosen.input_device)
        return MicrophoneSource(device=chosen.input_device, backend=card), NullSink(MODEL_VOICE_FORMAT)

    return opened, open_devices


def speaking_on(card: FakeBackend) -> tuple[list[str | None], OpenDevices]:
    """The speakers the window opens, on `card`, as the device Settings name (None: the default)."""
    opened: list[str | None] = []

    def open_devices(chosen: Settings) -> tuple[AudioSource, AudioSink]:
        opened.append(chosen.output_device)
        return FedMicrophone(), SpeakerSink(MODEL_VOICE_FORMAT, device=chosen.output_device, backend=card)

    return opened, open_devices


def opened_on(
    qtbot: QtBot, runtime: Runtime, settings: Settings, open_devices: OpenDevices
) -> tuple[ParleyWindow, list[str]]:
    """The window on the devices `open_devices` opens; the states it goes through from then on."""
    window = open_window(settings, runtime, tray_available=False, open_devices=open_devices, devices=lambda: DEVICES)
    qtbot.addWidget(window.main)
    states: list[str] = []
    window.bridge.state_changed.connect(states.append)
    return window, states
