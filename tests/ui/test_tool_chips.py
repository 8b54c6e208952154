"""Tool chips: the words for what a tool did, and where they show in the transcript."""

from __future__ import annotations

import dataclasses
from uuid import UUID, uuid4

from PySide6.QtGui import QColor, QPalette
from pytestqt.qtbot import QtBot

from chats.models import Chat, Turn, utc_now
from ui.chat.delegate import soft_ink
from ui.chat.transcript import TranscriptView
from ui.tool_chips import ToolChip, chip_chat, chip_text, running_chip_text


def test_each_chat_tool_answer_has_its_words() -> None:
    kitchen = str(uuid4())
    assert chip_text("switch_chat", {}, {"outcome": "switched", "chat_id": kitchen, "title": "Kitchen"}) == (
        "Switched to chat: Kitchen",
        False,
    )
    assert chip_text("switch_chat", {}, {"outcome": "ask", "options": [{}, {}]}) == (
        "Found 2 chats that could fit",
        False,
    )
    assert chip_text("switch_chat", {}, {"outcome": "none"}) == ("No earlier chat matched", False)
    assert chip_text("new_chat", {}, {"outcome": "switched", "chat_id": kitchen}) == ("Started a new chat", False)
    assert chip_text("list_recent_chats", {}, {"chats": [{}]}) == ("Listed 1 recent chats", False)
    assert chip_text("switch_chat", {}, {"error": {"code": "unavailable"}}) == ("Switching chats failed", True)
    assert chip_text("end_conversation", {}, {"outcome": "ending"}) is None


def test_a_look_at_the_screen_says_its_size_or_the_sentence_that_says_why_not() -> None:
    assert running_chip_text("look_at_screen") == "Looking at your screen…"
    shown = {"shown": True, "width": 1280, "height": 720, "jpeg_bytes": 150_000}
    assert chip_text("look_at_screen", {}, shown) == ("Showed your screen to Gemini (1280 x 720 pixels)", False)
    refused = {"shown": False, "say": "I can't see your screen: taking a picture of it was refused."}
    assert chip_text("look_at_screen", {}, refused) == (refused["say"], True)


def test_memory_chips_say_what_spec_001_says() -> None:
    mia = {"content": "User's daughter is called Mia"}
    assert running_chip_text("save_memory") == "Saving to memory…"
    assert running_chip_text("switch_chat") is None  # quick: only its answer shows
    saved = {"success": True, "content": mia["content"], "memoryId": "m", "category": "relationship"}
    assert chip_text("save_memory", mia, saved) == ("Saved to memory: User's daughter is called Mia", False)
    duplicate = {"success": False, "duplicate": True, "existingContent": "User's daughter is Mia"}
    assert chip_text("save_memory", mia, duplicate) == ("Already saved: User's daughter is Mia", False)
    assert chip_text("save_memory", mia, {"success": False, "error": "x"}) == ("Failed to save", True)
    assert chip_text("add_memory", mia, {"success": True, "memoryId": "m"}) == (
        "Saved to memory: User's daughter is called Mia",
        False,
    )
    assert chip_text("search_memories", {}, {"success": True, "results": [{}, {}]}) == ("Found 2 in memory", False)
    assert chip_text("forget_memory", {}, {"success": True, "content": "User works at Acme"}) == (
        "Forgot: User works at Acme",
        False,
    )
    assert chip_text("forget_memory", {}, {"success": False, "choices": []}) == ("Asked which memory to forget", False)
    assert chip_text("recall_conversations", {}, {"success": True, "results": [{}]}) == (
        "Looked through earlier chats: 1 found",
        False,
    )
    assert chip_text("update_working_memory", {}, {"success": True}) == ("Updated the notes for this chat", False)


def test_the_answer_replaces_the_running_chip(qtbot: QtBot) -> None:
    view = TranscriptView()
    qtbot.addWidget(view)
    shown = chat("Remember that my daughter is called Mia.")
    view.show_chat(shown)
    view.add_chip(shown.id, ToolChip("Saving to memory…", call_id="c-1", running=True))
    assert "Saving to memory…" in view.toPlainText()
    view.add_chip(shown.id, ToolChip("Saved to memory: User's daughter is called Mia", call_id="c-1"))
    text = view.toPlainText()
    assert "Saving to memory…" not in text
    assert text.count("Saved to memory") == 1


