"""`parley sync`: a local SQLite history into Supabase and back, on a real SQLite file and the local Supabase
stack through the real `supabase` client. Running it twice copies nothing twice."""

from __future__ import annotations

import asyncio
import io
from collections.abc import Callable
from contextlib import AsyncExitStack
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from uuid import UUID, uuid4

import numpy as np
import pytest

from app.account.sync import StampClock, Stores, missing_turns, supersession_order, sync
from chats.journal import JOURNAL_FILE, TurnJournal
from chats.memory.models import Memory
from chats.memory.store import NewMemory
from chats.models import EmbeddedText, Source, Turn
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from chats.supabase.connection import SupabaseConnection
from chats.supabase.memories import SupabaseMemoryStore
from chats.supabase.store import SupabaseChatStore
from tests.app.conftest import Parley
from tests.fakes.supabase_stack import SupabaseStack, TestUser

START = datetime(2026, 3, 1, 9, 30, tzinfo=UTC)
Clock = Callable[[], datetime]


def vector(*values: float) -> np.ndarray:
    v = np.zeros(8, dtype=np.float32)
    v[: len(values)] = values
    return v / np.linalg.norm(v)


def said(*texts: str) -> list[Turn]:
    return [Turn(role="user" if i % 2 == 0 else "model", text=t, id=uuid4()) for i, t in enumerate(texts)]


class Ticking:
    """A clock that moves a minute each time it is read, so every stored time is distinct."""

    def __init__(self) -> None:
        self.now = START

    def __call__(self) -> datetime:
        self.now += timedelta(minutes=1)
        return self.now


async def open_sqlite(path: Path, closing: AsyncExitStack, clock: Clock) -> Stores:
    chats = await SqliteChatStore.open(path, "local", clock=clock)
    closing.push_async_callback(chats.close)
    memories = await SqliteMemoryStore.open(path, "local", clock=clock)
    closing.push_async_callback(memories.close)
    return Stores(chats, memories)


async def open_supabase(stack: SupabaseStack, user: TestUser, closing: AsyncExitStack, clock: Clock) -> Stores:
    connection = await SupabaseConnection.sign_in(stack.url, stack.anon_key, user.email, user.password)
    closing.push_async_callback(connection.close)
    chats = await SupabaseChatStore.open(connection, clock=clock)
    memories = await SupabaseMemoryStore.open(connection, clock=clock)
    return Stores(chats, memories)


async def a_local_history(local: Stores) -> None:
    """Two folders, three chats (one compacted with a summary and a topic, one with memory off and working
    memory), imported turns without ids (an answer with its web sources), and memories: one in a folder, one
    superseded by another."""
    kitchen = await local.chats.create_folder("Kitchen")
    await local.chats.create_folder("Travel")
    compacted = await local.chats.create(title="Tiles", project_id=kitchen.id, turns=said("one", "two", "three"))
    summary = EmbeddedText("They chose blue tiles.", vector(1, 1), "m")
    await local.chats.replace_assistant_history(
        compacted.id,
        expected_version=compacted.version,
        assistant_history=[Turn(role="model", text=summary.text, summary=True), compacted.full_history[-1]],
        summary=summary,
    )
    await local.chats.set_embedding(compacted.id, "topic", EmbeddedText("tiles", vector(1), "m"))
    quiet = await local.chats.create(title="Private", turns=said("secret plans"))
    await local.chats.set_memory_enabled(quiet.id, False)
    await local.chats.put_working_memory(quiet.id, {"goal": "plan"}, expected_version=0)
    grounded = Turn(role="model", text="ok", sources=(Source("bbc.co.uk", "https://example.org/weather"),))
    await local.chats.create(turns=[Turn(role="user", text="imported, no id"), grounded])
    await local.memories.add(
        NewMemory(
            content=EmbeddedText("User is renovating the kitchen.", vector(0, 1), "m"),
            category="project",
            importance=7,
            project_id=kitchen.id,
            source_chat_id=compacted.id,
        )
    )
    old = await local.memories.add(
        NewMemory(
            content=EmbeddedText("User lives in Turin.", vector(0, 0, 1), "m"), category="identity", importance=10
        )
    )
    await local.memories.add(
        NewMemory(
            content=EmbeddedText("User lives in Milan.", vector(0, 0, 1, 1), "m"),
            category="identity",
            importance=10,
            supersedes=[old.id],
        )
    )


