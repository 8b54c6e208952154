"""The window's error banner: a damaged store, a problem resolved (taking down its own banner only), a chat deleted
under the reader."""

from __future__ import annotations

from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.core.events import Problem, ProblemResolved
from app.wiring import store_path
from tests.ui.chat_window import open_window, three_chats
from tests.ui.conftest import TIMEOUT_MS, Seed
from ui.bridge import ChatBridge
from ui.main_window import MainWindow


def test_a_corrupt_store_shows_an_error_banner(qtbot: QtBot, bridge: ChatBridge, settings: Settings) -> None:
    path = store_path(settings)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database " * 200)
    window = MainWindow(bridge)
    qtbot.addWidget(window)
    window.show()
    with qtbot.waitSignal(bridge.error, timeout=TIMEOUT_MS):
        bridge.open()
    assert window.banner.isVisible()
    assert "is damaged" in window.banner.text() and "parley chats repair" in window.banner.text()
    window.new_chat_button.click()  # requests after the failure neither hang nor pile up errors
    assert window.chats.rowCount() == 0
    window.dismiss_button.click()
    assert not window.banner.isVisible()


def test_a_resolved_error_takes_its_banner_down_and_no_other(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(three_chats)
    window = open_window(qtbot, bridge)
    with qtbot.waitSignal(bridge.error, timeout=TIMEOUT_MS):
        bridge.post(Problem("Supabase cannot be reached."))
    with qtbot.waitSignal(bridge.error_resolved, timeout=TIMEOUT_MS):
        bridge.post(ProblemResolved("Supabase cannot be reached."))
    assert not window.banner.isVisible()
    with qtbot.waitSignal(bridge.error, timeout=TIMEOUT_MS):
        bridge.post(Problem("The microphone is gone."))
    with qtbot.waitSignal(bridge.error_resolved, timeout=TIMEOUT_MS):
        bridge.post(ProblemResolved("Supabase cannot be reached."))
    assert window.banner.isVisible()
    assert "microphone" in window.banner.text()


def test_a_deleted_chat_reports_its_error(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(three_chats)
    assert isinstance(ids, dict)
    window = open_window(qtbot, bridge)
    with qtbot.waitSignal(bridge.chats_changed, timeout=TIMEOUT_MS):
        bridge.delete(ids["Trip"])
    with qtbot.waitSignal(bridge.error, timeout=TIMEOUT_MS):
        bridge.select_chat(ids["Trip"])
    assert window.banner.isVisible()
    assert str(ids["Trip"]) in window.banner.text()
