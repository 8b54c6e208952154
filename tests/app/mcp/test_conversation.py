"""A conversation with the user's MCP server: the real voice loop, google-genai client and SQLite store
against the fake Live service, whose model calls the fake MCP server's tools (tests/fakes/mcp_server.py)
through Parley's real MCP client. The user types, as in the window; a typed turn is a user turn like speech."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.app.mcp import fake_server, patient_kit
from tests.app.voice_harness import running_loop
from tests.fakes.gemini_live_scenario import (
    AfterText,
    AfterToolResponse,
    Call,
    CallTools,
    CompleteTurn,
    OutputTranscript,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from voice.audio.synthetic import silence


def said(text: str) -> tuple[OutputTranscript, CompleteTurn]:
    return OutputTranscript(text), CompleteTurn()


def asks(call_id: str, name: str, **args: object) -> tuple[CallTools]:
    return (CallTools((Call(call_id, name, args),)),)


async def test_the_model_calls_the_users_tools_a_refusal_holds_and_a_crash_is_an_answer(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_IDLE_SECONDS", "30")  # one conversation: ended by the test
    ran = environment / "ran.txt"
    gemini_live_server.script(
        script(
            (AfterText(), asks("a", "fake__add", a=2, b=3)),
            (AfterToolResponse("a"), said("Five.")),
            (AfterText(), asks("d1", "fake__delete_note", title="shopping")),
            (AfterToolResponse("d1"), said("Shall I delete the note shopping?")),
            (AfterText(), asks("c1", "confirm_action", confirmation="c1")),
            (AfterToolResponse("c1"), said("I kept it.")),
            (AfterText(), asks("d2", "fake__delete_note", title="work")),
            (AfterToolResponse("d2"), said("Shall I delete the note work?")),
            (AfterText(), asks("c2", "confirm_action", confirmation="c2")),
            (AfterToolResponse("c2"), said("Deleted.")),
            (AfterText(), asks("x", "fake__crash")),
            (AfterToolResponse("x"), said("That tool failed.")),
            (AfterText(), asks("y", "fake__add", a=1, b=1)),
            (AfterToolResponse("y"), said("Its server has stopped.")),
        )
    )
    kit = patient_kit([fake_server(env={"FAKE_MCP_LOG": str(ran)})])
    typed = [
        "What is 2 plus 3?",
        "Delete my shopping note.",
        "No, keep it.",
        "Delete my work note then.",
        "Yes, go ahead.",
        "Now crash.",
        "And 1 plus 1?",
    ]
    async with running_loop(environment, toolkits=lambda services, sink: [kit]) as running:
        running.microphone.feed(silence(240))
        await running.microphone.until_drained()
        for turn, text in enumerate(typed, start=1):
            await running.loop.send_text(text)
            await running.watcher.until(lambda turn=turn: len(running.watcher.spoken()) == 2 * turn)  # type: ignore[misc]
        running.loop.stop()
    sent = await gemini_live_server.connection(0)
    declared = {d["name"]: d for d in sent.function_declarations}
    assert declared["fake__add"]["parameters"]["properties"]["a"]["type"] == "NUMBER"
    assert declared["fake__add"]["behavior"] == "BLOCKING"
    assert "confirm_action" in declared
    answers = {r["id"]: r["response"] for r in sent.tool_responses}
    assert answers["a"]["structured"] == {"sum": 5.0}
    assert answers["d1"]["confirmation"] == "c1" and "Ask the user" in answers["d1"]["needs_confirmation"]
    assert answers["c1"] == {"success": False, "error": "the user did not say yes: the action was not run"}
    assert answers["c2"]["result"] == "Deleted the note work."
    assert ran.read_text(encoding="utf-8") == "deleted work\n"  # never the shopping note
    assert answers["x"] == {"success": False, "error": "the fake server stopped (its connection closed)"}
    assert answers["y"]["success"] is False and "stopped" in answers["y"]["error"]
    assert [t.text for t in running.watcher.spoken()][-2:] == ["And 1 plus 1?", "Its server has stopped."]
