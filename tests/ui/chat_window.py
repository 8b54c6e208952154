"""Three chats seeded in the store (one long enough to be compacted on import), the window opened on them, and a
row selected until its transcript shows. Shared by the window's tests."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

from pytestqt.qtbot import QtBot

from app.controller import ChatController
from chats.import_reader import ImportedChat
from chats.models import Turn
from tests.ui.conftest import TIMEOUT_MS
from ui.bridge import ChatBridge
from ui.main_window import MainWindow

AT = datetime(2026, 3, 4, 9, 30, tzinfo=UTC)

RENOVATION = [
    "We are renovating the house and the cooking area comes first.",
    "Start with the cabinets: oak fronts, soft-close hinges.",
    "The countertops will be quartz, 3 cm thick.",
    "The backsplash tiles: white, 10 by 10.",
    "The plumber moves the sink under the window on Monday.",
    "The electrician adds six spotlights above the counter.",
    "We chose an induction hob and a built-in oven.",
    "The floor gets large grey porcelain tiles.",
    "The fridge goes in a tall cabinet next to the pantry.",
    "Paint the walls a warm off-white after the tiling.",
]
TILES = [
    Turn(role="user" if i % 2 == 0 else "model", text=f"{RENOVATION[i % len(RENOVATION)]} (EARLY-DETAIL-{i})")
    for i in range(30)
]
"""Enough turns for the chat to be compacted on import: these become the summarised, folded ones."""

CHATS = {
    "Home works": [
        *TILES,
        Turn(role="user", text="We are renovating and need new cabinets and countertops.", at=AT),
        Turn(role="model", text="Oak or walnut? Is <b>bold</b> fine?", at=AT),
        Turn(role="user", text="Marco the contractor starts tiling on March 3rd, budget 18,500 euros."),
    ],
    "Trip": [
        Turn(role="user", text="I'm planning a two-week holiday in Japan next April."),
        Turn(role="model", text="Kyoto or Tokyo first?"),
    ],
    "Taxes": [
        Turn(role="user", text="Can I deduct my home office expenses as a freelancer?"),
        Turn(role="model", text="Often, yes."),
    ],
}


async def three_chats(controller: ChatController) -> dict[str, UUID]:
    reports = await controller.import_chats([ImportedChat(title, None, tuple(turns)) for title, turns in CHATS.items()])
    return {title: report.chat_id for title, report in zip(CHATS, reports, strict=True)}


def open_window(qtbot: QtBot, bridge: ChatBridge) -> MainWindow:
    window = MainWindow(bridge)
    qtbot.addWidget(window)
    window.show()
    bridge.open()
    qtbot.waitUntil(lambda: window.chats.rowCount() > 0, timeout=TIMEOUT_MS)
    return window


def select_row(qtbot: QtBot, window: MainWindow, chat_id: UUID) -> None:
    row = window.chats.row_of(chat_id)
    assert row is not None
    window.chat_list.setCurrentIndex(window.chats.index(row))
    qtbot.waitUntil(lambda: shown(window) == chat_id, timeout=TIMEOUT_MS)


def shown(window: MainWindow) -> UUID | None:
    chat = window.transcript.chat
    return chat.id if chat else None
