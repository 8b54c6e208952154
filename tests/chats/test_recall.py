"""Recall over past messages with real chats, SQLite and MiniLM. The pure ranking and planning:
test_recall_ranking.py; the vectors' index: test_recall_index.py."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from uuid import uuid4

import pytest

from chats.compaction import summary_turn
from chats.embedders.minilm import MiniLMEmbedder
from chats.errors import InvalidRecallQuery
from chats.maintenance import TurnIndexer
from chats.models import NO_FOLDER, EmbeddedText
from chats.recall import Recaller, seen_turns_of
from chats.sqlite.store import SqliteChatStore
from chats.store import TurnVector
from tests.chats.recall_chats import AT, GARDEN, HOLIDAY, KITCHEN, dialogue, embedded_chat


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteChatStore]:
    opened = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    yield opened
    await opened.close()


async def test_the_decision_is_recalled_with_its_neighbours(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    kitchen = await embedded_chat(store, minilm, KITCHEN, title="Kitchen renovation")
    await embedded_chat(store, minilm, GARDEN)
    await embedded_chat(store, minilm, HOLIDAY)
    hits = await Recaller(store, minilm).recall("what did we decide about the tiles?", current_chat=None, seen_turns=0)
    assert 1 <= len(hits) <= 3
    best = hits[0]
    assert (best.chat_id, best.chat_title, best.turn.index) == (kitchen, "Kitchen renovation", 4)
    assert best.turn.text == KITCHEN[4][1] and best.turn.role == "user" and best.turn.at == AT
    assert [t.text for t in best.before] == [text for _, text in KITCHEN[2:4]]
    assert [t.text for t in best.after] == [text for _, text in KITCHEN[5:7]]
    shown = [(h.chat_id, t.index) for h in hits for t in (*h.before, h.turn, *h.after)]
    assert len(shown) == len(set(shown))
    assert best.to_json()["chatId"] == str(kitchen)


async def test_what_the_model_sees_is_not_recalled_but_older_turns_are(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    kitchen = await embedded_chat(store, minilm, KITCHEN)
    recaller = Recaller(store, minilm)
    # The model has the last four turns verbatim (a summary stands for the first four).
    assistant_history = [summary_turn("They planned the kitchen.", AT), *dialogue(KITCHEN[4:])]
    seen = seen_turns_of(assistant_history)
    hits = await recaller.recall("tiles for the kitchen floor", current_chat=kitchen, seen_turns=seen, neighbours=2)
    shown = {t.index for h in hits for t in (*h.before, h.turn, *h.after) if h.chat_id == kitchen}
    assert shown and max(shown) < len(KITCHEN) - seen
    assert 2 in {h.turn.index for h in hits}  # "we need to pick tiles", folded into the summary
    everything = await recaller.recall("tiles", current_chat=kitchen, seen_turns=len(KITCHEN))
    assert everything == []
    # Another chat's id changes nothing about the kitchen's turns.
    anywhere = await recaller.recall("terracotta tiles decided", current_chat=uuid4(), seen_turns=8)
    assert anywhere[0].turn.index == 4


async def test_by_default_what_the_assistant_history_holds_now_is_left_out(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    kitchen = await embedded_chat(store, minilm, KITCHEN)
    context = await store.load_assistant_context(kitchen)
    await store.replace_assistant_history(
        kitchen,
        expected_version=context.version,
        assistant_history=[summary_turn("They planned the kitchen.", AT), *dialogue(KITCHEN[2:])],
        summary=None,
    )
    recaller = Recaller(store, minilm)

    async def shown(query: str) -> set[int]:
        hits = await recaller.recall(query, current_chat=kitchen, limit=10)
        return {t.index for h in hits for t in (*h.before, h.turn, *h.after)}

    assert await shown("kitchen renovation budget and oak cabinets") == {0, 1}
    # The live session's turns reach the store as they are spoken: the model has them, so they stay out.
    await store.append(kitchen, dialogue([("user", "Actually, make the tiles slate instead.")]))
    assert all(index < 2 for index in await shown("slate tiles instead"))
    await store.delete(kitchen)
    assert await recaller.recall("slate tiles", current_chat=kitchen) == []


async def test_recall_keeps_to_a_folder(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    house = await store.create_folder("House")
    kitchen = await embedded_chat(store, minilm, KITCHEN, project_id=house.id)
    garden = await embedded_chat(store, minilm, GARDEN)
    recaller = Recaller(store, minilm)
    query = "what should we do about the garden and the tiles?"
    inside = await recaller.recall(query, current_chat=None, seen_turns=0, project_id=house.id)
    outside = await recaller.recall(query, current_chat=None, seen_turns=0, project_id=NO_FOLDER)
    assert inside and {h.chat_id for h in inside} == {kitchen}
    assert outside and {h.chat_id for h in outside} == {garden}


async def test_nothing_relevant_recalls_nothing(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    await embedded_chat(store, minilm, GARDEN)
    recaller = Recaller(store, minilm)
    assert await recaller.recall("the wifi password of the office", current_chat=None, seen_turns=0) == []
    assert await recaller.recall("   ", current_chat=None, seen_turns=0) == []


async def test_turns_not_yet_embedded_are_found_by_their_words(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    chat = await store.create(turns=dialogue(KITCHEN))
    hits = await Recaller(store, minilm).recall("terracotta tiles", current_chat=None, seen_turns=0, limit=1)
    # "Terracotta it is. I'll note 60 by 60 terracotta tiles." says both words, terracotta twice.
    assert [(h.chat_id, h.turn.index) for h in hits] == [(chat.id, 5)]
    assert KITCHEN[4][1] in [t.text for t in hits[0].before]


async def test_another_users_turns_are_never_recalled(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    path = tmp_path / "chats.sqlite3"
    alice = await SqliteChatStore.open(path, "alice")
    bob = await SqliteChatStore.open(path, "bob")
    secret = await embedded_chat(alice, minilm, KITCHEN)
    bobs = await embedded_chat(bob, minilm, HOLIDAY)
    folder = await bob.create_folder("Bob's")
    recaller = Recaller(bob, minilm)
    query = "what did we decide about the terracotta tiles?"
    for hits in (
        await recaller.recall(query, current_chat=None, seen_turns=0, limit=10, neighbours=5),
        await recaller.recall(query, current_chat=secret, seen_turns=1, limit=10),
        await recaller.recall(query, current_chat=bobs, seen_turns=1, limit=10),
        await recaller.recall(query, current_chat=None, seen_turns=0, project_id=folder.id),
        await recaller.recall(query, current_chat=None, seen_turns=0, project_id=NO_FOLDER),
    ):
        assert all(h.chat_id == bobs for h in hits)
        assert not any("terracotta" in t.text for h in hits for t in (*h.before, h.turn, *h.after))
    assert (await Recaller(alice, minilm).recall(query, current_chat=None, seen_turns=0))[0].chat_id == secret
    await alice.close()
    await bob.close()


async def test_limits_are_checked(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    recaller = Recaller(store, minilm)
    for limit, neighbours in ((0, 2), (11, 2), (3, -1), (3, 6)):
        with pytest.raises(InvalidRecallQuery):
            await recaller.recall("tiles", current_chat=None, seen_turns=0, limit=limit, neighbours=neighbours)


async def test_the_chats_needing_vectors_stay_exact_through_rewrites_appends_and_deletes(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    model = minilm.model_name
    done = await embedded_chat(store, minilm, KITCHEN)
    waiting = (await store.create(turns=dialogue(GARDEN))).id
    assert await store.chats_without_turn_vectors(model) == [waiting]
    # A re-embedded turn replaces its row (INSERT OR REPLACE): the chat is not counted twice as done.
    text = KITCHEN[0][1]
    again = EmbeddedText(text, (await minilm.embed([text]))[0], model)
    await store.set_turn_vectors([TurnVector(done, 0, again), TurnVector(done, 0, again)])
    assert await store.chats_without_turn_vectors(model) == [waiting]
    await store.append(done, dialogue([("user", "One more thing: the grout should be dark grey.")]))
    assert await store.chats_without_turn_vectors(model) == [done, waiting]  # most recent activity first
    await TurnIndexer(store, minilm).embed_chat(done)
    assert await store.chats_without_turn_vectors(model) == [waiting]
    assert set(await store.chats_without_turn_vectors("another model")) == {done, waiting}
    await store.delete(waiting)
    await store.delete(done)
    assert await store.chats_without_turn_vectors(model) == []