async def snapshot(stores: Stores) -> dict[str, object]:
    """What a user would see of a history, ids and times included, folder ids replaced by their names."""
    folders = {folder.id: folder.name for folder in await stores.chats.list_folders()}
    chats = []
    for info in await stores.chats.list_chats(limit=100):
        chat = await stores.chats.get(info.id)
        context = await stores.chats.load_assistant_context(info.id)
        chats.append(
            (
                chat.id,
                chat.title,
                folders.get(chat.project_id or ""),
                chat.full_history,
                chat.assistant_history,
                chat.summary.text if chat.summary else None,
                context.topic.text if context.topic else None,
                context.memory_enabled,
                dict((await stores.chats.get_working_memory(info.id)).data),
                chat.created_at,
                chat.last_activity_at,
            )
        )
    memories = sorted(
        (
            m.content,
            m.category,
            folders.get(m.project_id or ""),
            m.source_chat_id,
            m.superseded_by is not None,
            m.created_at,
        )
        for m in await stores.memories.export()
    )
    return {"folders": sorted(folders.values()), "chats": chats, "memories": memories}


async def identities(stores: Stores) -> tuple[object, ...]:
    """The ids a copy keeps: each folder's, and each memory's with its folder and the memory replacing it."""
    folders = sorted((folder.id, folder.name) for folder in await stores.chats.list_folders())
    memories = sorted((str(m.id), m.project_id, str(m.superseded_by)) for m in await stores.memories.export())
    return folders, memories


def memory(content: str, created_at: datetime, superseded_by: UUID | None = None) -> Memory:
    return Memory(
        id=uuid4(),
        user_id="local",
        content=content,
        title=None,
        category="identity",
        tags=(),
        importance=10,
        project_id=None,
        embedding=EmbeddedText(content, vector(1), "m"),
        source_chat_id=None,
        created_at=created_at,
        updated_at=created_at,
        superseded_by=superseded_by,
    )


def test_a_memory_comes_after_those_it_replaced_whatever_their_times() -> None:
    milan = memory("User lives in Milan.", START)
    turin = memory("User lives in Turin.", START + timedelta(days=1), superseded_by=milan.id)  # a clock set back
    rome = memory("User visited Rome.", START - timedelta(days=1))
    assert [m.content for m in supersession_order([milan, turin, rome])] == [
        "User visited Rome.",
        "User lives in Turin.",
        "User lives in Milan.",
    ]
    chain = [memory("User weighs 70 kg.", START)]
    for week in range(1, 3000):  # restated every week, each time stamped a little earlier
        chain.append(memory(f"User weighs {70 + week % 5} kg.", START - timedelta(minutes=week)))
        chain[-2] = replace(chain[-2], superseded_by=chain[-1].id)
    assert supersession_order(chain) == chain


async def test_copies_keep_their_ids_and_a_folder_of_the_same_name_here_is_kept(tmp_path: Path) -> None:
    """Between two SQLite files: folders and memories are made with the source's ids, replacement links
    follow them; a folder the target made on its own under the same name keeps its id and gets the memories
    of the source's; a folder renamed since the last copy is found by its id, not doubled."""
    async with AsyncExitStack() as closing:
        local = await open_sqlite(tmp_path / "local.sqlite3", closing, Ticking())
        await a_local_history(local)
        clock = StampClock()
        other = await open_sqlite(tmp_path / "other.sqlite3", closing, clock)
        travel = await other.chats.create_folder("TRAVEL")
        await sync(local, other, clock)
        theirs = {f.name: f.id for f in await other.chats.list_folders()}
        ours = {f.name: f.id for f in await local.chats.list_folders()}
        assert theirs == {"Kitchen": ours["Kitchen"], "TRAVEL": travel.id}
        assert {m.id for m in await other.memories.export()} == {m.id for m in await local.memories.export()}
        _, memories = await identities(local)
        assert (await identities(other))[1] == memories

        await other.chats.rename_folder(ours["Kitchen"], "Our kitchen")
        travel_memory = await local.memories.add(
            NewMemory(
                content=EmbeddedText("User is planning a trip to Lisbon.", vector(0, 0, 0, 1), "m"),
                category="project",
                importance=7,
                project_id=ours["Travel"],
            )
        )
        again = await sync(local, other, clock)
        assert (again.folders_created, again.memories_copied) == (0, 1)
        assert sorted(f.name for f in await other.chats.list_folders()) == ["Our kitchen", "TRAVEL"]
        assert (await other.memories.get(travel_memory.id)).project_id == travel.id


def test_missing_turns_are_known_by_id_or_else_by_position() -> None:
    held = said("a", "b")
    loose = [Turn(role="user", text="x"), Turn(role="model", text="y"), Turn(role="user", text="z")]
    assert missing_turns([*held, *said("c")], held)[0].text == "c"
    assert missing_turns(held, held) == []
    assert missing_turns(held, list(reversed(held))) == []  # ids, not order
    assert [t.text for t in missing_turns(loose, loose[:2])] == ["z"]


