"""The chat list model: pages fetched lazily through the bridge, most recent activity first."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from uuid import uuid4

from PySide6.QtWidgets import QListView
from pytestqt.qtbot import QtBot

from app.controller import ChatController
from chats.models import ChatInfo
from tests.ui.conftest import TIMEOUT_MS, Seed
from ui.bridge import ChatBridge
from ui.chat.chat_list import PAGE_SIZE, ChatListModel, ChatRole, format_when, preview_of

CHATS = 250


async def many_chats(controller: ChatController) -> None:
    for number in range(CHATS):
        await controller.new_chat(title=f"Chat {number}")


def test_pages_load_lazily_most_recent_first(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(many_chats)
    model = ChatListModel(bridge)
    assert not model.canFetchMore()  # nothing is fetched before the store is open
    bridge.ready.connect(model.refresh)
    with qtbot.waitSignal(bridge.ready, timeout=TIMEOUT_MS):
        bridge.open()
    qtbot.waitUntil(lambda: model.rowCount() == PAGE_SIZE, timeout=TIMEOUT_MS)
    assert model.canFetchMore()

    model.fetchMore()
    assert not model.canFetchMore()  # one request at a time
    qtbot.waitUntil(lambda: model.rowCount() == 2 * PAGE_SIZE, timeout=TIMEOUT_MS)
    model.fetchMore()
    qtbot.waitUntil(lambda: model.rowCount() == CHATS, timeout=TIMEOUT_MS)
    assert model.exhausted
    assert not model.canFetchMore()

    titles = [model.data(model.index(row), ChatRole.TITLE) for row in range(CHATS)]
    assert titles == [f"Chat {number}" for number in reversed(range(CHATS))]
    times = [when for row in range(CHATS) if isinstance(when := model.data(model.index(row), ChatRole.TIME), datetime)]
    assert len(times) == CHATS
    assert times == sorted(times, reverse=True)
    assert str(model.data(model.index(0))).startswith("Chat 249\n")


def test_scrolling_the_view_fetches_the_next_pages(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(many_chats)
    model = ChatListModel(bridge)
    view = QListView()
    qtbot.addWidget(view)
    view.setUniformItemSizes(True)
    view.setModel(model)
    view.resize(300, 400)
    view.show()
    bridge.ready.connect(model.refresh)
    bridge.open()
    qtbot.waitUntil(lambda: model.rowCount() == PAGE_SIZE, timeout=TIMEOUT_MS)
    view.scrollToBottom()
    qtbot.waitUntil(lambda: model.rowCount() == 2 * PAGE_SIZE, timeout=TIMEOUT_MS)
    view.scrollToBottom()
    qtbot.waitUntil(lambda: model.rowCount() == CHATS, timeout=TIMEOUT_MS)


def test_refresh_reloads_from_the_top(qtbot: QtBot, bridge: ChatBridge, seed: Seed) -> None:
    seed(many_chats)
    model = ChatListModel(bridge)
    bridge.ready.connect(model.refresh)
    bridge.open()
    qtbot.waitUntil(lambda: model.rowCount() == PAGE_SIZE, timeout=TIMEOUT_MS)
    with qtbot.waitSignal(bridge.chats_changed, timeout=TIMEOUT_MS):
        bridge.new_chat()
    model.refresh()
    qtbot.waitUntil(lambda: model.data(model.index(0), ChatRole.TITLE) == "New chat", timeout=TIMEOUT_MS)
    assert model.rowCount() == PAGE_SIZE


def info(summary: str | None = None, turns: int = 0) -> ChatInfo:
    now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    return ChatInfo(
        id=uuid4(),
        title=None,
        project_id=None,
        summary_text=summary,
        turn_count=turns,
        last_activity_at=now,
        created_at=now,
    )


def test_the_preview_is_one_short_line() -> None:
    assert preview_of(info()) == "No messages yet"
    assert preview_of(info(turns=1)) == "1 message"
    assert preview_of(info(turns=7)) == "7 messages"
    preview = preview_of(info(summary="The user plans\na trip " + "very " * 40 + "far."))
    assert "\n" not in preview
    assert len(preview) <= 80
    assert preview.endswith("…")


def test_times_are_short() -> None:
    now = datetime(2026, 11, 22, 12, 0, tzinfo=UTC)
    assert format_when(now, now) == now.astimezone().strftime("%H:%M")
    earlier = now - timedelta(days=40)
    assert format_when(earlier, now) == f"{earlier.astimezone():%b} {earlier.astimezone().day}"
    assert format_when(now - timedelta(days=800), now).startswith("2024-")
