"""The chat controller's folder use cases, on the real SQLite store and the real local embedder."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path

import pytest

from app.chat_import import imported_folder_id, imported_folder_name
from app.controller import ChatController
from app.wiring import compose_services
from chats.embedders.minilm import MiniLMEmbedder
from chats.errors import DuplicateFolderName, FolderNotFound
from chats.import_reader import ImportedChat
from chats.models import NO_FOLDER, Folder, Turn
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from tests.fakes.text_models import ScriptedTextModel

Open = Callable[[Path], AbstractAsyncContextManager[ChatController]]


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.fixture
def open_controller(minilm: MiniLMEmbedder) -> Open:
    """Opens a controller on the store file given, as `parley` does for each command."""

    @asynccontextmanager
    async def opened(path: Path) -> AsyncIterator[ChatController]:
        store = await SqliteChatStore.open(path, "alice")
        memories = await SqliteMemoryStore.open(path, "alice")
        try:
            yield ChatController(compose_services(store, memories, minilm, ScriptedTextModel()))
        finally:
            await memories.close()
            await store.close()

    return opened


@pytest.fixture
async def controller(open_controller: Open, tmp_path: Path) -> AsyncIterator[ChatController]:
    async with open_controller(tmp_path / "chats.sqlite3") as opened:
        yield opened


async def test_folders_are_made_renamed_filled_and_deleted(controller: ChatController) -> None:
    work = await controller.create_folder(" Work ")
    home = await controller.create_folder("Home")
    assert (await controller.rename_folder(home.id, "House")).name == "House"
    filed, loose = await controller.new_chat("Report"), await controller.new_chat("Lunch")
    await controller.move_chat(filed.id, work.id)
    assert [(f.name, f.chats) for f in await controller.folders()] == [("House", 0), ("Work", 1)]
    assert [info.id for info in await controller.list_chats(folder=work.id)] == [filed.id]
    assert [info.id for info in await controller.list_chats(folder=NO_FOLDER)] == [loose.id]
    assert len(await controller.list_chats()) == 2
    await controller.delete_folder(work.id)
    assert {info.id for info in await controller.list_chats(folder=NO_FOLDER)} == {filed.id, loose.id}
    await controller.move_chat(loose.id, home.id)
    await controller.move_chat(loose.id, None)
    assert (await controller.show(loose.id)).project_id is None


async def test_folder_errors_reach_the_caller(controller: ChatController) -> None:
    chat = await controller.new_chat()
    await controller.create_folder("Work")
    with pytest.raises(DuplicateFolderName):
        await controller.create_folder("work")
    with pytest.raises(FolderNotFound):
        await controller.move_chat(chat.id, "missing")


def imported(project_id: str | None, text: str = "Oak or walnut?") -> ImportedChat:
    return ImportedChat(title=None, project_id=project_id, turns=(Turn(role="user", text=text),))


async def test_an_imported_chat_keeps_its_folder(open_controller: Open, tmp_path: Path) -> None:
    async with open_controller(tmp_path / "first.sqlite3") as first:
        kitchen = await first.create_folder("Kitchen")
        reports = await first.import_chats([imported(kitchen.id)])
        assert [info.id for info in await first.list_chats(folder=kitchen.id)] == [reports[0].chat_id]
    async with open_controller(tmp_path / "second.sqlite3") as second:
        for text in ("Oak?", "Walnut?"):  # a second import finds the folder the first one made
            await second.import_chats(
                [imported(kitchen.id, text), imported(kitchen.id, text + "!"), imported(None, text)]
            )
        [folder] = await second.folders()
        assert (folder.name, folder.chats) == (kitchen.id, 4)
        assert len(await second.list_chats(folder=NO_FOLDER)) == 2
        again = await second.import_chats([imported(kitchen.id, "Oak?")])  # the same chat is found, not copied
        assert [report.new for report in again] == [False]
        assert (await second.folders())[0].chats == 4


@pytest.mark.parametrize(
    ("project_id", "name"),
    [(None, ""), ("  ", ""), (" home ", "home"), ("x" * 79 + " y", "x" * 79)],
)
def test_an_imported_folder_is_named_after_its_id(project_id: str | None, name: str) -> None:
    assert imported_folder_name(project_id) == name


def test_an_imported_folder_is_found_by_id_then_by_name() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    folders = [Folder("a", "HOME", at, 0), Folder("home", "Other", at, 0)]
    assert imported_folder_id("home", "home", folders) == "home"
    assert imported_folder_id("elsewhere", "Home", folders) == "a"
    assert imported_folder_id("new", "new", folders) is None
