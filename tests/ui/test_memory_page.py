"""The Memory page against the real memory store: browse by category, search by meaning, edit, forget,
export, and reload when a conversation saves a memory."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from uuid import UUID

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from PySide6.QtWidgets import QWidget
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.core.events import MemoriesChanged
from app.memory_controller import ExportFormat
from app.wiring import open_chat_services
from chats.memory.models import Memory
from chats.memory.service import Saved
from tests.ui.conftest import TIMEOUT_MS
from ui.bridge import ChatBridge
from ui.main_window import MainWindow
from ui.memory.bridge import MemoryBridge
from ui.memory.page import MemoryPage

FACTS = [
    ("I live in Lisbon", "identity"),
    ("I prefer green tea to coffee", "preference"),
    ("My brother Tom is a carpenter", "relationship"),
    ("The garden gets lavender and rosemary this spring", "project"),
]


def remember(settings: Settings, *facts: tuple[str, str]) -> list[UUID]:
    async def add() -> list[UUID]:
        async with open_chat_services(settings) as services:
            ids = []
            for text, category in facts:
                saved = await services.memory.add(text, project_id=None, category=category)
                assert isinstance(saved, Saved)
                ids.append(saved.memory.id)
            return ids

    return asyncio.run(add())


class Answers:
    def __init__(self) -> None:
        self.edits: list[tuple[str, str] | None] = []
        self.exports: list[tuple[Path, ExportFormat] | None] = []
        self.confirmations: list[str] = []

    def edit(self, _parent: QWidget, memory: Memory) -> tuple[str, str] | None:
        return self.edits.pop(0)

    def choose_export(self, _parent: QWidget) -> tuple[Path, ExportFormat] | None:
        return self.exports.pop(0)

    def confirm(self, _parent: QWidget, question: str) -> bool:
        self.confirmations.append(question)
        return True


def open_page(qtbot: QtBot, bridge: ChatBridge, answers: Answers) -> tuple[MemoryPage, MemoryBridge]:
    memory = MemoryBridge(bridge)
    page = MemoryPage(memory, confirm=answers.confirm, edit=answers.edit, choose_export=answers.choose_export)
    qtbot.addWidget(page)
    bridge.ready.connect(page.reload)
    page.show()
    bridge.open()
    return page, memory


def cell(page: MemoryPage, row: int) -> str:
    item = page.table.item(row, 0)
    assert item is not None
    return item.text()


def contents(page: MemoryPage) -> list[str]:
    return [memory.content for memory in page.shown]


def test_browse_by_category_and_search_by_meaning(qtbot: QtBot, bridge: ChatBridge, settings: Settings) -> None:
    remember(settings, *FACTS)
    page, _ = open_page(qtbot, bridge, Answers())
    qtbot.waitUntil(lambda: len(page.shown) == 4, timeout=TIMEOUT_MS)
    assert cell(page, 0) == "The garden gets lavender and rosemary this spring"  # newest first
    assert page.status.text() == "4 memories."
    page.category.setCurrentIndex(page.category.findData("relationship"))
    qtbot.waitUntil(lambda: contents(page) == ["User's brother Tom is a carpenter"], timeout=TIMEOUT_MS)
    page.category.setCurrentIndex(0)
    QTest.keyClicks(page.search_box, "what does the user drink")
    QTest.keyClick(page.search_box, Qt.Key.Key_Return)
    qtbot.waitUntil(lambda: contents(page)[:1] == ["User prefers green tea to coffee"], timeout=TIMEOUT_MS)
    assert "match “what does the user drink”" in page.status.text()


def test_edit_and_forget(qtbot: QtBot, bridge: ChatBridge, settings: Settings) -> None:
    lisbon, tea = remember(settings, *FACTS[:2])
    answers = Answers()
    page, memory = open_page(qtbot, bridge, answers)
    qtbot.waitUntil(lambda: len(page.shown) == 2, timeout=TIMEOUT_MS)
    page.select(tea)
    answers.edits.append(("I prefer jasmine tea to coffee", "preference"))
    with qtbot.waitSignal(memory.changed, timeout=TIMEOUT_MS):
        page.edit_button.click()
    qtbot.waitUntil(lambda: "User prefers jasmine tea to coffee" in contents(page), timeout=TIMEOUT_MS)

    page.select(lisbon)
    with qtbot.waitSignal(memory.changed, timeout=TIMEOUT_MS):
        page.forget_button.click()
    assert "User lives in Lisbon" in answers.confirmations[0]
    qtbot.waitUntil(lambda: contents(page) == ["User prefers jasmine tea to coffee"], timeout=TIMEOUT_MS)


def test_replaced_facts_show_only_when_asked(qtbot: QtBot, bridge: ChatBridge, settings: Settings) -> None:
    remember(settings, ("I live in Lisbon", "identity"), ("I live in Porto now", "identity"))
    page, _ = open_page(qtbot, bridge, Answers())
    qtbot.waitUntil(lambda: contents(page) == ["User lives in Porto now"], timeout=TIMEOUT_MS)
    page.show_replaced.setChecked(True)
    qtbot.waitUntil(lambda: len(page.shown) == 2, timeout=TIMEOUT_MS)
    assert cell(page, 1) == "User lives in Lisbon (replaced)"


def test_export_writes_the_file_chosen(qtbot: QtBot, bridge: ChatBridge, settings: Settings, tmp_path: Path) -> None:
    remember(settings, *FACTS[:2])
    answers = Answers()
    page, memory = open_page(qtbot, bridge, answers)
    qtbot.waitUntil(lambda: len(page.shown) == 2, timeout=TIMEOUT_MS)
    out = tmp_path / "kept.json"
    answers.exports.append((out, "json"))
    with qtbot.waitSignal(memory.exported, timeout=TIMEOUT_MS):
        page.export_button.click()
    assert page.status.text() == f"Exported 2 memories to {out}."
    assert {m["content"] for m in json.loads(out.read_text(encoding="utf-8"))["memories"]} == set(contents(page))


def test_the_window_has_a_memory_tab_that_follows_conversations(
    qtbot: QtBot, bridge: ChatBridge, settings: Settings
) -> None:
    window = MainWindow(bridge)
    qtbot.addWidget(window)
    window.show()
    bridge.open()
    page = window.memory_page
    qtbot.waitUntil(lambda: page.status.text() == "Nothing remembered yet.", timeout=TIMEOUT_MS)
    window.pages.setCurrentWidget(page)
    remember(settings, FACTS[1])  # as a conversation's save_memory would, from the runtime thread
    bridge.post(MemoriesChanged())
    qtbot.waitUntil(lambda: contents(page) == ["User prefers green tea to coffee"], timeout=TIMEOUT_MS)
