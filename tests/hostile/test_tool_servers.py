"""Tool servers (MCP) that misbehave, from the user's side: one that never answers `initialize` (and ignores
its stdin closing and SIGTERM), one that complains on stderr and exits, one whose tool answers 5 MB. Nothing
hangs on them: `parley ask` answers without them, and Ctrl-C or SIGTERM end it and them (how soon: the 2 s goal
is bench/signals.py's to time; a test's bound is a guard against a hang only); a failing server's own words
are shown, escaped."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys
import time
from pathlib import Path
from uuid import uuid4

import pytest

from app.cli.doctor_command import examine
from app.cli.main import main
from app.config.settings import load_settings
from app.mcp.config import ServerConfig, StdioServer
from app.mcp.server_tools import MAX_TEXT, START_TIMEOUT_S
from bench.signals import SILENT, alive
from tests.app.mcp import patient_kit
from tests.fakes.gemini_live_scenario import AfterText, CompleteTurn, OutputTranscript, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.hostile.around import raw_controls
from tests.hostile.conftest import User
from tests.hostile.servers import BIG_PAGE, COMPLAINS, write_servers

HANG_GUARD_S = 30.0
"""How long a test waits for a signalled `parley` to end: a guard against a hang, not the goal (2 s)."""
CHILD_START_S = 120.0
"""A `parley` in another process starts in seconds, and in a minute on a loaded machine."""


async def parley(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(args))
    out, err = capsys.readouterr()
    assert raw_controls(out + err) == [], (out, err)
    return code, out, err


async def test_ask_answers_without_a_server_that_never_answers_and_names_it(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Hi."), CompleteTurn()))))
    write_servers(environment, silent=SILENT)
    started = time.monotonic()
    code, out, err = await parley(capsys, "ask", "hello")
    took = time.monotonic() - started
    assert (code, out) == (0, "Hi.\n"), err
    [line] = [line for line in err.splitlines() if "MCP server" in line]
    assert f"MCP server silent did not answer within {START_TIMEOUT_S:g} s of starting" in line
    assert took < START_TIMEOUT_S + 20  # its start is bounded: not the 60 s (and a hang) it was
    assert not alive(int((environment / "silent").read_text(encoding="utf-8")))


async def started_with_its_server(folder: Path, *command: str) -> asyncio.subprocess.Process:
    """`parley <command>` in a process of its own, once it has started the silent server in `folder`."""
    write_servers(folder, silent=SILENT)
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli.main",
        *command,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )
    pid_file = folder / "silent"
    deadline = time.monotonic() + CHILD_START_S
    while not pid_file.exists() or not pid_file.read_text(encoding="utf-8"):  # the server was started
        assert child.returncode is None and time.monotonic() < deadline, "parley ended before the server started"
        await asyncio.sleep(0.05)
    return child


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_ends_an_ask_and_its_server_while_the_server_never_answers(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, stop: signal.Signals
) -> None:
    child = await started_with_its_server(environment, "ask", "hello")
    child.send_signal(stop)
    out, err = await asyncio.wait_for(child.communicate(), timeout=HANG_GUARD_S)
    # Ended, and the server killed: how soon (the goal is 2 s) is bench/signals.py's to time.
    assert (child.returncode, out) == (1, b"")
    assert err.decode().splitlines()[-1] == "parley: stopped before the message was sent; nothing was saved"
    assert not alive(int((environment / "silent").read_text(encoding="utf-8")))  # killed, not left behind


async def test_the_offline_voice_starts_no_server(offline: Path, capsys: pytest.CaptureFixture[str]) -> None:
    write_servers(offline, silent=SILENT)
    code, out, err = await parley(capsys, "ask", "hello")
    assert code == 0 and out.strip(), err
    assert not (offline / "silent").exists()
    assert "MCP server" not in err


def test_tools_list_and_doctor_show_a_failing_servers_last_lines_of_error_output(user: User, tmp_path: Path) -> None:
    write_servers(tmp_path, broken=COMPLAINS)
    code, out = user("tools", "list")
    assert code == 1
    assert out.splitlines() == [
        "broken: PROBLEM: stopped (its connection closed)",
        "  | line 4",
        "  | line 5",
        "  | line 6",
        "  | line 7",
        "  | bad \\u001b[2Jtoken",  # escaped: it would clear the screen
    ]
    code, out = user("doctor", "--json")
    [finding] = [f for f in json.loads(out) if f["check"] == "mcp broken"]
    assert finding["status"] == "problem"
    assert finding["detail"].endswith("  | line 7\n  | bad \u001b[2Jtoken")  # exact in JSON: escaped as \u001b


async def test_a_5_mb_answer_reaches_the_model_cut_to_100_kb_with_a_note(tmp_path: Path) -> None:
    (tmp_path / "big.py").write_text(BIG_PAGE, encoding="utf-8")
    server = ServerConfig("big", StdioServer(sys.executable, (str(tmp_path / "big.py"),), {}))
    async with patient_kit([server]) as kit:
        assert {d.name for d in await kit.declarations()} == {"big__page"}
        answer = await kit.call("big__page", {}, chat_id=uuid4())
    text = answer["result"]
    assert text.startswith("x" * MAX_TEXT) and len(text) < MAX_TEXT + 200
    assert text[MAX_TEXT:] == (
        "\n[cut: the answer was 5,000,000 characters; the first 100,000 are above]"
        " [its structured data (5,000,014 characters) was left out]"  # the same text, as {"result": ...}
    )
    assert "structured" not in answer


@pytest.mark.parametrize("command", [("tools", "list"), ("doctor",)])
@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
async def test_a_signal_ends_tools_list_and_doctor_and_stops_their_server(
    environment: Path, command: tuple[str, ...], stop: signal.Signals
) -> None:
    child = await started_with_its_server(environment, *command)
    child.send_signal(stop)
    await asyncio.wait_for(child.communicate(), timeout=HANG_GUARD_S)
    assert child.returncode == 130  # as after Ctrl-C; SIGTERM's default action would be -15, the server left running
    assert not alive(int((environment / "silent").read_text(encoding="utf-8")))


async def test_a_cancelled_doctor_has_stopped_its_server_when_it_ends(environment: Path) -> None:
    """`doctor` checks everything at once; with `gather`, a Ctrl-C ended it with its first cancelled check,
    while the server still stopped, and the loop's end then cut that short: the command hung on the server
    (5 of 12 runs) or left it running."""
    write_servers(environment, silent=SILENT)
    checks = asyncio.create_task(examine(load_settings()))
    pid_file = environment / "silent"
    deadline = time.monotonic() + CHILD_START_S
    while not pid_file.exists() or not pid_file.read_text(encoding="utf-8"):  # the server was started
        assert not checks.done() and time.monotonic() < deadline, "doctor ended before the server started"
        await asyncio.sleep(0.05)
    checks.cancel()
    with pytest.raises(asyncio.CancelledError):
        await checks
    assert not alive(int(pid_file.read_text(encoding="utf-8")))  # stopped before doctor ended, not after
