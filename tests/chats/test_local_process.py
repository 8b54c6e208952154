"""The local models in a child process: the same vectors, summaries and titles as in this one, and a
child that dies or is interrupted costs one call, never the next."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import signal
import subprocess
import sys
from asyncio.base_subprocess import BaseSubprocessTransport
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from chats.embedders.local_process import CHUNK_TEXTS, LocalModelsProcess, ProcessEmbedder, ProcessTextModel
from chats.embedders.minilm import DIMENSIONS, MiniLMEmbedder
from chats.embedders.use_multilingual import MODEL_NAME as USE_MODEL_NAME
from chats.embedders.use_multilingual import MultilingualEmbedder
from chats.errors import EmbeddingError, TextModelError
from chats.models import Turn
from chats.text.offline_text import OfflineTextModel

TEXTS = [f"note {i}: the tiles for the kitchen arrive on day {i}" for i in range(CHUNK_TEXTS * 2 + 3)]
TURNS = [
    Turn(role="user", text="We are renovating the kitchen. The tiles cost 40 euros a square metre."),
    Turn(role="model", text="Noted. Shall we order them from Fliesen Meyer on Friday?"),
    Turn(role="user", text="Yes, order 12 square metres on Friday, and ask about grout colours."),
]


@pytest.fixture
async def child() -> AsyncIterator[LocalModelsProcess]:
    process = LocalModelsProcess()
    try:
        yield process
    finally:
        await process.aclose()


def children() -> list[int]:
    """This process's children running the local models, found by their command line in /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            command = (entry / "cmdline").read_bytes().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and b"chats.embedders.local_process" in command:
            found.append(int(entry.name))
    return found


async def test_the_child_gives_the_vectors_this_process_would(child: LocalModelsProcess) -> None:
    embedder = ProcessEmbedder(child)
    here = MiniLMEmbedder().embed_sync(TEXTS)
    there = await embedder.embed(TEXTS)
    assert there.shape == (len(TEXTS), DIMENSIONS)
    assert there.dtype == np.float32
    np.testing.assert_allclose(there, here, atol=1e-6)
    assert (await embedder.embed([])).shape == (0, DIMENSIONS)
    assert embedder.model_name == MiniLMEmbedder().model_name


async def test_a_child_runs_the_multilingual_encoder_when_started_with_it() -> None:
    # Stopped after a quiet spell like MiniLM's, it gives its memory back (issue 35): in this process it would not.
    process = LocalModelsProcess(USE_MODEL_NAME)
    try:
        embedder = ProcessEmbedder(process, USE_MODEL_NAME)
        there = await embedder.embed(TEXTS)
        np.testing.assert_allclose(there, MultilingualEmbedder().embed_sync(TEXTS), atol=1e-5)
        assert embedder.model_name == USE_MODEL_NAME and embedder.dimensions == there.shape[1]
        assert embedder.reads_whole_texts and not ProcessEmbedder(process).reads_whole_texts
    finally:
        await process.aclose()


async def test_the_child_gives_the_summaries_and_titles_this_process_would(child: LocalModelsProcess) -> None:
    here, there = OfflineTextModel(), ProcessTextModel(child)
    assert there.name == here.name
    assert await there.summarize(TURNS, 200) == await here.summarize(TURNS, 200)
    text = " ".join(turn.text for turn in TURNS)
    assert await there.title(text) == await here.title(text)


async def test_a_child_that_dies_fails_one_call_and_the_next_starts_another(child: LocalModelsProcess) -> None:
    embedder = ProcessEmbedder(child)
    first = await embedder.embed(["before"])
    [pid] = children()
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(EmbeddingError, match="local models' process stopped"):
        await embedder.embed(["during"])
    again = await embedder.embed(["before"])
    np.testing.assert_allclose(again, first, atol=1e-6)
    assert children() != [pid]
    [pid] = children()
    os.kill(pid, signal.SIGKILL)
    with pytest.raises(TextModelError, match="local models' process stopped"):
        await ProcessTextModel(child).title("the kitchen tiles")


