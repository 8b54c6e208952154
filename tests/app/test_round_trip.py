"""`parley chats export` / `import` and `parley memories export` / `import` as a user runs them: into an empty
data folder they give the same history back (ids, times, folders by name, both histories, summaries, topics,
memory switch, working memory, memories), again they change nothing, and `--as-new` copies."""

from __future__ import annotations

import asyncio
import io
import json
from contextlib import AsyncExitStack
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from app.account.sync import StampClock
from app.controller import ChatController
from app.wiring import STORE_FILE, ChatServices, compose_services
from chats.embedders.embedding import embed_one
from chats.embedders.minilm import MiniLMEmbedder
from chats.import_reader import ImportedFolder, read_import
from chats.memory.store import MemoryChanges, NewMemory
from chats.models import Turn, utc_now
from chats.transfer import export_json
from tests.app.conftest import Parley
from tests.app.test_sync import START, Ticking, open_sqlite, said, snapshot
from tests.fakes.text_models import ScriptedTextModel


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    """The embedder `parley` uses with no key: the history is made with it, as it would have been."""
    return MiniLMEmbedder()


def kitchen(count: int) -> list[Turn]:
    return said(*(f"For the kitchen we compare tile {i}, glossy or matt, and its price." for i in range(count)))


async def a_history(data_dir: Path, embedder: MiniLMEmbedder) -> dict[str, Any]:
    """A history made weeks ago through the real services: a compacted chat in a folder with a memory said
    in it, a young titled chat with memory off and working memory, a chat of imported turns without ids, an
    empty chat, and memories: one in the folder, one replaced by another, one edited later."""
    async with AsyncExitStack() as closing:
        stores = await open_sqlite(data_dir / STORE_FILE, closing, Ticking())
        services = compose_services(
            stores.chats, stores.memories, embedder, ScriptedTextModel(titles=["Lisbon in May"])
        )
        chats = ChatController(services)
        folder = await chats.create_folder("Kitchen")
        await chats.create_folder("Travel")
        tiles = await chats.new_chat("Kitchen tiles", folder.id)
        await stores.chats.append(tiles.id, kitchen(36))
        assert (await services.maintainer.maintain(tiles.id, embed_turns=False)).compactions == 1
        lisbon = await chats.new_chat()
        await stores.chats.append(lisbon.id, said("Shall we book Lisbon in May?", "Yes, four days in May."))
        await services.maintainer.maintain(lisbon.id, embed_turns=False)  # its topic and its title
        await chats.set_memory_enabled(lisbon.id, False)
        await services.working_memory.replace(lisbon.id, {"city": "Lisbon", "days": 4, "booked": False})
        loose = await stores.chats.create(turns=[Turn(role="user", text="no ids here"), Turn(role="model", text="ok")])
        await services.maintainer.maintain(loose.id, embed_turns=False)
        await chats.new_chat("Nothing said yet")

        async def remember(text: str, **fields: Any) -> Any:
            return await stores.memories.add(NewMemory(content=await embed_one(embedder, text), **fields))

        await remember("User is renovating the kitchen.", category="project", importance=7, project_id=folder.id,
                       source_chat_id=tiles.id, tags=["house"])  # fmt: skip
        turin = await remember("User lives in Turin.", category="identity", importance=10)
        await remember("User lives in Milan.", category="identity", importance=10, supersedes=[turin.id])
        tea = await remember("User prefers green tea.", category="preference", importance=9)
        await stores.memories.update(tea.id, MemoryChanges(importance=8))  # edited: its updated_at moves on
        return {"tiles": tiles.id, "lisbon": lisbon.id, "loose": loose.id, "folder": folder.id}


async def stores_snapshot(data_dir: Path) -> dict[str, object]:
    async with AsyncExitStack() as closing:
        return await snapshot(await open_sqlite(data_dir / STORE_FILE, closing, utc_now))


