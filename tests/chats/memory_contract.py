"""The behaviour every `MemoryStore` must have. A backend's test module binds `make_memory_store` (a
factory of stores bound to a user id, with a `with_clock(user_id, clock)` method) and imports the
tests: `from tests.chats.memory_contract import *`."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from uuid import UUID, uuid4

import numpy as np
import pytest

from chats.embedders.minilm import MiniLMEmbedder
from chats.errors import InvalidMemory, MemoryNotFound
from chats.memory.models import Category, Memory
from chats.memory.store import MemoryChanges, MemoryListing, MemoryQuery, MemoryStore, NewMemory
from chats.models import NO_FOLDER, EmbeddedText, FolderFilter
from tests.chats.store_contract import Clock, unit

MemoryStoreFactory = Callable[[str], Awaitable[MemoryStore]]


def fact(text: str, *values: float, model: str = "m") -> EmbeddedText:
    """`text` with a hand-made vector: for the tests where what the vector means does not matter."""
    return EmbeddedText(text, unit(*values) if values else unit(1), model)


async def embedded(minilm: MiniLMEmbedder, text: str) -> EmbeddedText:
    return EmbeddedText(text, (await minilm.embed([text]))[0], minilm.model_name)


async def add(
    store: MemoryStore,
    content: EmbeddedText,
    category: Category = "context",
    *,
    importance: int = 5,
    project_id: str | None = None,
    tags: Sequence[str] = (),
    supersedes: Sequence[UUID] = (),
) -> Memory:
    return await store.add(
        NewMemory(
            content=content,
            category=category,
            importance=importance,
            project_id=project_id,
            tags=tags,
            supersedes=supersedes,
        )
    )


async def ask(store: MemoryStore, query: EmbeddedText, scope: FolderFilter = None, **options: object) -> list[str]:
    hits = await store.search(MemoryQuery(query.vector, query.model, query.text, scope, **options))  # type: ignore[arg-type]
    return [hit.memory.content for hit in hits]


@pytest.fixture
async def memories(make_memory_store: MemoryStoreFactory) -> AsyncIterator[MemoryStore]:
    opened = await make_memory_store("alice")
    yield opened
    await opened.close()


async def with_clock(make_memory_store: MemoryStoreFactory, clock: Clock, user_id: str = "alice") -> MemoryStore:
    factory = getattr(make_memory_store, "with_clock", None)
    assert factory is not None, "the backend's make_memory_store must offer with_clock(user_id, clock)"
    store: MemoryStore = await factory(user_id, clock)
    return store


async def test_a_memory_round_trips(make_memory_store: MemoryStoreFactory) -> None:
    clock = Clock()
    store = await with_clock(make_memory_store, clock)
    chat_id = uuid4()
    kept = await store.add(
        NewMemory(
            content=fact("User prefers dark mode", 1, 2),
            category="preference",
            importance=9,
            title="  Dark   mode ",
            tags=["ui", " UI ", "settings", ""],
            project_id="folder-1",
            source_chat_id=chat_id,
        )
    )
    assert (kept.user_id, kept.content, kept.title, kept.category) == (
        store.user_id,  # "alice" here; a Supabase store's user is the signed-in one's id
        "User prefers dark mode",
        "Dark mode",
        "preference",
    )
    assert (kept.tags, kept.importance, kept.project_id, kept.source_chat_id) == (
        ("ui", "settings"),
        9,
        "folder-1",
        chat_id,
    )
    assert kept.created_at == kept.updated_at == clock.now
    assert kept.superseded_by is None
    assert kept.embedding.text == kept.content and kept.embedding.model == "m"
    np.testing.assert_allclose(kept.embedding.vector, unit(1, 2), rtol=1e-6)
    again = await store.get(kept.id)
    assert again == kept
    np.testing.assert_allclose(again.embedding.vector, kept.embedding.vector)
    assert kept.scope_tags == (store.user_id, "tag:project:folder-1", "category:preference", "tag:ui", "tag:settings")
    await store.close()


@pytest.mark.parametrize(
    ("content", "category", "importance"),
    [
        ("too short", "context", 5),
        ("x" * 501, "context", 5),
        ("User likes long walks", "hobby", 5),
        ("User likes long walks", "context", 0),
        ("User likes long walks", "context", 11),
    ],
)
async def test_invalid_memories_are_refused_and_nothing_is_kept(
    memories: MemoryStore, content: str, category: str, importance: int
) -> None:
    with pytest.raises(InvalidMemory) as refused:
        await memories.add(NewMemory(content=fact(content), category=category, importance=importance))  # type: ignore[arg-type]
    assert isinstance(refused.value, ValueError)
    assert await memories.count(include_superseded=True) == 0


async def test_update_changes_what_is_given_and_the_time(make_memory_store: MemoryStoreFactory) -> None:
    clock = Clock()
    store = await with_clock(make_memory_store, clock)
    kept = await add(store, fact("User works on a garden shed", 1), "project", tags=["garden"])
    clock.advance(hours=1)
    changed = await store.update(
        kept.id, MemoryChanges(content=fact("User works on a garden shed roof", 0, 1), tags=["roof"])
    )
    assert (changed.content, changed.tags, changed.category, changed.title) == (
        "User works on a garden shed roof",
        ("roof",),
        "project",
        None,
    )
    assert (changed.created_at, changed.updated_at) == (kept.created_at, clock.now)
    np.testing.assert_allclose(changed.embedding.vector, unit(0, 1), rtol=1e-6)
    retitled = await store.update(kept.id, MemoryChanges(title="Shed", category="context", importance=3))
    assert (retitled.title, retitled.category, retitled.importance, retitled.content) == (
        "Shed",
        "context",
        3,
        changed.content,
    )
    assert await ask(store, fact("shed roof", 0, 1), limit=1) == ["User works on a garden shed roof"]
    await store.close()


async def test_unknown_memories_are_not_found_everywhere(memories: MemoryStore) -> None:
    missing = uuid4()
    for call in (
        memories.get(missing),
        memories.update(missing, MemoryChanges(title="x")),
        memories.delete(missing),
        memories.set_embedding(missing, fact("User likes long walks")),
    ):
        with pytest.raises(MemoryNotFound):
            await call


async def test_list_is_newest_first_paged_and_filtered(make_memory_store: MemoryStoreFactory) -> None:
    clock = Clock()
    store = await with_clock(make_memory_store, clock)
    made = []
    for i, category in enumerate(("identity", "preference", "project", "context", "preference")):
        clock.advance(minutes=1)
        made.append(await add(store, fact(f"User fact number {i}"), category))  # type: ignore[arg-type]
    listed = await store.list_memories()
    assert [m.id for m in listed] == [m.id for m in reversed(made)]
    assert [m.id for m in await store.list_memories(MemoryListing(limit=2, offset=1))] == [made[3].id, made[2].id]
    assert [m.id for m in await store.list_memories(MemoryListing(category="preference"))] == [made[4].id, made[1].id]
    assert await store.count() == 5
    await store.close()


async def test_a_superseded_memory_leaves_every_read_but_stays_listed_on_request(memories: MemoryStore) -> None:
    old = await add(memories, fact("User lives in Paris", 1), "identity")
    new = await add(memories, fact("User lives in Berlin", 1, 0.2), "identity", supersedes=[old.id])
    assert (await memories.get(old.id)).superseded_by == new.id
    assert [m.id for m in await memories.list_memories()] == [new.id]
    assert {m.id for m in await memories.list_memories(MemoryListing(include_superseded=True))} == {old.id, new.id}
    assert await ask(memories, fact("where does the user live", 1)) == ["User lives in Berlin"]
    assert [m.id for m in (await memories.preload()).memories] == [new.id]
    assert [hit.memory.id for hit in await memories.find_similar(unit(1), "m", scope=None)] == [new.id]
    assert (await memories.count(), await memories.count(include_superseded=True)) == (1, 2)
    assert [m.id for m in await memories.export()] == [old.id, new.id]


async def test_a_memory_keeps_the_id_it_is_given_and_is_superseded_by_it(memories: MemoryStore) -> None:
    """A copy from another store or an export keeps its id (so copying again finds it), and what it
    replaces points at that id."""
    old_id, new_id = uuid4(), uuid4()
    old = await memories.add(
        NewMemory(content=fact("User lives in Rome", 1), category="identity", importance=10, memory_id=old_id)
    )
    new = await memories.add(
        NewMemory(
            content=fact("User lives in Paris", 1, 0.2),
            category="identity",
            importance=10,
            supersedes=[old_id],
            memory_id=new_id,
        )
    )
    assert (old.id, new.id) == (old_id, new_id)
    assert (await memories.get(old_id)).superseded_by == new_id
    assert [m.id for m in await memories.export()] == [old_id, new_id]


async def test_forgetting_a_fact_forgets_the_versions_it_replaced(memories: MemoryStore) -> None:
    first = await add(memories, fact("User works at Google", 1), "identity")
    second = await add(memories, fact("User works at Meta", 1), "identity", supersedes=[first.id])
    third = await add(memories, fact("User works at Apple", 1), "identity", supersedes=[second.id])
    kept = await add(memories, fact("User likes tea a lot", 0, 1), "preference")
    assert await memories.delete(third.id) == 3
    assert [m.id for m in await memories.export()] == [kept.id]


async def test_search_finds_the_fact_a_question_is_about(memories: MemoryStore, minilm: MiniLMEmbedder) -> None:
    texts = [
        "User's daughter Mia was born in 2019",
        "User prefers TypeScript over JavaScript",
        "User is renovating the kitchen with blue tiles",
        "User goes bouldering every Thursday",
        "User is allergic to peanuts",
    ]
    for text in texts:
        await add(memories, await embedded(minilm, text))
    assert (await ask(memories, await embedded(minilm, "which programming language do I like?"), limit=1)) == [texts[1]]
    assert (await ask(memories, await embedded(minilm, "what colour are the kitchen tiles"), limit=1)) == [texts[2]]
    assert (await ask(memories, await embedded(minilm, "when was Mia born"), limit=1)) == [texts[0]]
    allergy = await ask(memories, await embedded(minilm, "does the user have a food allergy?"), limit=10)
    assert allergy[0] == texts[4] and len(allergy) < 5  # what is unrelated is left out
    for limit in (0, 11):
        with pytest.raises(InvalidMemory):
            await ask(memories, await embedded(minilm, "anything"), limit=limit)


async def test_search_filters_by_category_tags_and_model(memories: MemoryStore) -> None:
    await add(memories, fact("User likes green tea", 1), "preference", tags=["drinks", "Morning"])
    await add(memories, fact("User drinks black tea", 1), "context", tags=["drinks"])
    await add(memories, fact("User drinks tea daily", 1, model="other"), "context")
    query = fact("tea", 1)
    assert sorted(await ask(memories, query)) == ["User drinks black tea", "User likes green tea"]
    assert await ask(memories, query, category="context") == ["User drinks black tea"]
    assert await ask(memories, query, tags=("morning", "drinks")) == ["User likes green tea"]
    assert await ask(memories, query, tags=("missing",)) == []
    assert await ask(memories, fact("tea", 1, model="other")) == ["User drinks tea daily"]


async def test_search_words_are_never_query_syntax(memories: MemoryStore) -> None:
    await add(memories, fact('User said "NEAR(a b)" OR * AND -x once', 1))
    assert await ask(memories, fact('"NEAR(a b)" OR * AND -x', 0, 1)) == ['User said "NEAR(a b)" OR * AND -x once']


async def test_find_similar_is_cosine_only_most_similar_first(memories: MemoryStore) -> None:
    near = await add(memories, fact("User likes hiking a lot", 1, 0.1))
    far = await add(memories, fact("User owns a red bicycle", 0.1, 1))
    hits = await memories.find_similar(unit(1), "m", scope=NO_FOLDER)
    assert [hit.memory.id for hit in hits] == [near.id, far.id]
    assert hits[0].score == pytest.approx(hits[0].similarity) == pytest.approx(0.995, abs=1e-3)
    assert [h.memory.id for h in await memories.find_similar(unit(1), "m", scope=NO_FOLDER, min_similarity=0.5)] == [
        near.id
    ]
    assert await memories.find_similar(unit(1), "other", scope=NO_FOLDER) == []


async def test_preload_holds_personal_facts_in_a_stable_order(make_memory_store: MemoryStoreFactory) -> None:
    clock = Clock()
    store = await with_clock(make_memory_store, clock)
    for text, category, importance in (
        ("User's sister is named Ana", "relationship", 8),
        ("User prefers short answers", "preference", 9),
        ("User is a nurse in Lisbon", "identity", 10),
        ("User is fixing the garden shed", "project", 10),
        ("User had pasta for lunch", "context", 5),
        ("User prefers metric units", "preference", 10),
    ):
        clock.advance(minutes=1)
        await add(store, fact(text), category, importance=importance)  # type: ignore[arg-type]
    block = await store.preload()
    assert [m.content for m in block.memories] == [
        "User is a nurse in Lisbon",
        "User prefers metric units",
        "User prefers short answers",
        "User's sister is named Ana",
    ]
    assert "garden shed" not in block.text and "pasta" not in block.text
    assert block.text.index("nurse") < block.text.index("metric") < block.text.index("short") < block.text.index("Ana")
    assert 0 < block.tokens <= 500 and block.left_out == 0
    assert await store.preload() == block
    small = await store.preload(max_tokens=60)
    assert [m.content for m in small.memories] == ["User is a nurse in Lisbon", "User prefers metric units"]
    assert small.tokens <= 60 and small.left_out == 2
    await store.close()


async def test_re_embedding_replaces_the_vector_only(memories: MemoryStore) -> None:
    kept = await add(memories, fact("User likes long walks", 1))
    [(memory_id, value)] = await memories.embedded_texts()
    assert (memory_id, value.text) == (kept.id, kept.content)
    await memories.set_embedding(kept.id, EmbeddedText(kept.content, unit(0, 1), "new-model"))
    after = await memories.get(kept.id)
    assert (after.embedding.model, after.updated_at) == ("new-model", kept.updated_at)
    assert await ask(memories, fact("walks", 0, 1, model="new-model")) == [kept.content]
    with pytest.raises(InvalidMemory):
        await memories.set_embedding(kept.id, EmbeddedText("another text", unit(1), "m"))


async def test_a_second_store_of_the_same_user_sees_new_memories(make_memory_store: MemoryStoreFactory) -> None:
    first = await make_memory_store("alice")
    second = await make_memory_store("alice")
    assert await ask(second, fact("walks", 1)) == []
    await add(first, fact("User likes long walks", 1))
    assert await ask(second, fact("walks", 1)) == ["User likes long walks"]
    await first.close()
    await second.close()


async def test_users_and_folders_never_see_each_others_memories(make_memory_store: MemoryStoreFactory) -> None:
    """Alice's work memories (folder X) and Bob never meet Alice's other scopes, by any path; Alice's
    personal facts are hers in every folder, and only hers."""
    alice, bob = await make_memory_store("alice"), await make_memory_store("bob")
    secret = await add(alice, fact("User's project codename is Falcon", 1), "project", project_id="X")
    note = await add(alice, fact("User's Falcon notes are in the blue binder", 1), "context", project_id="X")
    personal = await add(alice, fact("User's name is Alice Falcon", 1), "identity", project_id="X")
    loose = await add(alice, fact("User's Falcon bike needs new tyres", 1), "project")
    query = fact("Falcon", 1)

    # Bob: nothing, by any path, in any scope.
    for scope in (None, NO_FOLDER, "X", "Y"):
        assert await ask(bob, query, scope) == []
        assert await bob.find_similar(unit(1), "m", scope=scope) == []
        assert await bob.list_memories(MemoryListing(scope=scope, include_superseded=True)) == []
    assert (await bob.preload()).memories == ()
    assert await bob.export() == []
    assert await bob.count(include_superseded=True) == 0
    assert await bob.embedded_texts() == []
    for memory in (secret, personal):
        for call in (
            bob.get(memory.id),
            bob.update(memory.id, MemoryChanges(title="mine")),
            bob.delete(memory.id),
            bob.set_embedding(memory.id, memory.embedding),
        ):
            with pytest.raises(MemoryNotFound):
                await call
    await add(bob, fact("User's bike is a Falcon", 1), "project", supersedes=[loose.id])
    assert (await alice.get(loose.id)).superseded_by is None

    # Alice in folder Y: her personal fact only.
    assert await ask(alice, query, "Y") == [personal.content]
    assert [h.memory.id for h in await alice.find_similar(unit(1), "m", scope="Y")] == [personal.id]
    assert [m.id for m in await alice.list_memories(MemoryListing(scope="Y"))] == [personal.id]
    for memory in (secret, note, loose):
        for call in (
            alice.get(memory.id, scope="Y"),
            alice.update(memory.id, MemoryChanges(title="t"), scope="Y"),
            alice.delete(memory.id, scope="Y"),
        ):
            with pytest.raises(MemoryNotFound):
                await call
    # Outside folders: the unfoldered pool and the personal fact.
    assert sorted(await ask(alice, query, NO_FOLDER)) == sorted([personal.content, loose.content])
    # In folder X: X's pool and the personal fact, never the unfoldered pool.
    assert sorted(await ask(alice, query, "X")) == sorted([secret.content, note.content, personal.content])
    assert (await alice.get(secret.id, scope="X")).id == secret.id
    # Every folder (the Memory page): all of Alice's, and the pre-loaded block is personal only.
    assert len(await ask(alice, query, None, limit=10)) == 4
    assert [m.id for m in (await alice.preload()).memories] == [personal.id]
    assert {m.id for m in await alice.export()} == {secret.id, note.id, personal.id, loose.id}
    assert await alice.delete(secret.id, scope="X") == 1
    await alice.close()
    await bob.close()
