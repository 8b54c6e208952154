"""What came from an import, a model or a tool shows in the window with its control characters visible,
none of them acting: a right-to-left override never turns a name around, an escape never hides."""

from __future__ import annotations

import asyncio

from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.core.events import ConfirmationAsked
from app.wiring import open_chat_services
from chats.models import CONTROLS
from tests.ui.conftest import TIMEOUT_MS
from ui.bridge import ChatBridge
from ui.chat.chat_list import ChatListModel
from ui.chat.transcript_html import text_html
from ui.shown_text import for_window
from ui.voice.confirmations import HeldCall

OVERRIDE = "invoice\u202eexe.pdf"
ESCAPE = "\x1b[2J"


def acting(text: str) -> list[str]:
    return [c for c in CONTROLS.findall(text) if c not in "\n\t"]


def test_each_control_character_shows_as_a_sign() -> None:
    assert for_window(OVERRIDE) == "invoice\u27e8U+202E\u27e9exe.pdf"
    assert for_window(ESCAPE) == "\u241b[2J"
    assert for_window("a\tb\nc\x7f") == "a\tb\nc\u2421"
    assert for_window("שלום, caffè, 😀") == "שלום, caffè, 😀"
    assert acting(text_html(f"{OVERRIDE}\n{ESCAPE}")) == []


def test_a_stored_title_with_an_override_shows_as_written(qtbot: QtBot, settings: Settings, bridge: ChatBridge) -> None:
    async def stored_elsewhere() -> None:  # a store written before titles refused control characters
        async with open_chat_services(settings) as services:
            await services.store.create(title=f"Bills {OVERRIDE}{ESCAPE}")

    asyncio.run(stored_elsewhere())
    model = ChatListModel(bridge)
    bridge.ready.connect(model.refresh)
    with qtbot.waitSignal(bridge.ready, timeout=TIMEOUT_MS):
        bridge.open()
    qtbot.waitUntil(lambda: model.rowCount() == 1, timeout=TIMEOUT_MS)
    shown = str(model.data(model.index(0)))
    assert shown.startswith("Bills invoice\u27e8U+202E\u27e9exe.pdf\u241b[2J") and acting(shown) == []


def test_a_tool_call_waiting_for_a_yes_shows_its_arguments_visibly(qtbot: QtBot) -> None:
    held = HeldCall(ConfirmationAsked(confirmation="1", server="notes", tool="delete_note", args={"title": OVERRIDE}))
    qtbot.addWidget(held)
    assert acting(held.label.text()) == [] and "\u27e8U+202E\u27e9" in held.label.text()