def memories_of(path: Path) -> dict[str, Any]:
    return dict(json.loads(path.with_suffix(".memories.json").read_text(encoding="utf-8")))


def export(parley: Parley, path: Path) -> Path:
    assert parley("chats", "export", "--out", str(path))[0] == 0, parley.err
    assert parley("memories", "export", "--out", str(path.with_suffix(".memories.json")))[0] == 0, parley.err
    return path


def test_export_then_import_into_an_empty_data_folder_gives_the_same_history(
    parley: Parley, tmp_path: Path, capsys: pytest.CaptureFixture[str], minilm: MiniLMEmbedder
) -> None:
    ids = asyncio.run(a_history(parley.data_dir, minilm))
    first = export(parley, tmp_path / "first.json")
    elsewhere = Parley(tmp_path / "elsewhere", capsys)
    reports = elsewhere.json("chats", "import", str(first))
    assert all(report["new"] and report["compactions"] == 0 for report in reports)  # kept, not made again
    assert [report["id"] for report in reports] == [chat["id"] for chat in json.loads(first.read_text())["chats"]]
    memories = elsewhere.json("memories", "import", str(first.with_suffix(".memories.json")))
    # The working memory came with its chat: the memories' copy of it finds it there.
    assert (memories["memories"], memories["added"], memories["notes_restored"]) == (4, 4, 0)

    source, copy = asyncio.run(stores_snapshot(parley.data_dir)), asyncio.run(stores_snapshot(elsewhere.data_dir))
    assert copy["chats"] == source["chats"]  # ids, titles, folders by name, histories, summary, topic, switch, notes,
    assert copy["memories"] == source["memories"]  # times; memories with their folder, chat, replacement and time
    assert copy["folders"] == source["folders"] == ["Kitchen", "Travel"]  # the empty one too
    folders = [
        [(f["name"], f["created_at"], f["chats"]) for f in p.json("chats", "folders")] for p in (parley, elsewhere)
    ]
    assert folders[0] == folders[1]
    tiles = elsewhere.json("chats", "show", str(ids["tiles"]))
    assert tiles["summary_text"] and datetime.fromisoformat(tiles["created_at"]) < START + timedelta(days=1)  # not now

    again = export(elsewhere, tmp_path / "again.json")
    assert again.read_bytes() == first.read_bytes()  # folders keep their ids: memories name them by id
    assert again.with_suffix(".memories.json").read_bytes() == first.with_suffix(".memories.json").read_bytes()
    milan = next(m for m in memories_of(again)["memories"] if m["content"] == "User lives in Milan.")
    assert [m["content"] for m in memories_of(again)["memories"] if m["supersededBy"] == milan["id"]] == [
        "User lives in Turin."
    ]


def test_memories_alone_come_back_with_their_ids_and_folders(
    parley: Parley, tmp_path: Path, capsys: pytest.CaptureFixture[str], minilm: MiniLMEmbedder
) -> None:
    """Without the chats, a memory loses only the chat it was said in (and the notes of chats not here)."""
    ids = asyncio.run(a_history(parley.data_dir, minilm))
    first = export(parley, tmp_path / "first.json")
    elsewhere = Parley(tmp_path / "elsewhere", capsys)
    report = elsewhere.json("memories", "import", str(first.with_suffix(".memories.json")))
    assert (report["added"], report["notes_restored"], report["notes_skipped"]) == (4, 0, 1)
    assert [(f["id"], f["name"]) for f in elsewhere.json("chats", "folders")] == [(str(ids["folder"]), "Kitchen")]
    given, kept = memories_of(first), memories_of(export(elsewhere, tmp_path / "again.json"))
    assert kept["folders"] == given["folders"]
    for memory in given["memories"]:
        memory["sourceChatId"] = None
    assert kept["memories"] == given["memories"]


