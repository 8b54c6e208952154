"""`parley ask` and a tool that asks first: it has no second turn for a spoken yes, so the one who typed it is
asked on the terminal (a real pseudo-terminal here), `--yes` allows without asking, and with no terminal the
tool is refused in one line naming `--yes`. The same, over the socket, when a Parley runs on these chats.
The real `parley ask`, google-genai client against the fake Live service, real MCP client and stdio server
(tests/fakes/mcp_server.py), real SQLite store."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from app.cli.main import main
from app.cli.tool_consent import approves, question
from app.mcp.toolkit import ASKER_REFUSED
from tests.app.mcp import fake_server, patient_kit, write_mcp_json
from tests.app.voice_harness import running_loop
from tests.fakes.gemini_live_scenario import (
    AfterText,
    AfterToolResponse,
    Call,
    CallTools,
    CompleteTurn,
    OutputTranscript,
)
from tests.fakes.gemini_live_scenario import script as scenario
from tests.fakes.gemini_live_server import FakeGeminiLiveServer


def deleting(title: str) -> Any:
    """The model deletes the note `title` when asked, then says what came of it."""
    return scenario(
        (AfterText(), (CallTools((Call("d", "fake__delete_note", {"title": title}),)),)),
        (AfterToolResponse("d"), (OutputTranscript("Done with that."), CompleteTurn())),
    )


async def parley(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(args))
    out, err = capsys.readouterr()
    return code, out, err


@contextmanager
def terminal_typing(monkeypatch: pytest.MonkeyPatch, typed: str) -> Iterator[None]:
    """Standard input on a real pseudo-terminal where `typed` was typed ahead (its line discipline keeps it)."""
    leader, follower = os.openpty()
    with os.fdopen(follower, encoding="utf-8") as stdin, monkeypatch.context() as patch:
        patch.setattr("sys.stdin", stdin)
        os.write(leader, typed.encode())
        try:
            yield
        finally:
            os.close(leader)


async def tool_answer(server: FakeGeminiLiveServer, connection: int = 0) -> dict[str, Any]:
    sent = await server.connection(connection)
    [response] = [r["response"] for r in sent.tool_responses if r["id"] == "d"]
    return dict(response)


async def test_ask_with_no_terminal_refuses_the_tool_in_one_line_and_yes_allows_it(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    ran = environment / "ran.txt"
    write_mcp_json(environment / "mcp.json", [fake_server(env={"FAKE_MCP_LOG": str(ran)})])
    gemini_live_server.script(deleting("shopping"), deleting("work"))

    code, out, err = await parley(capsys, "ask", "Delete my shopping note.")  # pytest's stdin is no terminal
    assert (code, out) == (1, "Done with that.\n")
    assert err.strip().splitlines()[-1] == (
        "parley: did not run delete_note on fake: it asks before it runs and there is no terminal to ask on; "
        "pass --yes to allow tools that ask first"
    )
    assert await tool_answer(gemini_live_server, 0) == {"success": False, "error": ASKER_REFUSED}
    assert not ran.exists()

    code, out, err = await parley(capsys, "ask", "--yes", "Delete my work note.")
    assert (code, out) == (0, "Done with that.\n"), err
    assert (await tool_answer(gemini_live_server, 1))["result"] == "Deleted the note work."
    assert ran.read_text(encoding="utf-8") == "deleted work\n"


async def test_ask_on_a_terminal_asks_and_runs_the_tool_only_on_yes(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran = environment / "ran.txt"
    write_mcp_json(environment / "mcp.json", [fake_server(env={"FAKE_MCP_LOG": str(ran)})])
    gemini_live_server.script(deleting("shopping"), deleting("work"))

    with terminal_typing(monkeypatch, "\n"):  # Enter alone: the default, no
        code, out, err = await parley(capsys, "ask", "Delete my shopping note.")
    assert (code, out) == (0, "Done with that.\n"), err
    assert 'Run delete_note on fake with {"title": "shopping"}? [y/N] ' in err
    assert await tool_answer(gemini_live_server, 0) == {"success": False, "error": ASKER_REFUSED}

    with terminal_typing(monkeypatch, "y\n"):
        code, out, err = await parley(capsys, "ask", "Delete my work note.")
    assert (code, out) == (0, "Done with that.\n"), err
    assert 'Run delete_note on fake with {"title": "work"}? [y/N] ' in err
    assert ran.read_text(encoding="utf-8") == "deleted work\n"  # never the shopping note


async def test_a_running_parley_asks_the_one_who_typed_over_its_socket(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("PARLEY_IDLE_SECONDS", "30")  # one conversation, both questions in it
    ran = environment / "ran.txt"
    gemini_live_server.script(
        scenario(
            (AfterText(), (CallTools((Call("d", "fake__delete_note", {"title": "shopping"}),)),)),
            (AfterToolResponse("d"), (OutputTranscript("Deleted."), CompleteTurn())),
            (AfterText(), (CallTools((Call("e", "fake__delete_note", {"title": "work"}),)),)),
            (AfterToolResponse("e"), (OutputTranscript("Kept."), CompleteTurn())),
        )
    )
    kit = patient_kit([fake_server(env={"FAKE_MCP_LOG": str(ran)})])
    async with running_loop(environment, toolkits=lambda services, sink: [kit]) as running:
        with terminal_typing(monkeypatch, "yes\n"):
            code, out, err = await parley(capsys, "ask", "Delete my shopping note.")
        assert (code, out) == (0, "Deleted.\n"), err
        assert 'Run delete_note on fake with {"title": "shopping"}? [y/N] ' in err
        code, out, err = await parley(capsys, "ask", "Delete my work note.")  # from a script: refused
        assert (code, out) == (1, "Kept.\n")
        assert "pass --yes to allow tools that ask first" in err
        running.loop.stop()
    sent = await gemini_live_server.connection(0)
    answers = {r["id"]: r["response"] for r in sent.tool_responses}
    assert answers["d"]["result"] == "Deleted the note shopping."
    assert answers["e"] == {"success": False, "error": ASKER_REFUSED}
    assert ran.read_text(encoding="utf-8") == "deleted shopping\n"


def test_the_prompt_names_the_tool_its_server_and_arguments_and_only_y_or_yes_is_yes() -> None:
    assert question("notes", "delete_note", {"title": "é"}) == 'Run delete_note on notes with {"title": "é"}? [y/N] '
    assert question("notes", "clear", {}) == "Run clear on notes? [y/N] "
    assert [approves(r) for r in ("y\n", " YES ", "Yes", "", "\n", "n", "yeah", "no")] == [True] * 3 + [False] * 5
