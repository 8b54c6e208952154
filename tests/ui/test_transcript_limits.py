"""The window stays responsive whatever a chat holds: one 50 MB message, 100,000 turns. Both through the
real window on a real SQLite store: what the transcript holds is bounded (the beginning of a long turn, the
newest page of a long chat), whatever the chat holds. How long the GUI thread pauses is a timing figure, for
bench/, not for a test on a shared machine."""

from __future__ import annotations

import asyncio
from uuid import UUID

from PySide6.QtCore import QUrl
from PySide6.QtGui import QGuiApplication
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.wiring import open_chat_services
from chats.models import Turn
from tests.ui.chat_window import open_window, select_row
from tests.ui.conftest import TIMEOUT_MS
from ui.bridge import ChatBridge
from ui.chat.long_text import PAGE_CHARS, LongTextDialog
from ui.chat.transcript import MORE_LINK, TURN_PAGE
from ui.chat.transcript_html import SHORT_CHARS, whole_link

HUGE_CHARS = 50 * 1024 * 1024


def chat_with(settings: Settings, turns: list[Turn]) -> UUID:
    """A chat holding `turns`, appended as a conversation's save appends them."""

    async def fill() -> UUID:
        async with open_chat_services(settings) as services:
            chat = await services.store.create(title="Big")
            for start in range(0, len(turns), 5_000):
                await services.store.append(chat.id, turns[start : start + 5_000])
            return chat.id

    return asyncio.run(fill())


def test_a_50_mb_message_shows_shortened_and_whole_on_demand(
    qtbot: QtBot, bridge: ChatBridge, settings: Settings
) -> None:
    words = "lorem ipsum dolor sit amet\n" * (HUGE_CHARS // 27)
    chat_id = chat_with(settings, [Turn(role="user", text=words), Turn(role="model", text="That is long.")])
    window = open_window(qtbot, bridge)
    select_row(qtbot, window, chat_id)
    qtbot.waitUntil(lambda: "That is long." in window.transcript.toPlainText(), timeout=TIMEOUT_MS)

    text = window.transcript.toPlainText()
    assert f"Show all ({len(words):,} characters)" in text
    assert len(text) < 2 * SHORT_CHARS  # the document holds the beginning only
    window.transcript.anchorClicked.emit(QUrl(whole_link(0)))
    dialog = window.whole_text
    assert dialog is not None and dialog.isVisible()
    assert dialog.view.toPlainText() == words[:PAGE_CHARS]
    dialog.next_button.click()
    assert dialog.view.toPlainText() == words[PAGE_CHARS : 2 * PAGE_CHARS]
    assert "of 52,428," in dialog.where.text()
    dialog.reject()
    assert window.close()  # closing is heard


def test_a_chat_of_100000_turns_shows_its_newest_page(qtbot: QtBot, bridge: ChatBridge, settings: Settings) -> None:
    turns = [Turn(role="user" if i % 2 == 0 else "model", text=f"Message number {i}.") for i in range(100_000)]
    chat_id = chat_with(settings, turns)
    window = open_window(qtbot, bridge)
    select_row(qtbot, window, chat_id)
    qtbot.waitUntil(lambda: "Message number 99999." in window.transcript.toPlainText(), timeout=TIMEOUT_MS)

    text = window.transcript.toPlainText()
    assert f"Show earlier messages ({100_000 - TURN_PAGE:,} not shown)" in text
    assert f"Message number {100_000 - TURN_PAGE}." in text
    assert f"Message number {100_000 - TURN_PAGE - 1}." not in text
    window.transcript.anchorClicked.emit(QUrl(MORE_LINK))
    more = window.transcript.toPlainText()
    assert f"Message number {100_000 - 2 * TURN_PAGE}." in more
    assert f"({100_000 - 2 * TURN_PAGE:,} not shown)" in more


def test_the_whole_text_dialog_pages_within_bounds_and_copies_all(qtbot: QtBot) -> None:
    text = "".join(chr(ord("a") + i % 26) for i in range(PAGE_CHARS * 2 + 10))
    dialog = LongTextDialog("You: the whole message", text)
    qtbot.addWidget(dialog)
    assert not dialog.previous_button.isEnabled() and dialog.next_button.isEnabled()
    dialog.show_next()
    dialog.show_next()
    assert dialog.page == 2 and not dialog.next_button.isEnabled()
    assert dialog.view.toPlainText() == text[2 * PAGE_CHARS :]
    assert dialog.where.text() == f"Characters {2 * PAGE_CHARS + 1:,} to {len(text):,} of {len(text):,}"
    dialog.show_next()  # past the end: stays on the last page
    assert dialog.page == 2
    dialog.copy_all()
    assert QGuiApplication.clipboard().text() == text
