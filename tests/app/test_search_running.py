"""`parley chats search` and `parley memories search` while a Parley runs on the same chats: the search goes
over the running Parley's socket and is answered with its services (its models loaded already), and prints
what the same search done by the command itself prints. The running Parley is the real voice loop (a fed
microphone, the real wake word model, the real SQLite store) as the window and `parley listen` run it; the
commands run in another process, as a user runs them, or in a thread of this one."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path

import pytest

from app.asks.client import search_running
from app.asks.wire import MAX_REQUEST_BYTES, Search, socket_path
from app.cli.main import main
from app.config.settings import Settings
from app.wiring import ChatServices, open_chat_services
from chats.embedders.embedding import Embedder, Matrix
from chats.models import Turn
from tests.app.voice_harness import running_loop

CHILD_START_S = 120.0
"""A `parley` in another process starts in seconds, and in a minute on a loaded machine."""
SEARCHES = (
    ("chats", "search", "the kitchen tiles"),
    ("chats", "search", "the kitchen tiles", "--json"),
    ("chats", "search", "a trip to the moon"),
    ("memories", "search", "my daughter"),
    ("memories", "search", "my daughter", "--json", "--limit", "1"),
    ("memories", "search", "what do you know about me"),
    ("memories", "search", "horses", "--category", "project"),
)


class SeenEmbedder:
    """The services' own embedder, noting each text it embeds: what shows which process searched."""

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self.texts: list[str] = []

    @property
    def model_name(self) -> str:
        return self._embedder.model_name

    @property
    def dimensions(self) -> int:
        return self._embedder.dimensions

    async def embed(self, texts: Sequence[str]) -> Matrix:
        self.texts.extend(texts)
        return await self._embedder.embed(texts)


@asynccontextmanager
async def seen_services(settings: Settings) -> AsyncIterator[ChatServices]:
    async with open_chat_services(settings) as services:
        services.embedder = SeenEmbedder(services.embedder)  # before the finder and the memory service use it
        yield services


async def parley(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, list(args))
    out, err = capsys.readouterr()
    return code, out, err


async def parley_elsewhere(*args: str) -> tuple[int, str, str]:
    child = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "app.cli.main",
        *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=dict(os.environ),
    )
    async with asyncio.timeout(CHILD_START_S):
        out, err = await child.communicate()
    assert child.returncode is not None
    return child.returncode, out.decode(), err.decode()


async def some_chats_and_memories(capsys: pytest.CaptureFixture[str], settings: Settings) -> None:
    async with open_chat_services(settings) as services:
        for title, text in (
            ("Kitchen tiles", "We chose white tiles for the kitchen wall and oak for the counter."),
            ("Garden", "The plumber comes on Tuesday; the garden needs a new hose."),
            ("Lisbon", "Flights to Lisbon in May, a hotel near the museum."),
        ):
            await services.store.create(title=title, turns=[Turn(role="user", text=text)])
    for fact in ("My daughter is called Mia and she loves horses.", "I prefer tea to coffee."):
        code, _, err = await parley(capsys, "memories", "add", fact)
        assert code == 0, err


