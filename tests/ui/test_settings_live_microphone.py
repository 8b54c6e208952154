"""A microphone chosen in Settings while Parley listens: opened at the next sleep, not in a conversation; and a
microphone that failed (at start, or the same one chosen again) opened again when Settings choose it."""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot

from app.front.voice_presenter import NO_MICROPHONE
from app.runtime import Runtime
from tests.fakes.gemini_live_scenario import AfterAudio, AfterText, CompleteTurn, OutputTranscript, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.ui.conftest import TIMEOUT_MS, MakeSettings
from tests.ui.live_settings_window import (
    Devices,
    UnpluggedCard,
    close,
    feed,
    listening,
    opened_on,
    recording_on,
    save,
    settings_of,
)
from tests.voice.fixtures import read_pcm
from voice.audio.synthetic import tone


def test_a_microphone_chosen_in_settings_is_opened_at_the_next_sleep_not_in_a_conversation(
    qtbot: QtBot,
    runtime: Runtime,
    live_server: FakeGeminiLiveServer,
    parley: MakeSettings,
) -> None:
    live_server.script(script((AfterText(), (OutputTranscript("Here I am."), CompleteTurn()))))
    settings = parley("idle_seconds = 4\n")
    devices = Devices()
    window, states = listening(qtbot, runtime, settings, devices)
    try:
        dialog = settings_of(window)
        dialog.input_device.setCurrentIndex(dialog.input_device.findData("USB Microphone"))
        window.voice.send_text("Are you there?")
        qtbot.waitUntil(lambda: "Here I am." in window.main.transcript.toPlainText(), timeout=TIMEOUT_MS)
        save(dialog)  # in the conversation: it idles 4 s after the answer
        runtime.submit(asyncio.sleep(0)).result(timeout=TIMEOUT_MS / 1000)  # the switch has begun, and waits
        assert states[-1] != "sleeping"
        assert [device for device, _ in devices.opened] == [None]  # not while Parley is in a conversation

        qtbot.waitUntil(lambda: len(devices.opened) == 2, timeout=TIMEOUT_MS)  # it sleeps: the new one opens
        assert devices.opened[1][0] == "USB Microphone"
        # The switch saw "sleeping" on the runtime thread; the window's signal may still be on its way.
        qtbot.waitUntil(lambda: states[-1] == "sleeping", timeout=TIMEOUT_MS)
        levels: list[float] = []
        window.bridge.level_changed.connect(levels.append)
        feed(runtime, devices.microphone, tone(400, 440.0, amplitude=0.5).pcm)
        qtbot.waitUntil(lambda: bool(levels) and max(levels) > -10.0, timeout=TIMEOUT_MS)  # heard through it
    finally:
        close(window)


def test_a_microphone_that_failed_at_start_is_opened_again_when_settings_choose_it(
    qtbot: QtBot, runtime: Runtime, live_server: FakeGeminiLiveServer, parley: MakeSettings
) -> None:
    live_server.script(script((AfterAudio(8_000), (OutputTranscript("Yes?"), CompleteTurn()))))
    settings = parley("idle_seconds = 0.3\n")
    card = UnpluggedCard()
    _, open_devices = recording_on(card)
    window, states = opened_on(qtbot, runtime, settings, open_devices)
    voice = window.main.voice
    try:
        unplugged = NO_MICROPHONE.format(problem="no microphone found: the USB microphone is unplugged (test)")
        qtbot.waitUntil(lambda: window.main.banner_messages == (unplugged,), timeout=TIMEOUT_MS)
        qtbot.waitUntil(
            lambda: voice.state_label.text() == "Assistant: no microphone, type to talk", timeout=TIMEOUT_MS
        )
        assert not voice.talk_button.isEnabled()

        card.plug_in()
        dialog = settings_of(window)
        dialog.input_device.setCurrentIndex(dialog.input_device.findData("USB Microphone"))
        save(dialog)
        microphone = card.stream()  # opened again, on the device chosen
        microphone.record(bytes(3_200))  # its first 100 ms: it works
        qtbot.waitUntil(voice.talk_button.isEnabled, timeout=TIMEOUT_MS)
        assert voice.state_label.text() == "Assistant: sleeping"
        assert window.main.banner_messages == ()
        assert voice.talk_button.toolTip() == "Start talking without the wake word (Ctrl+K)"
        microphone.record(read_pcm("wake_hey_jarvis") + bytes(32_000))  # and the wake word listens again
        qtbot.waitUntil(lambda: "connecting" in states, timeout=TIMEOUT_MS)
    finally:
        close(window)


def test_the_same_microphone_chosen_again_is_opened_again_after_it_failed(
    qtbot: QtBot, runtime: Runtime, live_server: FakeGeminiLiveServer, parley: MakeSettings
) -> None:
    settings = parley("")
    card = UnpluggedCard()
    opened, open_devices = recording_on(card)
    window, _ = opened_on(qtbot, runtime, settings, open_devices)
    voice = window.main.voice
    try:
        qtbot.waitUntil(
            lambda: voice.state_label.text() == "Assistant: no microphone, type to talk", timeout=TIMEOUT_MS
        )
        lost: list[str] = []
        window.bridge.device_lost.connect(lambda device, _problem: lost.append(device))
        save(settings_of(window))  # still unplugged: tried again, and it says so again
        qtbot.waitUntil(lambda: lost == ["microphone"], timeout=TIMEOUT_MS)
        assert opened == [None, None]
        assert not voice.talk_button.isEnabled()
        card.plug_in()
        save(settings_of(window))  # the same device (the system default) once more
        card.stream().record(bytes(3_200))
        qtbot.waitUntil(voice.talk_button.isEnabled, timeout=TIMEOUT_MS)
        assert opened == [None, None, None]
    finally:
        close(window)
