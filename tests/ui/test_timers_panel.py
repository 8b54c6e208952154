"""The timers panel: the running timers with their time left, Cancel, and Stop while one rings; on its own
with a clock the test sets, and in the window with a timer set by typing to Parley (the fake Live server
calls `set_timer`) that rings, shows in the panel, and stops on Stop."""

from __future__ import annotations

from datetime import timedelta

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.core.events import TimerRinging
from app.core.timer import Timer
from app.runtime import Runtime
from tests.app.timers.clock import START
from tests.fakes.gemini_live_scenario import (
    AfterText,
    AfterToolResponse,
    Call,
    CallTools,
    CompleteTurn,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.ui.conftest import TIMEOUT_MS, open_voice_window
from ui.voice.timers_panel import TimersPanel

PASTA = Timer("a1b2c3", "timer", "pasta", START + timedelta(seconds=540), START)
PLUMBER = Timer("d4e5f6", "reminder", "call the plumber", START + timedelta(hours=2, seconds=5), START)


def test_the_panel_lists_the_time_left_cancels_and_stops(qtbot: QtBot) -> None:
    now = [START]
    panel = TimersPanel(clock=lambda: now[0])
    qtbot.addWidget(panel)
    panel.show()
    panel.show_timers(())
    assert not panel.isVisible()  # nothing to show

    panel.show_timers((PASTA, PLUMBER))
    assert panel.isVisible() and not panel.stop_button.isVisible()
    texts = [panel.list.item(row).text() for row in range(panel.list.count())]
    assert texts[0] == "pasta: 9:00 left"
    assert texts[1].startswith("Reminder: call the plumber at ") and texts[1].endswith("(2:00:05 left)")
    now[0] += timedelta(seconds=61)
    panel._tick.timeout.emit()  # the second's tick
    assert panel.list.item(0).text() == "pasta: 7:59 left"

    panel.list.setCurrentRow(1)
    with qtbot.waitSignal(panel.cancel_requested) as cancelled:
        QTest.mouseClick(panel.cancel_button, Qt.MouseButton.LeftButton)
    assert cancelled.args == ["d4e5f6"]

    panel.show_ringing(TimerRinging(PASTA, "Your pasta timer is up."))
    assert panel.stop_button.isVisible() and panel.ringing_label.text() == "Your pasta timer is up."
    with qtbot.waitSignal(panel.stop_requested) as stopped:
        QTest.mouseClick(panel.stop_button, Qt.MouseButton.LeftButton)
    assert stopped.args == ["a1b2c3"]
    panel.show_stopped("a1b2c3")
    panel.show_timers(())
    assert not panel.isVisible()


def test_a_timer_typed_to_parley_shows_rings_and_stops_in_the_window(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings, live_server: FakeGeminiLiveServer
) -> None:
    live_server.script(
        script(
            (AfterText(), (CallTools((Call("t-1", "set_timer", {"seconds": 2, "label": "tea"}),)),)),
            (AfterToolResponse("t-1"), (OutputTranscript("Tea timer set."), CompleteTurn())),
        )
    )
    bridge, main, _voice = open_voice_window(qtbot, runtime, voice_settings)

    with qtbot.waitSignal(bridge.timer_ringing, timeout=TIMEOUT_MS) as ringing:
        QTest.keyClicks(main.voice.text_box, "Set a tea timer for two seconds")
        QTest.keyClick(main.voice.text_box, Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: main.timers.list.count() == 1, timeout=TIMEOUT_MS)
        assert main.timers.list.item(0).text().startswith("tea: 0:0")
    assert ringing.args[0].message == "Your tea timer is up."
    qtbot.waitUntil(lambda: main.timers.list.count() == 0, timeout=TIMEOUT_MS)  # rung: no longer running
    assert main.timers.stop_button.isVisible()
    with qtbot.waitSignal(bridge.timer_stopped, timeout=TIMEOUT_MS):
        QTest.mouseClick(main.timers.stop_button, Qt.MouseButton.LeftButton)
    assert not main.timers.isVisible()
    qtbot.waitUntil(lambda: "Your tea timer is up." in main.transcript.toPlainText(), timeout=TIMEOUT_MS)
