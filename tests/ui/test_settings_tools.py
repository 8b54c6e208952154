"""The Settings' page of the user's own tools, from the user's side: the real stdio MCP test server listed on
the runtime thread, switches saved into `mcp.json`, and the voice loop's toolkit reading them."""

from __future__ import annotations

import json
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtTest import QTest
from pytestqt.qtbot import QtBot

from app.config.settings import Settings
from app.mcp.config import ServerConfig, StdioServer, read_servers
from app.mcp.toolkit import McpToolKit
from app.runtime import Runtime
from tests.app.mcp import fake_server, patient_kit, write_mcp_json
from ui.settings.dialog import SettingsDialog
from ui.settings.tools import LISTING, SWITCHED_OFF, ToolsDialog, children

LIST_TIMEOUT_MS = 120_000
"""A Python server imports the SDK before it answers: seconds each on a busy 2-core machine."""


def listed(qtbot: QtBot, page: ToolsDialog) -> None:
    qtbot.waitUntil(page.refresh_button.isEnabled, timeout=LIST_TIMEOUT_MS)


def test_the_page_lists_each_server_and_its_tools_and_a_broken_one_says_why(
    qtbot: QtBot, settings: Settings, runtime: Runtime, tmp_path: Path
) -> None:
    missing = ServerConfig("missing", StdioServer(str(tmp_path / "no-such-server")))
    write_mcp_json(
        tmp_path / "mcp.json",
        [fake_server("notes", disabled_tools=frozenset({"hang"})), missing, fake_server("off", disabled=True)],
    )
    dialog = SettingsDialog(settings, runtime, devices=list, env={})
    qtbot.addWidget(dialog)
    QTest.mouseClick(dialog.tools_button, Qt.MouseButton.LeftButton)
    page = dialog.findChild(ToolsDialog)
    assert isinstance(page, ToolsDialog) and page.isVisible()
    assert page.server_item("notes").text(1) == LISTING  # shown at once, listed on the runtime
    assert not page.tree.isEnabled() and not page.save_button.isEnabled()
    listed(qtbot, page)

    notes = page.server_item("notes")
    assert notes.text(1) == "started, 5 tools"
    assert notes.checkState(0) == Qt.CheckState.Checked
    assert [tool.text(0) for tool in children(notes)] == [
        "add",
        "delete_note",
        "crash",
        "hang",
        "echo_secret",
    ]
    assert page.tool_item("notes", "add").text(1) == "read-only, runs at once"
    assert page.tool_item("notes", "delete_note").text(1) == "destructive, asks before running"
    assert page.tool_item("notes", "hang").checkState(0) == Qt.CheckState.Unchecked
    broken = page.server_item("missing").text(1)
    assert broken.startswith("could not start: cannot be started (") and "\n" not in broken
    off = page.server_item("off")
    assert (off.text(1), off.checkState(0), off.childCount()) == (SWITCHED_OFF, Qt.CheckState.Unchecked, 0)
    assert page.error.isHidden() and page.tree.isEnabled() and page.save_button.isEnabled()


def test_a_tool_switched_off_and_saved_is_left_out_of_the_next_conversation(
    qtbot: QtBot, runtime: Runtime, tmp_path: Path
) -> None:
    path = write_mcp_json(tmp_path / "mcp.json", [fake_server("notes"), fake_server("off", disabled=True)], note="hi")
    # As `mcp_toolkits(settings.config_file)` makes it, but patient: a server may take longer to start here
    # than a conversation waits (`DECLARE_WAIT_S`).
    kit = patient_kit(list(read_servers(path)), source=path)
    before = runtime.submit(_names(kit)).result(timeout=LIST_TIMEOUT_MS / 1000)
    assert "notes__delete_note" in before

    page = ToolsDialog(path, runtime)
    qtbot.addWidget(page)
    listed(qtbot, page)
    page.tool_item("notes", "delete_note").setCheckState(0, Qt.CheckState.Unchecked)
    page.server_item("off").setCheckState(0, Qt.CheckState.Checked)
    page.server_item("notes").setCheckState(0, Qt.CheckState.Unchecked)
    assert page.tool_item("notes", "add").isDisabled()  # its server is off
    page.server_item("notes").setCheckState(0, Qt.CheckState.Checked)
    assert not page.tool_item("notes", "add").isDisabled()
    QTest.mouseClick(page.save_button, Qt.MouseButton.LeftButton)

    assert page.result() == ToolsDialog.DialogCode.Accepted
    saved = json.loads(path.read_text(encoding="utf-8"))
    assert saved["note"] == "hi"
    assert saved["mcpServers"]["notes"]["disabledTools"] == ["delete_note"]
    assert saved["mcpServers"]["off"]["disabled"] is False
    after = runtime.submit(_names(kit)).result(timeout=LIST_TIMEOUT_MS / 1000)
    runtime.submit(kit.__aexit__(None, None, None)).result(timeout=30)
    assert "notes__delete_note" not in after and "notes__add" in after
    assert {"off__add", "off__delete_note"} <= after


def test_no_file_says_where_to_write_one(qtbot: QtBot, runtime: Runtime, tmp_path: Path) -> None:
    page = ToolsDialog(tmp_path / "mcp.json", runtime)
    qtbot.addWidget(page)
    assert page.note.text().startswith(f"No MCP servers yet: name them in {tmp_path / 'mcp.json'}")
    assert not page.save_button.isEnabled() and page.refresh_button.isEnabled()
    (tmp_path / "mcp.json").write_text('{"mcpServers": {"x": {}}}', encoding="utf-8")
    QTest.mouseClick(page.refresh_button, Qt.MouseButton.LeftButton)
    assert (
        page.error.text() == f"Error: {tmp_path / 'mcp.json'}: server 'x': needs a 'command' to run or an http(s) 'url'"
    )
    assert page.tree.topLevelItemCount() == 0 and not page.save_button.isEnabled()


async def _names(kit: McpToolKit) -> set[str]:
    return {declaration.name for declaration in await kit.declarations()}
