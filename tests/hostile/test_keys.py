"""Keys: one holding a line break, a space or a control character is refused in one line wherever it comes
from (the environment, `keys set`, the OS keyring), and never sent: the local fake Gemini server, which records
the key of every request, sees none."""

from __future__ import annotations

import asyncio
import io
import sys
from pathlib import Path

import keyring
import pytest

from tests.fakes.gemini_live_scenario import AfterText, CompleteTurn, OutputTranscript, script
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.hostile.conftest import User

INJECTING = "\r\nX-Injected: 1"
"""After a key, a header of its own: sent as it is, it arrives at the service as a second header."""


def test_a_key_with_a_line_break_is_refused_in_one_line_wherever_it_comes_from(
    user: User, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GEMINI_API_KEY", f"AIza-good{INJECTING}")
    user.refused("chats", "list", line="the gemini key in GEMINI_API_KEY holds a line break: give it again without it")
    monkeypatch.delenv("GEMINI_API_KEY")
    monkeypatch.setattr(sys, "stdin", io.StringIO("sk-one two\n"))
    user.refused("keys", "set", "openai", line="the openai key given holds a space: give it again without it")
    assert user("keys", "status")[1].count("not set") == 2
    keyring.set_password("parley", "gemini_api_key", "AIza\x1bbad")  # written by another program
    # Read when first used: a command that needs no key (a chat list) does not read the keyring at all.
    assert user("chats", "list") == (0, "No chats yet.\n")
    in_keyring = "the gemini key in the OS keyring holds the control character U+001B: give it again without it"
    for command in (("ask", "hello"), ("chats", "search", "kitchen"), ("memories", "list")):
        user.refused(*command, line=in_keyring)


async def test_a_key_with_a_line_break_never_reaches_the_service(
    environment: Path, user: User, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_EMBEDDER", "local")  # the Live fake serves no embeddings
    monkeypatch.setenv("GEMINI_API_KEY", gemini_live_server.api_key + INJECTING)
    # In a thread of its own: the fake answers on this test's event loop.
    line = "the gemini key in GEMINI_API_KEY holds a line break: give it again without it"
    await asyncio.to_thread(user.refused, "ask", "hello", line=line)
    assert (gemini_live_server.connections, gemini_live_server.rest_requests) == ([], [])
    # The same ask with the key alone reaches the fake, which records it: it would have seen the other one.
    monkeypatch.setenv("GEMINI_API_KEY", gemini_live_server.api_key)
    gemini_live_server.script(script((AfterText(), (OutputTranscript("Hi."), CompleteTurn()))))
    assert await asyncio.to_thread(user, "ask", "hello") == (0, "Hi.\n"), user.err
    assert [c.api_key for c in gemini_live_server.connections] == [gemini_live_server.api_key]
    assert "X-Injected" not in (user.data_dir / "logs" / "parley.log").read_text(encoding="utf-8")
