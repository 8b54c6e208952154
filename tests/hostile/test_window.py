"""The window, offscreen: what came from an import, a model, a tool server or the user's own paste shows with its
control characters visible, none of them acting: a right-to-left override never turns a name around, an escape
never hides. The chat list, a held tool call, Settings' tools page (a server's name and error output, a tool's
description) and the search line (the query, the titles found)."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.core.events import ConfirmationAsked
from app.runtime import Runtime
from app.wiring import open_chat_services
from chats.models import Turn
from tests.hostile.around import raw_controls
from tests.hostile.servers import COMPLAINS
from tests.ui.chat_window import open_window
from tests.ui.conftest import TIMEOUT_MS
from ui.bridge import ChatBridge
from ui.chat.chat_list import ChatListModel
from ui.chat.transcript_html import text_html
from ui.settings.tools import ToolsDialog
from ui.shown_text import for_window
from ui.voice.confirmations import HeldCall

OVERRIDE = "invoice\u202eexe.pdf"
ESCAPE = "\x1b[2J"


def test_each_control_character_shows_as_a_sign() -> None:
    assert for_window(OVERRIDE) == "invoice\u27e8U+202E\u27e9exe.pdf"
    assert for_window(ESCAPE) == "\u241b[2J"
    assert for_window("a\tb\nc\x7f") == "a\tb\nc\u2421"
    assert for_window("שלום, caffè, 😀") == "שלום, caffè, 😀"
    assert raw_controls(text_html(f"{OVERRIDE}\n{ESCAPE}")) == []


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
    assert shown.startswith("Bills invoice\u27e8U+202E\u27e9exe.pdf\u241b[2J") and raw_controls(shown) == []


def test_a_tool_call_waiting_for_a_yes_shows_its_arguments_visibly(qtbot: QtBot) -> None:
    held = HeldCall(ConfirmationAsked(confirmation="1", server="notes", tool="delete_note", args={"title": OVERRIDE}))
    qtbot.addWidget(held)
    assert raw_controls(held.label.text()) == [] and "\u27e8U+202E\u27e9" in held.label.text()


TOOL = f"""\
from mcp.server.mcpserver import MCPServer
from mcp.types import ToolAnnotations

server = MCPServer("hostile")


@server.tool(description={f"Tidies up.{ESCAPE} See {OVERRIDE}"!r}, annotations=ToolAnnotations(read_only_hint=True))
def tidy() -> str:
    return "ok"


server.run()
"""
LIST_TIMEOUT_MS = 120_000
"""A Python server imports the SDK before it answers: seconds each on a busy 2-core machine."""


def test_settings_tools_page_shows_a_server_s_name_error_output_and_tool_descriptions_visibly(
    qtbot: QtBot, runtime: Runtime, tmp_path: Path
) -> None:
    named, broken = f"notes{OVERRIDE}", f"broken{ESCAPE}"
    servers = {named: "tool.py", broken: "broken.py"}
    (tmp_path / "tool.py").write_text(TOOL, encoding="utf-8")
    (tmp_path / "broken.py").write_text(COMPLAINS, encoding="utf-8")
    mcp = {
        "mcpServers": {
            name: {"command": sys.executable, "args": [str(tmp_path / script)]} for name, script in servers.items()
        }
    }
    (tmp_path / "mcp.json").write_text(json.dumps(mcp), encoding="utf-8")
    page = ToolsDialog(tmp_path / "mcp.json", runtime)
    qtbot.addWidget(page)
    qtbot.waitUntil(page.refresh_button.isEnabled, timeout=LIST_TIMEOUT_MS)

    server, tool, failing = page.server_item(named), page.tool_item(named, "tidy"), page.server_item(broken)
    assert server.text(0) == "notesinvoice\u27e8U+202E\u27e9exe.pdf"
    assert tool.toolTip(0) == "Tidies up.\u241b[2J See invoice\u27e8U+202E\u27e9exe.pdf"
    assert failing.text(0) == "broken\u241b[2J"
    assert failing.text(1).endswith("bad \u241b[2Jtoken"), failing.text(1)  # its own error output, visible
    shown = [server.text(0), server.text(1), tool.text(0), tool.toolTip(0), failing.text(0), failing.text(1)]
    assert raw_controls("".join(shown)) == []


def test_the_search_line_shows_the_query_and_the_titles_found_visibly(
    qtbot: QtBot, settings: Settings, bridge: ChatBridge
) -> None:
    async def stored_elsewhere() -> None:  # a store written before titles refused control characters
        async with open_chat_services(settings) as services:
            tiles = [
                Turn(role="user", text="Which tiles suit a small bathroom wall?"),
                Turn(role="model", text="Small ones."),
            ]
            await services.store.create(title=f"Tiles {OVERRIDE}{ESCAPE}", turns=tiles)

    asyncio.run(stored_elsewhere())
    window = open_window(qtbot, bridge)
    window.search_box.setText(f"bathroom tiles{ESCAPE}{OVERRIDE}")  # pasted: the keyboard types no ESC
    with qtbot.waitSignal(bridge.search_finished, timeout=TIMEOUT_MS):
        window.run_search()
        searching = window.search_status.text()
    assert searching == "Searching for \u201cbathroom tiles\u241b[2Jinvoice\u27e8U+202E\u27e9exe.pdf\u201d\u2026"
    qtbot.waitUntil(lambda: window.search_status.text() != searching, timeout=TIMEOUT_MS)
    found = window.search_status.text()
    assert found == "Best match: Tiles invoice\u27e8U+202E\u27e9exe.pdf\u241b[2J."
    assert raw_controls(searching + found) == []