async def cancel_mid_answer(embedder: ProcessEmbedder) -> None:
    """A call cancelled once its request is on its way, before its answer is read (the child warmed first)."""
    await embedder.embed(["warm"])
    call = asyncio.ensure_future(embedder.embed(TEXTS))
    await asyncio.sleep(0)  # the request is on its way: cancel it before its answer is read
    call.cancel()
    with pytest.raises(asyncio.CancelledError):
        await call


async def test_a_call_cancelled_mid_answer_leaves_the_next_in_step(child: LocalModelsProcess) -> None:
    embedder = ProcessEmbedder(child)
    await cancel_mid_answer(embedder)
    vectors = await embedder.embed(["tiles", "grout"])
    np.testing.assert_allclose(vectors, MiniLMEmbedder().embed_sync(["tiles", "grout"]), atol=1e-6)


def open_subprocess_transports() -> list[BaseSubprocessTransport]:
    return [t for t in gc.get_objects() if isinstance(t, BaseSubprocessTransport) and not t.is_closing()]


def test_a_call_cancelled_as_the_loop_ends_leaves_nothing_open_behind_it() -> None:
    """A window closed during a backfill: the call is cancelled and the loop closes at once. The child it
    killed must be waited for then, else its pipes outlive the loop and the garbage collector fails to close
    them ("Event loop is closed") in whatever runs next."""

    async def cancelled() -> None:
        await cancel_mid_answer(ProcessEmbedder(LocalModelsProcess()))  # never closed: its one child is the call's

    earlier = {id(transport) for transport in open_subprocess_transports()}  # other tests' leftovers
    asyncio.run(cancelled())
    assert [transport for transport in open_subprocess_transports() if id(transport) not in earlier] == []
    assert children() == []


async def test_closing_ends_the_child(child: LocalModelsProcess) -> None:
    await ProcessEmbedder(child).embed(["hello"])
    assert len(children()) == 1
    await child.aclose()
    assert children() == []


CHATTY_CHILD = """
import os
from chats.embedders import local_process, minilm

embed = minilm.MiniLMEmbedder.embed_sync


def chatty(self, texts):
    print("a library says hello", flush=True)
    os.write(1, b"and so does its C code\\n")
    return embed(self, texts)


minilm.MiniLMEmbedder.embed_sync = chatty
local_process.serve(minilm.MODEL_NAME)
"""


def test_what_a_library_prints_in_the_child_never_reaches_its_answers() -> None:
    done = subprocess.run(
        [sys.executable, "-c", CHATTY_CHILD],
        input=json.dumps({"op": "embed", "texts": ["ok"]}).encode() + b"\n",
        capture_output=True,
        check=True,
        timeout=120,
    )
    header, vector = done.stdout.split(b"\n", 1)
    assert json.loads(header) == {"rows": 1}
    assert len(vector) == DIMENSIONS * 4
    assert b"a library says hello" in done.stderr and b"and so does its C code" in done.stderr


def test_the_child_answers_a_bad_request_with_an_error_and_serves_the_next() -> None:
    bad = [
        b"not json",
        b'["embed"]',
        b'{"op": "embed", "texts": [1, 2]}',
        b'{"op": "summarize", "turns": [{"role": "robot"}], "max_chars": 100}',
        b'{"op": "title", "text": 3}',
        b'{"op": "translate"}',
    ]
    good = json.dumps({"op": "embed", "texts": ["ok"]}).encode()
    done = subprocess.run(
        [sys.executable, "-m", "chats.embedders.local_process"],
        input=b"\n".join([*bad, good]) + b"\n",
        capture_output=True,
        check=True,
        timeout=120,
    )
    lines = done.stdout.split(b"\n", len(bad) + 1)
    errors = [json.loads(line) for line in lines[: len(bad)]]
    assert all(set(answer) == {"error"} and answer["error"] for answer in errors)
    assert "list of strings" in errors[2]["error"]
    assert "embed, summarize or title" in errors[5]["error"]
    assert json.loads(lines[len(bad)]) == {"rows": 1}
    assert len(lines[len(bad) + 1]) == DIMENSIONS * 4