async def test_searches_the_running_parley_answers_print_what_the_command_prints_alone(
    environment: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from app.config.settings import load_settings

    await some_chats_and_memories(capsys, load_settings())
    async with running_loop(environment):
        pass  # which maintains the chats (their topic vectors): what both searches below read is the same

    async with running_loop(environment, open_services=seen_services) as running:
        seen = running.services.embedder
        assert isinstance(seen, SeenEmbedder)
        answered = [await parley_elsewhere(*search) for search in SEARCHES]
        # The running Parley embedded every query but the broad question (listed, not searched): it searched.
        assert [text for text in seen.texts if text in {s[2] for s in SEARCHES}] == [
            "the kitchen tiles",
            "the kitchen tiles",
            "a trip to the moon",
            "my daughter",
            "my daughter",
            "horses",
        ]
        assert running.watcher.spoken() == [] and running.watcher.of("state") == []  # nothing woke it

    # The same searches with no Parley running, on the same chats (each running loop above added an empty one).
    alone = [await parley(capsys, *search) for search in SEARCHES]
    assert answered == alone
    assert all(code == 0 and not err for code, _, err in alone), alone
    assert alone[0][1].startswith("One chat matches:\n") and "Kitchen tiles" in alone[0][1]
    assert json.loads(alone[4][1])[0]["content"].endswith("Mia and she loves horses.")
    assert alone[6][1].startswith("No memory matches “horses”; 2 others are saved")


async def test_a_socket_nobody_answers_on_is_passed_over_at_once(
    environment: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = environment / "data"
    data.mkdir()
    left = socket.socket(socket.AF_UNIX)
    left.bind(str(socket_path(data)))  # bound and never served: a Parley killed before it closed the socket
    left.close()
    code, out, err = await parley(capsys, "chats", "search", "the kitchen tiles")
    assert (code, out, err) == (0, "No chat matches.\n", "")
    socket_path(data).unlink()
    socket_path(data).write_text("not a socket", encoding="utf-8")
    code, out, err = await parley(capsys, "memories", "search", "my daughter")
    assert (code, out, err) == (0, "No memories yet.\n", "")


async def test_a_parley_that_takes_the_search_and_says_nothing_is_given_up_on(environment: Path) -> None:
    data = environment / "data"
    data.mkdir()
    heard: list[bytes] = []

    async def silent(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        heard.append(await reader.readline())  # and never answers: a Parley stuck, or stopped (SIGSTOP)
        await reader.read()

    server = await asyncio.start_unix_server(silent, path=str(socket_path(data)))
    async with server:
        assert await search_running(data, Search("chats", "the kitchen tiles"), wait_s=0.2) is None
    assert [json.loads(line) for line in heard] == [{"search": "chats", "query": "the kitchen tiles"}]


async def test_hostile_clients_are_refused_and_the_running_parley_goes_on_answering(environment: Path) -> None:
    async with running_loop(environment) as running:
        path = str(socket_path(environment / "data"))
        # One that connects and says nothing holds no one else up.
        _, quiet = await asyncio.open_unix_connection(path)
        searches = 'not a search: {"search": "chats", "query": "TEXT"} or {"search": "memories", "query": "TEXT", '
        searches += '"limit": N, "category": "CATEGORY" or null}'
        for request, refused in (
            (b'{"search": "files", "query": "/etc/passwd"}\n', searches),
            (b'{"search": "chats", "query": "x", "sql": "drop table chats"}\n', searches),
            (b'{"search": "chats", "query": "x", "limit": 3}\n', searches),  # a chat search takes no limit
            (b'{"search": "memories", "query": 7}\n', searches),
            (
                b'{"search": "memories", "query": "x", "limit": -1}\n',
                "not a limit: -1 (a whole number from 0 to 10000)",
            ),
            (
                b'{"search": "memories", "query": "x", "limit": "5"}\n',
                "not a limit: '5' (a whole number from 0 to 10000)",
            ),
            (
                b'{"search": "memories", "query": "x", "limit": true}\n',
                "not a limit: True (a whole number from 0 to 10000)",
            ),
            (b'{"search": "memories", "query": "x", "category": "secrets"}\n', "not a category: 'secrets'"),
            (b"\xff\xfe garbage\n", "not a request: send one JSON object a line"),
        ):
            reader, writer = await asyncio.open_unix_connection(path)
            writer.write(request)
            assert json.loads(await reader.readline()) == {"error": refused}, request
            assert await reader.read() == b""  # and it closed
            writer.close()
        # A line longer than any request: the connection is dropped, unanswered.
        reader, writer = await asyncio.open_unix_connection(path)
        writer.write(b"x" * (MAX_REQUEST_BYTES + 1))
        try:
            await writer.drain()
            rest = await reader.read()
        except ConnectionError:  # dropped before it took the whole line
            rest = b""
        assert rest == b""
        writer.close()
        found = await search_running(environment / "data", Search("chats", "the kitchen tiles"))
        assert found == {"outcome": "none", "chats": []}
        quiet.close()
        assert running.watcher.spoken() == [] and running.watcher.of("state") == []
