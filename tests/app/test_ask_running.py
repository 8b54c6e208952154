"""`parley ask` while a Parley runs on the same chats: the question reaches the running voice loop over its
socket and is answered there, in its conversation and its chat. The running Parley is the real voice loop
(a fed microphone, the real wake word model, the real google-genai client against the fake Live server or
the offline voice, the real SQLite store and journal), as `parley listen` and the window run it; `parley
ask` runs in another process, or in a thread of this one."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from pathlib import Path
from uuid import UUID, uuid4

import pytest

from app.asks.client import NoAnswerInTime, ask_running
from app.asks.wire import socket_path
from app.cli.main import main
from app.conversation import ChatSwitched, Saved
from chats.models import Turn
from tests.app.other_listener import another_process_listening
from tests.app.voice_harness import history, running_loop
from tests.fakes.gemini_live_scenario import AfterText, CompleteTurn, OutputTranscript, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from voice.state import AssistantState

CHILD_START_S = 120.0
"""A `parley` in another process starts in seconds, and in a minute on a loaded machine."""


async def parley(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(args))
    out, err = capsys.readouterr()
    return code, out, err


async def parley_elsewhere(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli.main",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )


async def test_an_ask_from_another_process_is_answered_by_the_running_parley_in_its_chat(
    environment: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    gemini_live_server.script(
        script((AfterText(), (OutputTranscript("Milk, eggs "), OutputTranscript("and bread."), CompleteTurn()))),
        script((AfterText(), (OutputTranscript("Bread."), CompleteTurn()))),
    )
    async with running_loop(environment) as running:
        child = await parley_elsewhere("ask", "What is on my shopping list?", "--json")
        async with asyncio.timeout(CHILD_START_S):
            out, err = await child.communicate()
        assert child.returncode == 0, err.decode()
        answer = json.loads(out)
        assert answer == {
            "chat_id": str(running.chat_id),
            "user": "What is on my shopping list?",
            "model": "Milk, eggs and bread.",
            "tool_calls": [],
            "sources": [],
        }
        # The running Parley's conversation: its observer (its window) saw both turns, its chat keeps them.
        assert [(t.role, t.text, t.typed) for t in running.watcher.spoken()] == [
            ("user", "What is on my shopping list?", True),
            ("model", "Milk, eggs and bread.", False),
        ]
        await running.watcher.until_saved(2)
        assert await history(running) == [("user", "What is on my shopping list?"), ("model", "Milk, eggs and bread.")]

        child = await parley_elsewhere("ask", "Only bread?")
        async with asyncio.timeout(CHILD_START_S):
            out, err = await child.communicate()
        assert (child.returncode, out.decode()) == (0, "Bread.\n"), err.decode()
    assert len(gemini_live_server.connections) == 2  # the running Parley's two conversations, nobody else's
    assert not socket_path(environment / "data").exists()  # gone with the loop


async def test_a_question_typed_during_a_conversation_waits_its_turn_and_gets_its_own_answer(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(
        script(
            (AfterText(), (OutputTranscript("Hello there."), CompleteTurn())),
            (AfterText(), (OutputTranscript("Twelve degrees."), CompleteTurn())),
        )
    )
    async with running_loop(environment) as running:
        await running.loop.send_text("Hello")  # the window's user, typing
        await running.watcher.until(lambda: len(running.watcher.spoken()) == 2)
        code, out, err = await parley(capsys, "ask", "How cold is it?")
        assert (code, out) == (0, "Twelve degrees.\n"), err
        await running.watcher.until_saved(4)
    assert len(gemini_live_server.connections) == 1  # the question went into the conversation under way


async def test_new_chat_asks_in_a_new_chat_of_the_running_parley_which_stays_there(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("A fresh start."), CompleteTurn()))))
    async with running_loop(environment) as running:
        before = running.chat_id
        code, out, err = await parley(capsys, "ask", "Shall we start over?", "--new-chat", "--json")
        assert code == 0, err
        new = UUID(json.loads(out)["chat_id"])
        assert new != before and json.loads(out)["model"] == "A fresh start."
        switched = [e for e in running.watcher.of("conversation") if isinstance(e, ChatSwitched)]
        assert switched == [ChatSwitched(new)] and running.loop.chat_id == new  # the window shows it
        await running.watcher.until(
            lambda: [e for e in running.watcher.of("conversation") if isinstance(e, Saved)][-1:] == [Saved(new, 2)]
        )
        chat = await running.store.get(new)
        assert [(t.role, t.text) for t in chat.full_history] == [
            ("user", "Shall we start over?"),
            ("model", "A fresh start."),
        ]
        assert (await running.store.get(before)).full_history == ()  # nothing went into the chat it left


async def test_a_new_chat_whose_question_never_reached_it_is_not_left_behind(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    async with running_loop(environment) as running:
        before = running.chat_id
        chats = await running.store.count()
        gemini_live_server.api_key = "a-key-the-running-parley-does-not-have"  # its conversation cannot connect
        code, out, err = await parley(capsys, "ask", "Shall we start over?", "--new-chat")
        assert (code, out) == (1, "")
        assert err.startswith("parley: Gemini Live refused the API key")
        assert await running.store.count() == chats  # no empty chat
        switched = [e for e in running.watcher.of("conversation") if isinstance(e, ChatSwitched)]
        assert switched[1:] == [ChatSwitched(before)]  # the running Parley (its window) back where it was


async def test_audio_out_is_refused_in_one_line_while_parley_runs(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    async with running_loop(environment) as running:
        code, out, err = await parley(capsys, "ask", "Hello?", "--audio-out", str(environment / "a.wav"))
        assert (code, out) == (1, "")
        assert err == (
            "parley: --audio-out cannot reach the Parley running on these chats: its voice plays on that Parley's"
            " speaker, not into a file. Ask without --audio-out, or quit it first\n"
        )
        assert running.watcher.spoken() == []
    assert gemini_live_server.connections == []
    assert not (environment / "a.wav").exists()


async def test_chat_asks_in_that_chat_once_the_conversation_under_way_ends_and_parley_stays_there(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(
        script((AfterText(), (OutputTranscript("Hello there."), CompleteTurn()))),
        script((AfterText(), (OutputTranscript("Oak."), CompleteTurn()))),
    )
    async with running_loop(environment) as running:
        kitchen = (await running.store.create(turns=[Turn(role="user", text="We renovate the kitchen.")])).id
        missing = uuid4()
        code, out, err = await parley(capsys, "ask", "Hello?", "--chat", str(missing))
        assert (code, out, err) == (1, "", f"parley: no chat with id {missing}\n")
        await running.loop.send_text("Hello")  # the window's user, typing, in the chat it shows
        await running.watcher.until(lambda: len(running.watcher.spoken()) == 2)
        code, out, err = await parley(capsys, "ask", "Which wood?", "--chat", str(kitchen), "--json")
        assert code == 0, err
        assert (json.loads(out)["chat_id"], json.loads(out)["model"]) == (str(kitchen), "Oak.")
        # The first conversation ended in its own chat before the question opened the next one, in the kitchen.
        switched = [e for e in running.watcher.of("conversation") if isinstance(e, ChatSwitched)]
        assert switched == [ChatSwitched(kitchen)] and running.loop.chat_id == kitchen
        await running.watcher.until_saved(2)
        assert await history(running) == [("user", "Hello"), ("model", "Hello there.")]
        await running.watcher.until(
            lambda: [e for e in running.watcher.of("conversation") if isinstance(e, Saved)][-1:] == [Saved(kitchen, 2)]
        )
        chat = await running.store.get(kitchen)
        assert [(t.role, t.text) for t in chat.full_history] == [
            ("user", "We renovate the kitchen."),
            ("user", "Which wood?"),
            ("model", "Oak."),
        ]
    assert len(gemini_live_server.connections) == 2


async def test_ctrl_c_stops_waiting_and_the_question_stays_in_the_running_parleys_chat(
    environment: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Let me see"),))))  # never finished
    async with running_loop(environment) as running:
        child = await parley_elsewhere("ask", "What is on my shopping list?")
        async with asyncio.timeout(CHILD_START_S):
            await running.watcher.until(lambda: bool(running.watcher.spoken()))
        child.send_signal(signal.SIGINT)
        out, err = await child.communicate()
        assert (child.returncode, out) == (1, b"")
        assert err.decode().splitlines()[-1] == (
            "parley: stopped waiting for the answer; the question stays with the running Parley, in its chat"
        )
        assert [(t.role, t.text) for t in running.watcher.spoken()] == [("user", "What is on my shopping list?")]
        running.loop.stop()  # the answer never ends: the conversation would not either


async def test_a_question_waiting_when_parley_stops_is_told_so(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Let me see"),))))  # never finished
    async with running_loop(environment) as running:
        asking = asyncio.create_task(parley(capsys, "ask", "What is on my shopping list?"))
        await running.watcher.until(lambda: bool(running.watcher.spoken()))
        running.loop.stop()
        code, out, err = await asking
        assert (code, out) == (1, "")
        assert err == (
            f"parley: Parley stopped before answering; the question stays in chat {running.chat_id} if it was sent\n"
        )
        assert await history(running) == [("user", "What is on my shopping list?")]  # saved as the loop stopped


async def test_the_socket_takes_questions_only_and_only_its_user_may_connect(
    environment: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    async with running_loop(environment) as running:
        path = socket_path(environment / "data")
        assert path.stat().st_mode & 0o777 == 0o600
        only = (
            'not a request: the only ones are {"ask": "TEXT"}, with "chat": "CHAT ID", "new_chat": true or'
            ' neither, and {"search": "chats" or "memories", "query": "TEXT"}'
        )
        for request, refused in (
            (b'{"run": "rm -rf ~"}\n', only),
            (b'{"ask": "Hi", "new_chat": false}\n', only),
            (b'{"ask": "Hi", "new_chat": true, "chat": "%s"}\n' % str(running.chat_id).encode(), only),
            (b'{"ask": "Hi", "chat": "x"}\n', "not a chat id: 'x'"),
            (b"ask Hi\n", "not a request: send one JSON object a line"),
            (b'{"ask": "   "}\n', "nothing to ask: the message is blank"),
        ):
            reader, writer = await asyncio.open_unix_connection(str(path))
            writer.write(request)
            assert json.loads(await reader.readline()) == {"error": refused}
            assert await reader.read() == b""  # and it closed
            writer.close()
        assert running.watcher.spoken() == [] and running.watcher.of("state") == []
    assert gemini_live_server.connections == []


async def test_a_socket_left_behind_is_passed_over(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Milk."), CompleteTurn()))))
    data = environment / "data"
    data.mkdir()
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(socket_path(data)))  # bound and never served: a Parley killed before it closed the socket
    left.close()
    # Nobody listens: this process answers, as without a running Parley.
    code, out, err = await parley(capsys, "ask", "What is on my shopping list?")
    assert (code, out) == (0, "Milk.\n"), err
    # The lock held by a Parley that takes no questions (an older one, or another `ask`): one line, at once.
    with another_process_listening(data) as holder:
        code, out, err = await parley(capsys, "ask", "Anything else?")
    assert (code, out) == (1, "")
    assert (
        err
        == f"parley: Parley is already listening on these chats (process {holder.pid}): quit it first, then try again\n"
    )
    assert len(gemini_live_server.connections) == 1


async def test_a_running_parley_serves_its_socket_from_a_fresh_file(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, capsys: pytest.CaptureFixture[str]
) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Milk."), CompleteTurn()))))
    data = environment / "data"
    data.mkdir()
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(socket_path(data)))  # what a killed Parley left
    left.close()
    async with running_loop(environment) as running:
        code, out, err = await parley(capsys, "ask", "What is on my shopping list?")
        assert (code, out) == (0, "Milk.\n"), err
        await running.watcher.until(lambda: AssistantState.SLEEPING in running.watcher.of("state"))


async def test_an_answer_that_does_not_come_in_time_is_one_line(
    environment: Path, gemini_live_server: FakeGeminiLiveServer
) -> None:
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Let me see"),))))  # never finished
    async with running_loop(environment) as running:
        with pytest.raises(NoAnswerInTime) as late:
            await ask_running(environment / "data", "What is on my shopping list?", wait_s=1.0)
        assert str(late.value) == "the running Parley did not answer within 1 s; the question stays in its chat"
        assert [(t.role, t.text) for t in running.watcher.spoken()] == [("user", "What is on my shopping list?")]
        running.loop.stop()


async def test_the_offline_voice_answers_an_ask_with_its_tools_and_one_not_utf8_is_taken(
    offline: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = await parley(capsys, "memories", "add", "My daughter is called Mia and she loves horses.")
    assert code == 0, err
    async with running_loop(offline) as running:
        code, out, err = await parley(capsys, "ask", "What do you remember about my daughter?", "--json")
        assert code == 0, err
        answer = json.loads(out)
        [tool] = answer["tool_calls"]
        assert tool["name"] == "search_memories" and "Mia" in tool["result"]["results"][0]["content"]
        assert "Mia" in answer["model"]
        # A command line that was not UTF-8 (its byte kept as a lone surrogate): repaired, asked and answered.
        code, out, err = await parley(capsys, "ask", "Thanks \udcff")
        assert code == 0 and out.strip(), err
        assert running.watcher.spoken()[-2].text == "Thanks \ufffd"
