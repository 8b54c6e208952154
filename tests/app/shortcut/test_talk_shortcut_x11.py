"""The talk shortcut on X11, in a virtual X session: pressing it starts a conversation in the real voice loop,
a changed shortcut is the one that works, and one held by another application is said in one line."""

from __future__ import annotations

import asyncio
import queue
import threading
from concurrent.futures import Future
from pathlib import Path

from app.front.shortcut.talk import NO_DESKTOP, ON_X11, TalkShortcut, shortcut_support
from tests.app.shortcut.x_session import SIZE, grabbed_by_another_client, press
from tests.app.voice_harness import history, running_loop
from tests.fakes.gemini_live_scenario import AfterAudio, CompleteTurn, InputTranscript, OutputTranscript, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.virtual_screen import virtual_screen
from voice.audio.synthetic import silence
from voice.state import AssistantState
from voice.wake.protocol import PUSH_TO_TALK

PRESS_WAIT_S = 10.0
"""Safety net for a press to come through the X server and the listener thread."""


async def test_the_shortcut_pressed_in_any_application_starts_a_conversation(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, x_display: str
) -> None:
    answer = (InputTranscript("Is anyone there?"), OutputTranscript("I'm here."), CompleteTurn())
    gemini_live_server.script(script((AfterAudio(3_200), answer)))
    async with running_loop(environment) as running:
        running.microphone.feed(silence(400))
        await running.microphone.until_drained()
        event_loop = asyncio.get_running_loop()
        talked: list[Future[bool]] = []
        problems: list[str] = []

        def on_press() -> None:  # the grab's listener thread, as the window's `WindowVoice.talk` is called
            talked.append(asyncio.run_coroutine_threadsafe(running.loop.talk(), event_loop))

        shortcut = TalkShortcut(on_press, problems.append, {"DISPLAY": x_display})
        shortcut.set("Ctrl+Alt+Space")
        try:
            press(x_display, "Ctrl+Alt+Space")
            await running.watcher.until(lambda: AssistantState.LISTENING in running.watcher.of("state"))
            running.microphone.feed(silence(400))
            await running.watcher.until_saved(turns=2)
        finally:
            shortcut.close()
        assert await history(running) == [("user", "Is anyone there?"), ("model", "I'm here.")]
    assert [wake.model for wake in running.watcher.of("wake")] == [PUSH_TO_TALK]
    assert talked[0].result() is True
    assert problems == []


def test_a_changed_shortcut_is_the_one_that_works(x_display: str) -> None:
    presses: queue.Queue[str] = queue.Queue()
    shortcut = TalkShortcut(lambda: presses.put("pressed"), presses.put, {"DISPLAY": x_display})
    shortcut.set("Ctrl+Alt+Space")
    shortcut.set("Ctrl+Shift+K")  # saved in Settings
    try:
        press(x_display, "Ctrl+Alt+Space")  # no longer Parley's: the X server gives it to the focused window
        press(x_display, "Ctrl+Shift+K")
        assert presses.get(timeout=PRESS_WAIT_S) == "pressed"  # the new one's, the old one's would come first
        # The old combination was let go: another application may have it now.
        with grabbed_by_another_client(x_display, "Ctrl+Alt+Space"):
            pass
        press(x_display, "Ctrl+Shift+K")
        assert presses.get(timeout=PRESS_WAIT_S) == "pressed"
    finally:
        shortcut.close()
    assert presses.empty()


def test_a_shortcut_another_application_holds_is_said_in_one_line_and_parley_goes_on(x_display: str) -> None:
    presses: queue.Queue[str] = queue.Queue()
    problems: list[str] = []
    shortcut = TalkShortcut(lambda: presses.put("pressed"), problems.append, {"DISPLAY": x_display})
    with grabbed_by_another_client(x_display, "Ctrl+Alt+Space"):
        shortcut.set("Ctrl+Alt+Space")
    assert problems == ["Ctrl+Alt+Space is taken by another application: choose another in Settings"]
    # Once the other application lets go, saving the same shortcut again takes it.
    shortcut.set("Ctrl+Alt+Space")
    try:
        press(x_display, "Ctrl+Alt+Space")
        assert presses.get(timeout=PRESS_WAIT_S) == "pressed"
    finally:
        shortcut.close()
    assert len(problems) == 1


def test_a_shortcut_that_is_no_combination_is_said_in_one_line(x_display: str) -> None:
    problems: list[str] = []
    shortcut = TalkShortcut(lambda: None, problems.append, {"DISPLAY": x_display})
    shortcut.set("Space")
    shortcut.set("Ctrl+NoSuchKey")
    assert problems == [
        "'Space' would take that key from every application: add Ctrl, Alt or Meta",
        "this keyboard has no key NoSuchKey for Ctrl+NoSuchKey",
    ]


def test_without_a_desktop_the_shortcut_is_unavailable_and_nothing_is_grabbed(x_display: str) -> None:
    problems: list[str] = []
    shortcut = TalkShortcut(lambda: None, problems.append, {})
    shortcut.set("Ctrl+Alt+Space")
    assert problems == []  # only logged: Settings and `parley doctor` say it
    assert shortcut_support({}).line == NO_DESKTOP
    assert not shortcut_support({}).works
    assert shortcut_support({"DISPLAY": x_display}).line == ON_X11
    with grabbed_by_another_client(x_display, "Ctrl+Alt+Space"):
        pass  # nothing held it


def test_an_x_display_that_cannot_be_reached_is_said_in_one_line() -> None:
    problems: list[str] = []
    TalkShortcut(lambda: None, problems.append, {"DISPLAY": ":4097"}).set("Ctrl+Alt+Space")
    assert len(problems) == 1
    assert problems[0].startswith("no X display to grab Ctrl+Alt+Space on")
    assert "\n" not in problems[0]


def test_an_x_server_that_goes_away_ends_the_listener_and_closing_still_works() -> None:
    problems: list[str] = []
    with virtual_screen(SIZE) as name:
        shortcut = TalkShortcut(lambda: None, problems.append, {"DISPLAY": name})
        shortcut.set("Ctrl+Alt+Space")
    # The desktop session ended under the grab: the listener ends by itself, and closing is quiet.
    shortcut.close()
    assert [t for t in threading.enumerate() if t.name == "talk-shortcut-x11"] == []
    assert problems == []
