"""The memory use cases on the real SQLite store and the real embedder."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import uuid4

import pytest

from chats.embedders.minilm import MiniLMEmbedder
from chats.errors import InvalidMemory, MemoryNotFound
from chats.memory.models import scope_of, scope_tags, visible_in
from chats.memory.service import Duplicate, MemoryService, Saved, choose_to_forget
from chats.models import NO_FOLDER
from chats.sqlite.memories import SqliteMemoryStore

REASON = "The user asked to remember this"


@pytest.fixture
async def service(tmp_path: Path, minilm: MiniLMEmbedder) -> AsyncIterator[MemoryService]:
    store = await SqliteMemoryStore.open(tmp_path / "chats.sqlite3", "alice")
    yield MemoryService(store, minilm)
    await store.close()


async def saved(outcome: Saved | Duplicate) -> Saved:
    assert isinstance(outcome, Saved), outcome
    return outcome


async def test_save_keeps_a_third_person_fact_with_its_importance(service: MemoryService) -> None:
    chat = uuid4()
    outcome = await saved(
        await service.save(
            "I prefer TypeScript for all my projects", "preference", REASON, project_id=None, source_chat_id=chat
        )
    )
    memory = outcome.memory
    assert (memory.content, memory.category, memory.importance) == (
        "User prefers TypeScript for all their projects",
        "preference",
        10,
    )
    assert (memory.source_chat_id, memory.embedding.text, outcome.superseded) == (chat, memory.content, ())


async def test_saving_the_same_fact_again_answers_with_the_existing_one(service: MemoryService) -> None:
    first = await saved(await service.save("User prefers using TypeScript", "preference", REASON, project_id=None))
    repeat = await service.save("I like TypeScript", "preference", REASON, project_id=None)
    assert isinstance(repeat, Duplicate) and repeat.reason == "same details"
    assert repeat.existing.id == first.memory.id
    exact = await service.save("the user prefers using typescript.", "identity", REASON, project_id="work")
    assert isinstance(exact, Duplicate) and exact.reason == "same text"


async def test_a_different_date_is_not_a_duplicate(service: MemoryService) -> None:
    await saved(await service.save("My daughter was born in 2019", "relationship", REASON, project_id=None))
    assert isinstance(await service.save("My son was born in 2021", "relationship", REASON, project_id=None), Saved)
    assert isinstance(
        await service.save("My daughter was born in 2021", "relationship", REASON, project_id=None), Saved
    )


async def test_a_move_supersedes_the_old_home(service: MemoryService) -> None:
    paris = await saved(await service.save("I live in Paris", "identity", REASON, project_id=None))
    berlin = await saved(await service.save("I moved to Berlin", "identity", REASON, project_id=None))
    assert [m.id for m in berlin.superseded] == [paris.memory.id]
    hits = await service.search("where does the user live?", scope=NO_FOLDER)
    assert [h.memory.content for h in hits] == ["User moved to Berlin"]
    assert [m.content for m in (await service.store.preload()).memories] == ["User moved to Berlin"]
    assert await service.forget(berlin.memory.id) == 2
    assert await service.store.count(include_superseded=True) == 0


async def test_a_new_employer_supersedes_the_old_one_however_far_apart_their_words(service: MemoryService) -> None:
    hooli = await saved(await service.save("User started working at Hooli", "identity", REASON, project_id=None))
    stark = await saved(await service.save("User has a job at Stark", "identity", REASON, project_id=None))
    assert [m.id for m in stark.superseded] == [hooli.memory.id]  # their cosine is 0.37


async def test_the_same_move_said_otherwise_is_a_duplicate(service: MemoryService) -> None:
    porto = await saved(await service.save("User lives in Porto now", "identity", REASON, project_id=None))
    again = await service.save("User moved to Porto last month", "identity", REASON, project_id=None)
    assert isinstance(again, Duplicate) and again.existing.id == porto.memory.id and again.reason == "same fact"


async def test_a_dog_named_in_passing_is_repeated_and_renamed(service: MemoryService) -> None:
    kofi = await saved(
        await service.save("My dog Kofi needs a long walk every day", "relationship", REASON, project_id=None)
    )
    again = await service.save("My dog is called Kofi", "relationship", REASON, project_id=None)
    assert isinstance(again, Duplicate) and again.existing.id == kofi.memory.id and again.reason == "same fact"
    tomas = await saved(
        await service.save("User's dog Tomás needs a long walk every day", "relationship", REASON, project_id=None)
    )
    assert [m.id for m in tomas.superseded] == [kofi.memory.id]
    beach = await saved(await service.save("User's dog Tomás loves the beach", "relationship", REASON, project_id=None))
    assert beach.superseded == ()


async def test_a_language_said_otherwise_is_a_duplicate_and_another_is_not(service: MemoryService) -> None:
    japanese = await saved(await service.save("I speak Japanese fairly well", "identity", REASON, project_id=None))
    again = await service.save("I can get by in Japanese", "identity", REASON, project_id=None)
    assert isinstance(again, Duplicate) and again.existing.id == japanese.memory.id
    spanish = await saved(await service.save("I am learning Spanish", "identity", REASON, project_id=None))
    german = await saved(await service.save("I can get by in German", "identity", REASON, project_id=None))
    assert spanish.superseded == german.superseded == ()


@pytest.mark.parametrize(
    ("content", "category", "reasoning", "message"),
    [
        ("short", "identity", REASON, "too short"),
        ("User is a nurse", "hobby", REASON, "category must be one of"),
        ("User is a nurse", "identity", "because", "reasoning must be"),
        ("We moved to Lisbon", "identity", REASON, "third person"),
    ],
)
async def test_invalid_saves_say_why(
    service: MemoryService, content: str, category: str, reasoning: str, message: str
) -> None:
    with pytest.raises(InvalidMemory, match=message):
        await service.save(content, category, reasoning, project_id=None)
    assert await service.store.count(include_superseded=True) == 0


async def test_add_memory_defaults_to_context_in_the_folder(service: MemoryService) -> None:
    outcome = await saved(await service.add("User's tile order ships on Friday", project_id="kitchen", tags=["tiles"]))
    assert (outcome.memory.category, outcome.memory.project_id, outcome.memory.tags) == (
        "context",
        "kitchen",
        ("tiles",),
    )
    assert [h.memory.id for h in await service.search("when do the tiles arrive", scope="kitchen")] == [
        outcome.memory.id
    ]
    assert await service.search("when do the tiles arrive", scope="garden") == []
    assert await service.search("when do the tiles arrive", scope=NO_FOLDER, tags=["tiles"]) == []
    for limit in (0, 11):
        with pytest.raises(InvalidMemory):
            await service.search("tiles", scope="kitchen", limit=limit)


async def test_update_re_embeds_and_rescores(service: MemoryService) -> None:
    kept = await saved(await service.add("User is painting the fence", project_id=None))
    changed = await service.update(kept.memory.id, content="I am painting the fence green", category="project")
    assert (changed.content, changed.category, changed.importance) == ("User is painting the fence green", "project", 7)
    assert changed.embedding.text == changed.content
    assert [h.memory.id for h in await service.search("what colour is the fence", scope=NO_FOLDER)] == [changed.id]
    with pytest.raises(MemoryNotFound):
        await service.update(uuid4(), title="x")


def test_the_folder_rule_and_its_tags() -> None:
    assert visible_in("identity", "work", "home") and visible_in("preference", None, "home")
    assert visible_in("project", "work", "work") and not visible_in("project", "work", "home")
    assert visible_in("context", None, NO_FOLDER) and not visible_in("context", "work", NO_FOLDER)
    assert visible_in("context", "work", None)
    assert scope_of(None) is NO_FOLDER and scope_of("work") == "work"
    assert scope_tags("alice", None) == ("alice", "tag:project:none")
    assert scope_tags("alice", "p1", "project", ["a"]) == ("alice", "tag:project:p1", "category:project", "tag:a")


async def test_forget_finds_the_one_fact_meant_or_asks(service: MemoryService) -> None:
    work = await saved(await service.save("I work at Google as a designer", "identity", REASON, project_id=None))
    await saved(await service.save("I prefer tea over coffee", "preference", REASON, project_id=None))
    choice = await service.find_to_forget("forget where I work", scope=NO_FOLDER)
    assert (choice.outcome, [m.id for m in choice.options]) == ("forget", [work.memory.id])
    assert (await service.find_to_forget("forget the tax deadline", scope=NO_FOLDER)).outcome == "none"
    assert choose_to_forget([]).outcome == "none"
