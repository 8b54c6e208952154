"""`parley tools list` and `parley doctor` on a real `mcp.json` naming the fake MCP server."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from app.cli.main import main
from tests.app.conftest import Parley
from tests.app.mcp import FAKE_SERVER

SERVERS = {
    "mcpServers": {
        "fake": {"command": sys.executable, "args": [str(FAKE_SERVER)], "disabledTools": ["hang"]},
        "off": {"command": sys.executable, "args": [str(FAKE_SERVER)], "disabled": True},
        "gone": {"command": "/nonexistent/mcp-server"},
    }
}


def write_servers(folder: Path) -> None:
    (folder / "mcp.json").write_text(json.dumps(SERVERS), encoding="utf-8")


def test_tools_list_names_each_tool_as_the_model_sees_it(parley: Parley, tmp_path: Path) -> None:
    write_servers(tmp_path)
    code, out = parley("tools", "list")
    assert code == 1  # one server does not start
    lines = out.splitlines()
    assert lines[0].startswith("fake: 5 tool(s), started in ")
    assert lines[1].split() == ["fake__add", "runs", "at", "once", "Add", "two", "numbers."]
    assert lines[2].split()[:3] == ["fake__delete_note", "asks", "first"]
    assert "  hang " in out and "off" in next(line for line in lines if " hang " in line)
    assert "off: switched off" in lines
    assert "gone: PROBLEM: cannot be started (No such file or directory)" in lines

    code, out = parley("tools", "list", "--json")
    listed = json.loads(out)
    assert listed["file"] == str(tmp_path / "mcp.json")
    fake, off, gone = listed["servers"]
    assert (fake["name"], fake["transport"], fake["enabled"], fake["error"]) == ("fake", "stdio", True, None)
    assert fake["tools"][1] == {
        "name": "fake__delete_note",
        "tool": "delete_note",
        "enabled": True,
        "asks_first": True,
        "description": "Delete a note by its title.",
    }
    assert [t["enabled"] for t in fake["tools"]] == [True, True, True, False, True]
    assert (off["enabled"], off["tools"], gone["error"]) == (False, [], "cannot be started (No such file or directory)")


def test_without_servers_tools_list_says_where_they_go_and_a_wrong_file_is_one_line(
    parley: Parley, tmp_path: Path
) -> None:
    assert parley("tools", "list") == (
        0,
        f"No MCP servers: add them to {tmp_path / 'mcp.json'} (see docs/guide/tools.md).\n",
    )
    (tmp_path / "mcp.json").write_text('{"mcpServers": {"x": {}}}', encoding="utf-8")
    code, out = parley("tools", "list")
    assert (code, out) == (1, "")
    assert parley.err.strip().endswith("server 'x': needs a 'command' to run or an http(s) 'url'")
    assert len(parley.err.strip().splitlines()) == 1


async def test_doctor_checks_each_server(environment: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_servers(environment)
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["doctor", "--json"])
    findings = {f["check"]: f for f in json.loads(capsys.readouterr().out)}
    assert code == 1
    assert findings["mcp fake"] == {
        "check": "mcp fake",
        "status": "ok",
        "detail": "5 tool(s): add, delete_note, crash, hang, echo_secret",
    }
    assert findings["mcp off"]["detail"] == "switched off in mcp.json"
    assert findings["mcp gone"] == {
        "check": "mcp gone",
        "status": "problem",
        "detail": "cannot be started (No such file or directory)",
    }