async def test_a_local_history_moves_into_supabase_and_back_and_twice_copies_nothing(
    supabase_stack: SupabaseStack, tmp_path: Path
) -> None:
    user = supabase_stack.new_user("alice")
    async with AsyncExitStack() as closing:
        local = await open_sqlite(tmp_path / "local.sqlite3", closing, Ticking())
        await a_local_history(local)
        clock = StampClock()
        cloud = await open_supabase(supabase_stack, user, closing, clock)

        first = await sync(local, cloud, clock)
        assert (first.chats, first.chats_created, first.chats_extended, first.turns_copied) == (3, 3, 0, 6)
        assert (first.folders_created, first.memories, first.memories_copied) == (2, 3, 3)
        assert await snapshot(cloud) == await snapshot(local)
        assert await identities(cloud) == await identities(local)  # folders and memories keep their ids

        again = await sync(local, cloud, clock)
        assert (again.chats_created, again.chats_extended, again.turns_copied) == (0, 0, 0)
        assert (again.folders_created, again.memories_copied) == (0, 0)
        assert await snapshot(cloud) == await snapshot(local)

        private = next(c for c in await local.chats.list_chats() if c.title == "Private")
        await local.chats.append(private.id, said("and more", "noted"))
        more = await sync(local, cloud, clock)
        assert (more.chats_created, more.chats_extended, more.turns_copied) == (0, 1, 2)
        assert await snapshot(cloud) == await snapshot(local)

        back_clock = StampClock()
        back = await open_sqlite(tmp_path / "elsewhere.sqlite3", closing, back_clock)
        home = await sync(cloud, back, back_clock)
        assert (home.chats_created, home.turns_copied, home.memories_copied) == (3, 8, 3)
        assert await snapshot(back) == await snapshot(cloud)
        assert await identities(back) == await identities(cloud)
    rows = supabase_stack.query("SELECT count(*), count(DISTINCT turn_id) FROM chat_turns WHERE user_id = %s", user.id)
    assert rows == [(8, 6)]  # the two imported turns have no id; the six others are there once each


def test_parley_sync_prints_a_summary_and_json(
    parley: Parley, supabase_stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    code, _ = parley("supabase", "setup", "--url", supabase_stack.url, "--anon-key", supabase_stack.anon_key)
    assert code == 0
    user = supabase_stack.new_user("alice")
    monkeypatch.setattr("sys.stdin", io.StringIO(user.password + "\n"))
    assert parley("supabase", "signin", "--email", user.email)[0] == 0
    monkeypatch.setenv("PARLEY_STORAGE", "sqlite")
    parley("chats", "import", parley.write("turns.json", [{"role": "user", "parts": [{"text": "hello"}]}]))
    code, out = parley("sync", "--to", "supabase")
    assert code == 0, parley.err
    assert out.startswith("Synced to supabase: 1 chats (1 new, 0 with new turns, 0 already there), 1 turns, ")
    again = parley.json("sync", "--to", "supabase")
    assert (again["chats"], again["chats_created"], again["turns_copied"], again["memories_copied"]) == (1, 0, 0, 0)
    assert supabase_stack.query("SELECT count(*) FROM chats WHERE user_id = %s", user.id) == [(1,)]


def test_parley_sync_delivers_the_journal_first_so_the_copy_has_its_turns(
    parley: Parley, supabase_stack: SupabaseStack, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Turns a conversation journaled but the local store had not taken yet (Parley stopped at once) are
    delivered to it before copying: the copy in Supabase has them, once, and the journal is empty."""
    assert parley("supabase", "setup", "--url", supabase_stack.url, "--anon-key", supabase_stack.anon_key)[0] == 0
    user = supabase_stack.new_user("alice")
    monkeypatch.setattr("sys.stdin", io.StringIO(user.password + "\n"))
    assert parley("supabase", "signin", "--email", user.email)[0] == 0
    monkeypatch.setenv("PARLEY_STORAGE", "sqlite")
    parley("chats", "import", parley.write("turns.json", [{"role": "user", "parts": [{"text": "hello"}]}]))
    [chat] = parley.json("chats", "list")
    journal = TurnJournal(parley.data_dir / JOURNAL_FILE)
    asyncio.run(journal.record(UUID(chat["id"]), Turn(role="model", text="hello to you")))
    code, out = parley("sync", "--to", "supabase")
    assert code == 0, parley.err
    assert out.rstrip().endswith(" 1 journaled turns delivered first.")
    stored = supabase_stack.query("SELECT text FROM chat_turns WHERE user_id = %s ORDER BY seq", user.id)
    assert stored == [("hello",), ("hello to you",)]
    assert asyncio.run(journal.pending()) == []
    again = parley.json("sync", "--to", "supabase")
    assert (again["turns_copied"], again["journal_delivered"], again["journal_waiting"]) == (0, 0, 0)