def test_memories_go_to_the_folder_of_the_same_name_here(
    parley: Parley, tmp_path: Path, capsys: pytest.CaptureFixture[str], minilm: MiniLMEmbedder
) -> None:
    """A folder is known by its name: one made here on its own keeps its id, and the memories that name the
    exported folder name it instead."""
    asyncio.run(a_history(parley.data_dir, minilm))
    first = export(parley, tmp_path / "first.json")
    elsewhere = Parley(tmp_path / "elsewhere", capsys)
    kitchen = elsewhere.json("chats", "folder-new", "KITCHEN")
    elsewhere.json("chats", "import", str(first))
    assert elsewhere.json("memories", "import", str(first.with_suffix(".memories.json")))["added"] == 4
    [renovating] = [m for m in elsewhere.json("memories", "list") if m["category"] == "project"]
    assert (renovating["projectId"], renovating["containerTags"][1]) == (kitchen["id"], f"tag:project:{kitchen['id']}")
    assert sorted(f["name"] for f in elsewhere.json("chats", "folders")) == ["KITCHEN", "Travel"]


async def chats_export(services: ChatServices) -> str:
    return json.dumps(export_json(*await ChatController(services).export_chats()), indent=2, ensure_ascii=False)


def test_the_window_import_keeps_the_times_as_the_command_line_does(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    """`ChatController.import_chats` (what the window imports with) given the clock its stores stamp with."""

    async def scenario() -> None:
        await a_history(tmp_path / "source", minilm)
        async with AsyncExitStack() as closing:
            source = await open_sqlite(tmp_path / "source" / STORE_FILE, closing, utc_now)
            first = await chats_export(compose_services(source.chats, source.memories, minilm, ScriptedTextModel()))
            clock = StampClock()
            stores = await open_sqlite(tmp_path / "target.sqlite3", closing, clock)
            target = compose_services(stores.chats, stores.memories, minilm, ScriptedTextModel())
            folders: list[ImportedFolder] = []
            chats = list(read_import(io.BytesIO(first.encode()), folders))
            reports = await ChatController(target, clock).import_chats(chats, folders)
            assert all(report.new for report in reports)
            assert await chats_export(target) == first  # times, folders and all

    asyncio.run(scenario())


def shown(parley: Parley) -> list[Any]:
    """Every chat as `chats show --json` gives it, its version included (a write would bump it)."""
    return [parley.json("chats", "show", info["id"]) for info in parley.json("chats", "list")]


def test_importing_the_same_files_again_changes_nothing(
    parley: Parley, tmp_path: Path, capsys: pytest.CaptureFixture[str], minilm: MiniLMEmbedder
) -> None:
    asyncio.run(a_history(parley.data_dir, minilm))
    first = export(parley, tmp_path / "first.json")
    elsewhere = Parley(tmp_path / "elsewhere", capsys)
    elsewhere.json("chats", "import", str(first))
    elsewhere.json("memories", "import", str(first.with_suffix(".memories.json")))
    before, memories_before = shown(elsewhere), elsewhere.json("memories", "list", "--all")
    for _ in range(2):
        reports = elsewhere.json("chats", "import", str(first))
        assert [(r["new"], r["added"]) for r in reports] == [(False, 0)] * len(reports)
        assert elsewhere.json("memories", "import", str(first.with_suffix(".memories.json")))["added"] == 0
    assert shown(elsewhere) == before
    assert elsewhere.json("memories", "list", "--all") == memories_before
    assert memories_of(export(elsewhere, tmp_path / "again.json")) == memories_of(first)
    # Into the data folder it came from: every chat and memory is its own, found by id.
    assert [r["new"] for r in parley.json("chats", "import", str(first))] == [False] * len(reports)
    assert parley.json("memories", "import", str(first.with_suffix(".memories.json")))["added"] == 0
    code, out = elsewhere("chats", "import", str(first))
    assert code == 0 and out.count("already here: unchanged") == len(reports)


def test_a_chat_here_keeps_what_it_has_and_gets_the_turns_it_lacks(
    parley: Parley, tmp_path: Path, capsys: pytest.CaptureFixture[str], minilm: MiniLMEmbedder
) -> None:
    ids = asyncio.run(a_history(parley.data_dir, minilm))
    lisbon = str(ids["lisbon"])
    shorter = export(parley, tmp_path / "shorter.json")
    elsewhere = Parley(tmp_path / "elsewhere", capsys)
    elsewhere.json("chats", "import", str(shorter))
    elsewhere.json("chats", "rename", lisbon, "Our Lisbon trip")  # changed here since

    async def more_turns() -> None:  # the source goes on talking
        async with AsyncExitStack() as closing:
            stores = await open_sqlite(parley.data_dir / STORE_FILE, closing, utc_now)
            await stores.chats.append(ids["lisbon"], said("Which hotel?", "The one by the river."))

    asyncio.run(more_turns())
    longer = export(parley, tmp_path / "longer.json")
    reports = {r["id"]: r for r in elsewhere.json("chats", "import", str(longer))}
    assert (reports[lisbon]["new"], reports[lisbon]["added"]) == (False, 2)
    assert all(r["added"] == 0 for chat_id, r in reports.items() if chat_id != lisbon)
    chat = elsewhere.json("chats", "show", lisbon)
    assert [turn["parts"][0]["text"] for turn in chat["full_history"]][-2:] == ["Which hotel?", "The one by the river."]
    assert chat["title"] == "Our Lisbon trip"  # what the chat here has is kept
    assert elsewhere.json("chats", "import", str(shorter))[0]["added"] == 0  # fewer turns: none taken away
    assert len(elsewhere.json("chats", "show", lisbon)["full_history"]) == 4


def test_as_new_copies_with_new_ids_once(parley: Parley, tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    ids = asyncio.run(a_history(parley.data_dir, minilm))
    first = export(parley, tmp_path / "first.json")
    originals = {chat["id"]: chat for chat in json.loads(first.read_text())["chats"]}
    reports = parley.json("chats", "import", str(first), "--as-new")
    assert all(r["new"] for r in reports) and not {r["id"] for r in reports} & originals.keys()
    assert len(parley.json("chats", "list")) == 2 * len(originals)
    copies = [parley.json("chats", "show", r["id"]) for r in reports]
    for original, copy in zip(originals.values(), copies, strict=True):
        for field in ("title", "full_history", "assistant_history", "summary_text", "created_at", "last_activity_at"):
            assert copy[field] == original[field], field
    [tiles_copy] = [c for c in copies if c["title"] == "Kitchen tiles"]
    assert tiles_copy["project_id"] == str(ids["folder"])  # the folder of that name, not a second one
    # A second --as-new import finds its copies (their ids come from their content): an interrupted one can
    # be run again without a third copy.
    assert [r["new"] for r in parley.json("chats", "import", str(first), "--as-new")] == [False] * len(reports)
    memories = parley.json("memories", "import", str(first.with_suffix(".memories.json")), "--as-new")
    assert (memories["added"], len(parley.json("memories", "list", "--all"))) == (4, 8)
    exported_ids = {m["id"] for m in memories_of(first)["memories"]}
    held = parley.json("memories", "list", "--all")
    copied = {m["id"]: m for m in held if m["id"] not in exported_ids}
    assert len(copied) == 4
    [turin] = [m for m in copied.values() if m["content"] == "User lives in Turin."]
    assert copied[turin["supersededBy"]]["content"] == "User lives in Milan."  # the copy replaces the copy
    again = parley.json("memories", "import", str(first.with_suffix(".memories.json")), "--as-new")
    assert (again["added"], parley.json("memories", "list", "--all")) == (0, held)  # it finds its copies


def test_an_older_export_still_imports_with_its_ids_and_times(parley: Parley) -> None:
    chat_id, at = str(uuid4()), "2025-12-01T08:00:00+00:00"
    history = [turn.to_json() for turn in said("Tiles or paint?", "Tiles.")]
    chat = {"id": chat_id, "user_id": "local", "project_id": "old-folder-id", "title": "Walls", "full_history": history,
            "assistant_history": history, "summary_text": None, "summary_embedding": None,
            "summary_embedding_model": None, "last_activity_at": at, "created_at": at, "version": 7}  # fmt: skip
    [report] = parley.json("chats", "import", parley.write("v1.json", {"format": "parley.chats/1", "chats": [chat]}))
    assert (report["id"], report["new"]) == (chat_id, True)
    [info] = parley.json("chats", "list")
    assert (info["created_at"], info["last_activity_at"], info["title"]) == (at, at, "Walls")
    assert [folder["name"] for folder in parley.json("chats", "folders")] == ["old-folder-id"]
    memories = {"memories": [{"id": str(uuid4()), "content": "User likes blue tiles.", "title": None,
                "category": "project", "tags": [], "importance": 7, "projectId": "old-folder-id",
                "sourceChatId": chat_id, "createdAt": at, "updatedAt": at, "supersededBy": None}],
                "workingMemory": [{"chatId": chat_id, "chatTitle": "Walls", "notes": {"colour": "blue"}}]}  # fmt: skip
    report = parley.json("memories", "import", parley.write("memories-v1.json", memories))
    assert (report["added"], report["notes_restored"]) == (1, 1)
    [memory] = parley.json("memories", "list")
    folder = parley.json("chats", "folders")[0]["id"]
    assert (memory["projectId"], memory["sourceChatId"], memory["createdAt"]) == (folder, chat_id, at)


@pytest.mark.parametrize(
    ("command", "document", "message"),
    [
        ("chats", {"format": "parley.chats/3", "chats": []}, "newer than this Parley reads"),
        ("chats", {"chats": [{"id": "nope", "full_history": []}]}, "chat 1, a chat's 'id' must be a UUID"),
        ("chats", {"chats": [{"full_history": [], "working_memory": [1]}]}, "chat 1, a chat's 'working_memory'"),
        ("memories", {"format": "parley.memories/9", "memories": []}, "newer than this Parley reads"),
        ("memories", {"memories": [{"content": "short"}]}, "memory 1: "),
    ],
)
def test_a_file_that_cannot_be_imported_says_why_and_writes_nothing(
    parley: Parley, command: str, document: object, message: str
) -> None:
    code, _ = parley(command, "import", parley.write("bad.json", document))
    assert code == 1 and message in parley.err
    assert parley.json("chats", "list") == [] and parley.json("memories", "list") == []


def test_an_import_stopped_between_a_chat_and_its_turns_is_finished_by_the_next(
    parley: Parley, tmp_path: Path, capsys: pytest.CaptureFixture[str], minilm: MiniLMEmbedder
) -> None:
    ids = asyncio.run(a_history(parley.data_dir, minilm))
    first = export(parley, tmp_path / "first.json")
    elsewhere = Parley(tmp_path / "elsewhere", capsys)

    async def stopped() -> None:  # what a stop after the chat's row, before its turns, leaves
        async with AsyncExitStack() as closing:
            stores = await open_sqlite(elsewhere.data_dir / STORE_FILE, closing, utc_now)
            await stores.chats.create(chat_id=ids["tiles"], title="Kitchen tiles")

    asyncio.run(stopped())
    reports = {r["id"]: r for r in elsewhere.json("chats", "import", str(first))}
    assert (reports[str(ids["tiles"])]["new"], reports[str(ids["tiles"])]["added"]) == (False, 36)
    source, copy = (p.json("chats", "show", str(ids["tiles"])) for p in (parley, elsewhere))
    for field in ("full_history", "assistant_history", "summary_text", "summary_embedding"):
        assert copy[field] == source[field], field
