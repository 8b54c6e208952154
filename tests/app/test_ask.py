"""`parley ask` end to end: no microphone and no wake word model; the real google-genai client against the
fake Live server (or, with no key, the offline voice), the real tools, SQLite store and journal."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import sys
import wave
from contextlib import closing
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from app.cli.ask_command import ask
from app.cli.main import main
from app.config.settings import load_settings
from tests.fakes.gemini_live_scenario import (
    AfterText,
    AfterToolResponse,
    Audio,
    Call,
    CallTools,
    CompleteTurn,
    OutputTranscript,
    SearchedWeb,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from voice.audio.earcon import earcon

VOICE = bytes(range(256)) * 30
"""160 ms of 24 kHz model voice."""
CHILD_START_S = 120.0
"""A `parley` in another process starts in seconds, and in a minute on a loaded machine."""
MIA = {
    "content": "User's daughter is called Mia",
    "category": "relationship",
    "reasoning": "A family member the user will mention again.",
}


async def parley(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(args))
    out, err = capsys.readouterr()
    return code, out, err


async def chats(capsys: pytest.CaptureFixture[str]) -> list[dict[str, Any]]:
    code, out, _ = await parley(capsys, "chats", "list", "--json")
    assert code == 0
    listed: list[dict[str, Any]] = json.loads(out)
    return listed


async def texts_of(capsys: pytest.CaptureFixture[str], chat_id: str) -> list[tuple[str, str]]:
    code, out, _ = await parley(capsys, "chats", "show", chat_id, "--json")
    assert code == 0
    return [(t["role"], t["parts"][0]["text"]) for t in json.loads(out)["full_history"]]


def files_in(folder: Path) -> list[str]:
    return sorted(path.name for path in folder.iterdir())


async def test_a_typed_question_is_answered_printed_and_saved(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(
        script((AfterText(), (OutputTranscript("Milk, eggs "), OutputTranscript("and bread."), CompleteTurn())))
    )
    code, out, err = await parley(capsys, "ask", "  What is on my shopping list?  ")
    assert code == 0, err
    assert out == "Milk, eggs and bread.\n"
    [chat] = await chats(capsys)
    assert await texts_of(capsys, chat["id"]) == [
        ("user", "What is on my shopping list?"),
        ("model", "Milk, eggs and bread."),
    ]
    sent = await gemini_live_server.connection(0)
    assert sent.texts == ["What is on my shopping list?"]
    assert sent.audio == b""  # no microphone: nothing was streamed


async def test_an_answer_from_the_web_comes_with_its_sources_printed_and_saved(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    page = ("bbc.co.uk", "https://vertexaisearch.cloud.google.com/grounding-api-redirect/AbC1")
    searched = SearchedWeb((page,), queries=("rome weather tomorrow",), supported="Sunny")
    answer = (OutputTranscript("Sunny, 24 degrees."), searched, CompleteTurn())
    gemini_live_server.script(script((AfterText(), answer)), script((AfterText(), answer)))
    code, out, err = await parley(capsys, "ask", "Weather in Rome tomorrow?")
    assert (code, out) == (0, f"Sunny, 24 degrees.\n  {page[0]}: {page[1]}\n"), err
    code, out, err = await parley(capsys, "ask", "Weather in Rome tomorrow?", "--json")
    assert code == 0, err
    assert json.loads(out)["sources"] == [{"title": page[0], "uri": page[1]}]
    [chat] = await chats(capsys)
    code, out, _ = await parley(capsys, "chats", "show", chat["id"], "--json")
    model_turns = [t for t in json.loads(out)["full_history"] if t["role"] == "model"]
    assert [t["sources"] for t in model_turns] == [[{"title": page[0], "uri": page[1]}]] * 2
    assert [t["searches"] for t in model_turns] == [["rome weather tomorrow"]] * 2
    assert all(connection.searches_google for connection in gemini_live_server.connections)


async def test_with_web_search_off_gemini_is_not_offered_google_search(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    (environment / "config.toml").write_text("web_search = false\n", encoding="utf-8")
    gemini_live_server.script(script((AfterText(), (OutputTranscript("I can't check that."), CompleteTurn()))))
    code, out, err = await parley(capsys, "ask", "Weather in Rome tomorrow?")
    assert (code, out) == (0, "I can't check that.\n"), err
    sent = await gemini_live_server.connection(0)
    assert not sent.searches_google and sent.function_declarations  # Parley's own tools are still there


async def test_json_gives_the_chat_both_turns_and_the_tools_used_and_the_voice_goes_to_a_file(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(
        script(
            (AfterText(), (CallTools((Call("m-1", "save_memory", MIA),)),)),
            (AfterToolResponse("m-1"), (OutputTranscript("I'll remember Mia."), Audio(VOICE), CompleteTurn())),
        ),
        script((AfterText(), (OutputTranscript("Mia, of course."), CompleteTurn()))),
    )
    reply = environment / "reply.wav"
    code, out, err = await parley(
        capsys, "ask", "Remember that my daughter is called Mia.", "--new-chat", "--json", "--audio-out", str(reply)
    )
    assert code == 0, err
    answer = json.loads(out)
    assert answer["user"] == "Remember that my daughter is called Mia."
    assert answer["model"] == "I'll remember Mia."
    [tool] = answer["tool_calls"]
    assert tool["name"] == "save_memory" and tool["args"] == MIA and tool["result"]["success"] is True
    assert await texts_of(capsys, answer["chat_id"]) == [
        ("user", "Remember that my daughter is called Mia."),
        ("model", "I'll remember Mia."),
    ]
    with wave.open(str(reply), "rb") as voice:
        assert voice.getframerate() == 24_000
        assert voice.readframes(voice.getnframes()) == earcon().pcm + VOICE
    assert [name for name in files_in(environment) if "partial" in name] == []

    # The next ask continues the most recent chat, the memory known from the start.
    code, out, err = await parley(capsys, "ask", "What's my daughter's name?")
    assert (code, out) == (0, "Mia, of course.\n"), err
    assert len(await texts_of(capsys, answer["chat_id"])) == 4
    assert MIA["content"] in json.dumps(gemini_live_server.connections[1].setup)


async def test_an_unknown_chat_is_one_line_and_nothing_is_made(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = str(uuid4())
    code, out, err = await parley(capsys, "ask", "Hello?", "--chat", missing)
    assert (code, out) == (1, "")
    assert err == f"parley: no chat with id {missing}\n"
    code, _, err = await parley(capsys, "ask", "Hello?", "--chat", "kitchen")
    assert (code, err) == (1, "parley: not a chat id: 'kitchen'\n")
    assert await chats(capsys) == []
    assert gemini_live_server.connections == []


async def test_a_refused_key_fails_the_command_and_leaves_no_empty_chat_nor_half_a_file(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", "a-wrong-key")
    reply = environment / "reply.wav"
    code, out, err = await parley(capsys, "ask", "Hello?", "--new-chat", "--audio-out", str(reply))
    assert (code, out) == (1, "")
    [line] = err.splitlines()
    assert "Gemini Live refused the API key" in line and "a-wrong-key" not in line
    assert await chats(capsys) == []
    assert files_in(environment) == ["ca.pem", "config.toml", "data"]


async def test_no_network_is_one_plain_sentence_with_a_hint(
    environment: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, unused_tcp_port: int
) -> None:
    monkeypatch.setenv("PARLEY_GEMINI_BASE_URL", f"https://127.0.0.1:{unused_tcp_port}")  # nobody listens there
    code, out, err = await parley(capsys, "ask", "Hello?", "--new-chat")
    assert (code, out) == (1, "")
    assert err == (
        "parley: cannot reach Gemini Live (ConnectionRefusedError): check the network, or PARLEY_GEMINI_BASE_URL"
        " if set\n"
    )
    assert await chats(capsys) == []


async def test_audio_out_into_a_missing_folder_is_refused_before_anything_is_sent(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = await parley(capsys, "ask", "Hello?", "--audio-out", str(environment / "nowhere" / "a.wav"))
    assert code == 1 and err.startswith("parley: cannot write audio to") and "does not exist" in err
    assert await chats(capsys) == []
    assert gemini_live_server.connections == []


async def test_without_a_key_the_offline_voice_answers_and_speaks_to_the_file(
    offline: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = await parley(capsys, "memories", "add", "My daughter is called Mia and she loves horses.")
    assert code == 0, err
    reply = offline / "reply.wav"
    code, out, err = await parley(
        capsys, "ask", "What do you remember about my daughter?", "--json", "--audio-out", str(reply)
    )
    assert code == 0, err
    answer = json.loads(out)
    [tool] = answer["tool_calls"]
    assert tool["name"] == "search_memories" and "Mia" in tool["result"]["results"][0]["content"]
    assert "Mia" in answer["model"]
    assert await texts_of(capsys, answer["chat_id"]) == [
        ("user", "What do you remember about my daughter?"),
        ("model", answer["model"]),
    ]
    with wave.open(str(reply), "rb") as voice:
        spoken = voice.readframes(voice.getnframes())[len(earcon().pcm) :]
    assert len(spoken) > 24_000 * 2  # over a second of espeak-ng after the chime


@pytest.mark.parametrize("stop", [signal.SIGTERM, signal.SIGINT])
async def test_an_ask_stopped_before_its_answer_saves_the_question_once_and_leaves_no_journal(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    capsys: pytest.CaptureFixture[str],
    stop: signal.Signals,
) -> None:
    # The model starts an answer it never finishes: the command is stopped while it waits.
    gemini_live_server.script(
        script((AfterText(), (OutputTranscript("Let me see"),))),
        script((AfterText(), (OutputTranscript("Milk."), CompleteTurn()))),
    )
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli.main",
        "ask",
        "What is on my shopping list?",
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )
    asked = asyncio.create_task(
        gemini_live_server.wait_until(
            lambda: bool(gemini_live_server.connections) and bool(gemini_live_server.connections[0].texts),
            timeout_s=CHILD_START_S,
        )
    )
    ended = asyncio.create_task(child.wait())
    await asyncio.wait({asked, ended}, return_when=asyncio.FIRST_COMPLETED)
    assert not ended.done(), (await child.communicate())[1].decode()  # it failed before asking
    await asked
    child.send_signal(stop)
    out, err = await child.communicate()
    [chat] = await chats(capsys)
    assert (child.returncode, out) == (1, b"")
    assert err.decode().splitlines()[-1] == (
        f"parley: stopped before the answer; the question is saved in chat {chat['id']}"
    )
    assert not (environment / "data" / "journal.jsonl").exists()  # nothing left for the next ask to replay
    code, out_text, _ = await parley(capsys, "ask", "Just milk then?")
    assert (code, out_text) == (0, "Milk.\n")
    assert await texts_of(capsys, chat["id"]) == [
        ("user", "What is on my shopping list?"),
        ("user", "Just milk then?"),
        ("model", "Milk."),
    ]


async def test_offline_the_answer_is_told_once_saved_and_the_chat_titled_before_the_ask_ends(offline: Path) -> None:
    # Told before the title: `parley ask` prints it then, and a reader has it while the chat is titled.
    store = offline / "data" / "chats.sqlite3"

    def rows() -> list[tuple[str | None, int]]:
        with closing(sqlite3.connect(f"file:{store}?mode=ro", uri=True)) as db:
            return db.execute("SELECT title, turn_count FROM chats").fetchall()

    told: list[list[tuple[str | None, int]]] = []
    answer = await ask(
        load_settings(), "What should we plan for the weekend?", new_chat=True, told=lambda _: told.append(rows())
    )
    assert answer.model and told == [[(None, 2)]]  # saved, both turns, not titled yet
    [(title, turns)] = rows()
    assert title and turns == 2
