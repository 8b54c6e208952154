"""Folders in the window, against the real controller on a temporary store: make, choose, move into,
rename and delete them; a new chat lands in the folder shown."""

from __future__ import annotations

from uuid import UUID

from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.controller import ChatController
from chats.models import NO_FOLDER
from tests.ui.conftest import TIMEOUT_MS, Seed
from ui.bridge import ChatBridge
from ui.chat.chat_list import ChatRole
from ui.chat.folders import ALL_CHATS, IN_NO_FOLDER
from ui.main_window import MainWindow


class Answers:
    """Answers the window's questions from a list, and records them."""

    def __init__(self, *texts: str | None, confirm: bool = True) -> None:
        self.texts = list(texts)
        self.confirm_answer = confirm
        self.asked: list[str] = []

    def ask(self, _parent: QWidget, question: str, _initial: str) -> str | None:
        self.asked.append(question)
        return self.texts.pop(0)

    def confirm(self, _parent: QWidget, question: str) -> bool:
        self.asked.append(question)
        return self.confirm_answer


async def two_chats(controller: ChatController) -> dict[str, UUID]:
    kitchen = await controller.new_chat(title="Kitchen tiles")
    trip = await controller.new_chat(title="Japan trip")
    return {"kitchen": kitchen.id, "trip": trip.id}


def open_window(qtbot: QtBot, bridge: ChatBridge, answers: Answers) -> MainWindow:
    window = MainWindow(bridge, confirm=answers.confirm, ask=answers.ask)
    qtbot.addWidget(window)
    window.show()
    bridge.open()
    qtbot.waitUntil(lambda: window.chats.rowCount() == 2, timeout=TIMEOUT_MS)
    return window


def titles(window: MainWindow) -> list[str]:
    return [str(window.chats.data(window.chats.index(row), ChatRole.TITLE)) for row in range(window.chats.rowCount())]


def labels(window: MainWindow) -> list[str]:
    chooser = window.folders.chooser
    return [chooser.itemText(index) for index in range(chooser.count())]


def test_a_chat_moved_into_a_new_folder_is_listed_there(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(two_chats)
    assert isinstance(ids, dict)
    answers = Answers("Home")
    window = open_window(qtbot, bridge, answers)
    assert labels(window) == [ALL_CHATS, IN_NO_FOLDER]
    bridge.select_chat(ids["kitchen"])
    window.move_menu.aboutToShow.emit()
    new_folder = window.move_menu.actions()[-1]
    assert new_folder.text() == "New folder…"
    with qtbot.waitSignal(bridge.folders_loaded, timeout=TIMEOUT_MS):
        new_folder.trigger()
    assert labels(window) == [ALL_CHATS, IN_NO_FOLDER, "Home (1)"]

    window.folders.chooser.setCurrentIndex(2)
    qtbot.waitUntil(lambda: titles(window) == ["Kitchen tiles"], timeout=TIMEOUT_MS)
    window.folders.choose(NO_FOLDER)
    qtbot.waitUntil(lambda: titles(window) == ["Japan trip"], timeout=TIMEOUT_MS)
    window.folders.choose(None)
    qtbot.waitUntil(lambda: titles(window) == ["Japan trip", "Kitchen tiles"], timeout=TIMEOUT_MS)


def test_move_to_an_existing_folder_and_back_out(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(two_chats)
    assert isinstance(ids, dict)
    answers = Answers("Travel")
    window = open_window(qtbot, bridge, answers)
    with qtbot.waitSignal(bridge.folders_loaded, timeout=TIMEOUT_MS):
        window.folders.new_action.trigger()
    bridge.select_chat(ids["trip"])
    window.move_menu.aboutToShow.emit()
    into_travel = next(action for action in window.move_menu.actions() if action.text() == "Travel")
    with qtbot.waitSignal(bridge.folders_loaded, timeout=TIMEOUT_MS):
        into_travel.trigger()
    assert labels(window)[2] == "Travel (1)"
    window.move_menu.aboutToShow.emit()
    out = window.move_menu.actions()[0]
    assert out.text() == IN_NO_FOLDER
    with qtbot.waitSignal(bridge.folders_loaded, timeout=TIMEOUT_MS):
        out.trigger()
    assert labels(window)[2] == "Travel (0)"


def test_rename_and_delete_the_folder_shown(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    ids = seed(two_chats)
    assert isinstance(ids, dict)
    answers = Answers("Hom", "Home")
    window = open_window(qtbot, bridge, answers)
    assert not window.folders.rename_action.isEnabled()  # "All chats" is not a folder
    bridge.select_chat(ids["kitchen"])
    window.move_menu.aboutToShow.emit()
    with qtbot.waitSignal(bridge.folders_loaded, timeout=TIMEOUT_MS):
        window.move_menu.actions()[-1].trigger()
    window.folders.chooser.setCurrentIndex(2)
    qtbot.waitUntil(lambda: titles(window) == ["Kitchen tiles"], timeout=TIMEOUT_MS)

    with qtbot.waitSignal(bridge.folders_loaded, timeout=TIMEOUT_MS):
        window.folders.rename_action.trigger()
    assert labels(window)[2] == "Home (1)"
    assert window.folders.chooser.currentIndex() == 2  # still showing the renamed folder

    with qtbot.waitSignal(bridge.folders_loaded, timeout=TIMEOUT_MS):
        window.folders.delete_action.trigger()
    assert "Its chats are kept" in answers.asked[-1]
    assert labels(window) == [ALL_CHATS, IN_NO_FOLDER]
    qtbot.waitUntil(lambda: titles(window) == ["Japan trip", "Kitchen tiles"], timeout=TIMEOUT_MS)


def test_a_new_chat_lands_in_the_folder_shown(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(two_chats)
    window = open_window(qtbot, bridge, Answers("Work"))
    with qtbot.waitSignal(bridge.folders_loaded, timeout=TIMEOUT_MS):
        window.folders.new_action.trigger()
    window.folders.chooser.setCurrentIndex(2)
    qtbot.waitUntil(lambda: window.chats.rowCount() == 0, timeout=TIMEOUT_MS)
    with qtbot.waitSignal(bridge.chat_created, timeout=TIMEOUT_MS):
        window.new_chat_button.click()
    qtbot.waitUntil(lambda: titles(window) == ["New chat"], timeout=TIMEOUT_MS)


def test_a_duplicate_folder_name_is_explained(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(two_chats)
    window = open_window(qtbot, bridge, Answers("Work", "work"))
    with qtbot.waitSignal(bridge.folders_loaded, timeout=TIMEOUT_MS):
        window.folders.new_action.trigger()
    with qtbot.waitSignal(bridge.error, timeout=TIMEOUT_MS):
        window.folders.new_action.trigger()
    assert "already exists" in window.banner.text()
    assert labels(window) == [ALL_CHATS, IN_NO_FOLDER, "Work (0)"]