def test_a_switch_chip_belongs_to_the_chat_switched_to() -> None:
    current, other = uuid4(), uuid4()
    assert chip_chat("switch_chat", {"outcome": "switched", "chat_id": str(other)}, current) == other
    assert chip_chat("switch_chat", {"outcome": "ask"}, current) == current
    assert chip_chat("list_recent_chats", {"chats": []}, current) == current


def chat(*texts: str, chat_id: UUID | None = None) -> Chat:
    now = utc_now()
    turns = tuple(Turn(role="user" if i % 2 == 0 else "model", text=text) for i, text in enumerate(texts))
    return Chat(
        id=chat_id or uuid4(),
        user_id="local",
        project_id=None,
        title="Kitchen",
        full_history=turns,
        assistant_history=turns,
        summary=None,
        last_activity_at=now,
        created_at=now,
        version=1,
    )


def test_chips_stay_between_the_turns_they_came_between(qtbot: QtBot) -> None:
    view = TranscriptView()
    qtbot.addWidget(view)
    shown = chat("first question", "first answer")
    view.show_chat(shown)
    view.add_chip(shown.id, ToolChip("Listed 3 recent chats"))
    view.add_live_turn(Turn(role="user", text="second question"))
    assert view.toPlainText().index("first answer") < view.toPlainText().index("Listed 3")
    # The save's reload brings the live turn from the store: the chip keeps its place before it.
    view.show_chat(chat("first question", "first answer", "second question", chat_id=shown.id))
    text = view.toPlainText()
    assert text.index("first answer") < text.index("Listed 3") < text.index("second question")


def test_the_save_of_turns_shown_live_does_not_render_the_chat_again(qtbot: QtBot) -> None:
    view, fresh = TranscriptView(), TranscriptView()
    qtbot.addWidget(view)
    qtbot.addWidget(fresh)
    shown = chat("first question", "first answer")
    view.show_chat(shown)
    view.add_live_turn(Turn(role="user", text="second question"))
    view.add_live_turn(Turn(role="model", text="second answer"))
    revision = view.document().revision()
    saved = chat("first question", "first answer", "second question", "second answer", chat_id=shown.id)
    view.show_chat(saved)
    assert view.document().revision() == revision
    assert view.chat == saved
    fresh.show_chat(saved)
    assert view.toPlainText() == fresh.toPlainText()
    # Anything else in the reload (here a new title) renders the chat again.
    view.show_chat(dataclasses.replace(saved, title="Tiles"))
    assert view.document().revision() != revision
    assert "Tiles" in view.toPlainText()


def test_a_chip_for_a_chat_not_shown_appears_when_it_is(qtbot: QtBot) -> None:
    view = TranscriptView()
    qtbot.addWidget(view)
    here, there = chat("here"), chat("there, earlier")
    view.show_chat(here)
    view.add_chip(there.id, ToolChip("Switched to chat: Kitchen"))
    assert "Switched" not in view.toPlainText()
    view.show_chat(there)
    text = view.toPlainText()
    assert text.index("there, earlier") < text.index("Switched to chat: Kitchen")


def contrast(a: QColor, b: QColor) -> float:
    def luminance(colour: QColor) -> float:
        def channel(value: float) -> float:
            return value / 12.92 if value <= 0.03928 else ((value + 0.055) / 1.055) ** 2.4

        return 0.2126 * channel(colour.redF()) + 0.7152 * channel(colour.greenF()) + 0.0722 * channel(colour.blueF())

    light, dark = sorted((luminance(a), luminance(b)), reverse=True)
    return (light + 0.05) / (dark + 0.05)


def test_the_second_line_of_a_row_stays_readable() -> None:
    palette = QPalette()
    for ink, fill in (("#000000", "#ffffff"), ("#ffffff", "#1e1e1e")):
        palette.setColor(QPalette.ColorRole.Text, QColor(ink))
        palette.setColor(QPalette.ColorRole.Base, QColor(fill))
        soft = soft_ink(palette, QPalette.ColorGroup.Normal, selected=False)
        assert contrast(soft, QColor(fill)) >= 4.5, (ink, fill)
