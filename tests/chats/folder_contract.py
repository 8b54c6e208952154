"""The folders every `ChatStore` keeps: names (trimmed, bounded, unique ignoring case), chats listed by folder,
renaming and deleting, unknown folders, one user's folders hidden from another. A backend's test module
imports the tests: `from tests.chats.folder_contract import *`, beside `store_contract`'s (whose `store`
fixture these use)."""

from __future__ import annotations

from uuid import UUID

import pytest

from chats.errors import ChatNotFound, DuplicateFolderName, FolderNotFound, InvalidFolderName
from chats.models import NO_FOLDER
from chats.store import ChatStore
from tests.chats.store_contract import Clock, StoreFactory, make_store_with_clock


async def test_list_filters_by_folder(store: ChatStore) -> None:
    home = await store.create_folder("Home")
    inside = await store.create(title="a", project_id=home.id)
    outside = await store.create(title="b")
    moved = await store.create(title="c")
    await store.move(moved.id, home.id)
    assert {info.id for info in await store.list_chats(project_id=home.id)} == {inside.id, moved.id}
    assert [info.id for info in await store.list_chats(project_id=NO_FOLDER)] == [outside.id]
    assert len(await store.list_chats()) == 3
    assert [(f.id, f.chats) for f in await store.list_folders()] == [(home.id, 2)]
    assert (await store.load_assistant_context(moved.id)).project_id == home.id  # the voice session's scope
    await store.move(moved.id, None)
    assert (await store.get(moved.id)).project_id is None
    assert (await store.load_assistant_context(moved.id)).project_id is None
    assert {info.id for info in await store.list_chats(project_id=NO_FOLDER)} == {outside.id, moved.id}


async def test_a_new_folder_is_empty_and_named_as_given(make_store: StoreFactory) -> None:
    clock = Clock()
    store = await make_store_with_clock(make_store, clock)
    folder = await store.create_folder("  Kitchen renovation \n")
    assert (folder.name, folder.chats, folder.created_at) == ("Kitchen renovation", 0, clock.now)
    assert str(UUID(folder.id)) == folder.id
    assert await store.list_folders() == [folder]
    assert await store.list_chats(project_id=folder.id) == []
    await store.close()


async def test_folders_are_listed_by_name_ignoring_case(store: ChatStore) -> None:
    for name in ("beta", "Gamma", "alpha", "Beta 2"):
        await store.create_folder(name)
    assert [f.name for f in await store.list_folders()] == ["alpha", "beta", "Beta 2", "Gamma"]


@pytest.mark.parametrize("name", ["", "   ", "x" * 81, " " + "x" * 81])
async def test_a_blank_or_long_folder_name_is_refused(store: ChatStore, name: str) -> None:
    kept = await store.create_folder("Kept")
    for call in (store.create_folder(name), store.rename_folder(kept.id, name)):
        with pytest.raises(InvalidFolderName) as refused:
            await call
        assert isinstance(refused.value, ValueError)
    assert await store.list_folders() == [kept]


async def test_a_name_of_80_characters_fits(store: ChatStore) -> None:
    assert (await store.create_folder(" " + "x" * 80 + " ")).name == "x" * 80


async def test_folder_names_are_unique_ignoring_case(store: ChatStore) -> None:
    work = await store.create_folder("Work")
    home = await store.create_folder("Straße")
    for call in (
        store.create_folder(" WORK "),
        store.create_folder("STRASSE"),
        store.rename_folder(home.id, "work"),
    ):
        with pytest.raises(DuplicateFolderName):
            await call
    assert await store.list_folders() == [home, work]
    assert (await store.rename_folder(work.id, "WORK")).name == "WORK"


async def test_renaming_a_folder_keeps_its_chats(store: ChatStore) -> None:
    folder = await store.create_folder("Garden")
    chat = await store.create(project_id=folder.id)
    renamed = await store.rename_folder(folder.id, "  Allotment ")
    assert (renamed.id, renamed.name, renamed.chats, renamed.created_at) == (
        folder.id,
        "Allotment",
        1,
        folder.created_at,
    )
    assert await store.list_folders() == [renamed]
    assert (await store.get(chat.id)).project_id == folder.id


async def test_deleting_a_folder_moves_its_chats_to_no_folder(store: ChatStore) -> None:
    doomed = await store.create_folder("Doomed")
    other = await store.create_folder("Other")
    inside = [await store.create(title=f"in {i}", project_id=doomed.id) for i in range(2)]
    elsewhere = await store.create(project_id=other.id)
    await store.delete_folder(doomed.id)
    assert [f.id for f in await store.list_folders()] == [other.id]
    assert {info.id for info in await store.list_chats(project_id=NO_FOLDER)} == {chat.id for chat in inside}
    assert [info.id for info in await store.list_chats(project_id=other.id)] == [elsewhere.id]
    assert await store.count() == 3
    for call in (store.list_chats(project_id=doomed.id), store.move(elsewhere.id, doomed.id)):
        with pytest.raises(FolderNotFound):
            await call


async def test_unknown_folder_is_not_found_everywhere(store: ChatStore) -> None:
    folder = await store.create_folder("Real")
    chat = await store.create(project_id=folder.id)
    for call in (
        store.create(project_id="missing"),
        store.move(chat.id, "missing"),
        store.list_chats(project_id="missing"),
        store.rename_folder("missing", "Name"),
        store.delete_folder("missing"),
    ):
        with pytest.raises(FolderNotFound, match="no folder with id missing"):
            await call
    assert (await store.get(chat.id)).project_id == folder.id  # the refused move changed nothing
    assert await store.count() == 1


async def test_users_never_see_each_others_folders(make_store: StoreFactory) -> None:
    alice = await make_store("alice")
    bob = await make_store("bob")
    alices = await alice.create_folder("Work")
    chat = await alice.create(project_id=alices.id)
    bobs = await bob.create_folder("work")  # the same name is free for another user
    assert [f.id for f in await bob.list_folders()] == [bobs.id]
    for call in (
        bob.rename_folder(alices.id, "Mine now"),
        bob.delete_folder(alices.id),
        bob.list_chats(project_id=alices.id),
        bob.create(project_id=alices.id),
        alice.move(chat.id, bobs.id),
    ):
        with pytest.raises(FolderNotFound):
            await call
    with pytest.raises(ChatNotFound):
        await bob.move(chat.id, bobs.id)
    await bob.delete_folder(bobs.id)
    assert [(f.id, f.name, f.chats) for f in await alice.list_folders()] == [(alices.id, "Work", 1)]
    assert (await alice.get(chat.id)).project_id == alices.id
    await alice.close()
    await bob.close()
