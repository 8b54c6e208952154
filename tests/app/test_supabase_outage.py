"""Supabase killed in the middle of a conversation, or down when Parley starts: the voice loop on the real
`supabase` client and the local stack (its HTTP front stopped, then served again on the same port), the
real google-genai client against the fake Live server, the real journal. Parley keeps talking; every turn
arrives exactly once."""

from __future__ import annotations

from pathlib import Path

import pytest

from app.account.supabase_account import STARTED_CHATS_FILE, sign_in, supabase_project
from app.config.settings import load_settings
from app.conversation import Saved
from tests.app.voice_harness import Running, running_loop
from tests.fakes.gemini_live_scenario import AfterText, CompleteTurn, OutputTranscript, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.supabase_http import SupabaseHttpServer
from tests.fakes.supabase_stack import SupabaseStack, TestUser
from voice.audio.synthetic import silence
from voice.session_events import SpokenTurn


def answer(text: str) -> tuple[AfterText, tuple[OutputTranscript, CompleteTurn]]:
    return AfterText(), (OutputTranscript(text), CompleteTurn())


async def until_said(running: Running, text: str) -> None:
    await running.watcher.until(lambda: SpokenTurn("model", text) in running.watcher.spoken())


def saves(running: Running) -> list[int]:
    return [event.turns for event in running.watcher.of("conversation") if isinstance(event, Saved)]


async def signed_in(
    stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch, idle_seconds: str
) -> tuple[SupabaseHttpServer, TestUser]:
    """Parley set to Supabase through a front of its own, signed in (the session in the test keyring)."""
    front = stack.serve()
    for name, value in {
        "PARLEY_STORAGE": "supabase",
        "PARLEY_SUPABASE_URL": front.url,
        "PARLEY_SUPABASE_ANON_KEY": stack.anon_key,
        "PARLEY_IDLE_SECONDS": idle_seconds,
    }.items():
        monkeypatch.setenv(name, value)
    user = stack.new_user("alice")
    await (await sign_in(supabase_project(load_settings()), user.email, user.password)).close()
    return front, user


async def test_a_conversation_goes_on_through_an_outage_and_every_turn_arrives_once(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    supabase_stack: SupabaseStack,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Long enough that stopping the front (up to half a second) happens inside the conversation.
    front, user = await signed_in(supabase_stack, monkeypatch, idle_seconds="1.5")
    gemini_live_server.script(
        script(answer("One."), answer("Two.")),
        script(answer("Three.")),
    )
    async with running_loop(environment) as running:
        running.microphone.feed(silence(240))
        await running.microphone.until_drained()
        await running.loop.send_text("First question")
        await until_said(running, "One.")
        front.stop()  # Supabase goes away in the middle of the conversation
        await running.loop.send_text("Second question")
        await until_said(running, "Two.")
        await running.watcher.until(lambda: saves(running) == [0])  # idle: the save found no Supabase
        await running.loop.send_text("Third question")  # a new conversation, still without Supabase
        await until_said(running, "Three.")
        await running.watcher.until(lambda: saves(running) == [0, 0])
        front = supabase_stack.serve(front.port)  # back, at the same address
        await running.watcher.until(lambda: 6 in saves(running))  # a retry delivered them all
        chat_id = running.chat_id
    second = await gemini_live_server.connection(1)
    seeded = [part["text"] for content in second.history for part in content["parts"]]
    assert seeded == ["First question", "One.", "Second question", "Two."]  # it went on in the same chat
    stored = supabase_stack.query(
        "SELECT user_id::text, turn_id, text FROM chat_turns WHERE chat_id = %s ORDER BY seq", chat_id
    )
    assert [text for _, _, text in stored] == [
        "First question",
        "One.",
        "Second question",
        "Two.",
        "Third question",
        "Three.",
    ]
    assert {owner for owner, _, _ in stored} == {user.id}
    assert len({turn_id for _, turn_id, _ in stored}) == 6
    front.stop()


async def test_parley_starts_while_supabase_is_down_and_delivers_the_chat_when_it_is_back(
    environment: Path,
    gemini_live_server: FakeGeminiLiveServer,
    supabase_stack: SupabaseStack,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Tokens inside the client's refresh margin: the kept session needs a refresh Supabase cannot give.
    monkeypatch.setattr(supabase_stack.auth, "access_token_seconds", 5)
    front, user = await signed_in(supabase_stack, monkeypatch, idle_seconds="0.3")
    front.stop()  # down before Parley starts
    gemini_live_server.script(script(answer("One.")), script(answer("Two.")))
    async with running_loop(environment) as running:  # opens the stores and begins a chat, as the window does
        chat_id = running.chat_id
        assert [chat.id for chat in await running.store.list_chats(limit=1)] == [chat_id]
        running.microphone.feed(silence(240))
        await running.microphone.until_drained()
        await running.loop.send_text("First question")
        await until_said(running, "One.")
        await running.watcher.until(lambda: saves(running) == [0])  # journaled; Supabase still away
        assert supabase_stack.query("SELECT count(*) FROM chats WHERE id = %s", chat_id) == [(0,)]
        assert (environment / "data" / STARTED_CHATS_FILE).exists()
        front = supabase_stack.serve(front.port)  # back
        await running.watcher.until(lambda: 2 in saves(running))  # a retry created the chat and delivered
        await running.loop.send_text("Second question")  # the next conversation loads the chat from Supabase
        await until_said(running, "Two.")
        await running.watcher.until(lambda: saves(running)[-1] == 2 and len(saves(running)) >= 3)
    second = await gemini_live_server.connection(1)
    assert [part["text"] for content in second.history for part in content["parts"]] == ["First question", "One."]
    assert supabase_stack.query("SELECT user_id::text FROM chats WHERE id = %s", chat_id) == [(user.id,)]
    stored = supabase_stack.query("SELECT turn_id, text FROM chat_turns WHERE chat_id = %s ORDER BY seq", chat_id)
    assert [text for _, text in stored] == ["First question", "One.", "Second question", "Two."]
    assert len({turn_id for turn_id, _ in stored}) == 4
    assert not (environment / "data" / STARTED_CHATS_FILE).exists()
    front.stop()
