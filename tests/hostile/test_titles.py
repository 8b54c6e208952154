"""Titles claimed are titles held: a chat `parley ask` spoke in has its title when the command ends (every list
shows it by name, not as "New chat" until a window or `parley listen` maintains it), and the window's chat list
shows the titles the store holds, even one maintenance wrote after the list was loaded."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from uuid import UUID

import pytest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.runtime import Runtime
from app.wiring import open_chat_services
from chats.models import Turn
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.hostile.conftest import User
from tests.ui.conftest import settings_on_live_server
from tests.ui.voice_window import open_on_microphone
from ui.chat.chat_list import UNTITLED, ChatRole


def test_a_chat_made_by_ask_is_titled_when_the_command_ends(offline: Path, user: User) -> None:
    code, out = user("ask", "Which tiles suit a small bathroom wall?", "--new-chat", "--json")
    assert code == 0, user.err
    [listed] = user.json("chats", "list")
    assert listed["id"] == json.loads(out)["chat_id"]
    assert listed["title"], listed  # the offline title maker's words, made before `ask` exited


MAINTAINED_MS = 120_000
"""The backfill loads the embedding model first: seconds, a minute on a loaded 2-core machine."""


@pytest.fixture
def voice_settings(tmp_path: Path, live_server: FakeGeminiLiveServer) -> Iterator[Settings]:
    env = {"GEMINI_API_KEY": live_server.api_key, "PARLEY_TEXT_MODEL": "offline"}  # the fake writes no titles
    yield from settings_on_live_server(tmp_path, live_server, env)


def untitled_exchanges(settings: Settings, *questions: str) -> list[UUID]:
    """Chats of one exchange each, with no title, topic or recall vectors: as `parley ask` used to leave them."""

    async def create() -> list[UUID]:
        async with open_chat_services(settings) as services:
            turns = [
                [Turn(role="user", text=text), Turn(role="model", text="Let me think about that.")]
                for text in questions
            ]
            return [(await services.store.create(turns=pair)).id for pair in turns]

    return asyncio.run(create())


def stored_titles(settings: Settings, chat_ids: list[UUID]) -> list[str | None]:
    async def read() -> list[str | None]:
        async with open_chat_services(settings) as services:
            return [(await services.store.load_assistant_context(chat_id)).title for chat_id in chat_ids]

    return asyncio.run(read())


def test_a_chat_titled_after_the_list_loaded_shows_its_title(
    qtbot: QtBot, runtime: Runtime, voice_settings: Settings
) -> None:
    chat_ids = untitled_exchanges(
        voice_settings, "Which tiles suit a small bathroom wall?", "How long should a sourdough starter rest?"
    )
    window, _ = open_on_microphone(qtbot, runtime, voice_settings, ready_ms=MAINTAINED_MS)
    chats = window.main.chats

    def shown() -> list[str]:
        rows = [chats.row_of(chat_id) for chat_id in chat_ids]
        return [str(chats.data(chats.index(row), ChatRole.TITLE)) if row is not None else UNTITLED for row in rows]

    qtbot.waitUntil(lambda: UNTITLED not in shown(), timeout=MAINTAINED_MS)  # was "New chat" until a restart
    assert shown() == stored_titles(voice_settings, chat_ids)
