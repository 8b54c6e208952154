"""Compaction, topics and titles through the real SQLite store and the real local embedder."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from chats.compaction import SUMMARY_WINDOW_SIZE, TAIL_SIZE
from chats.embedders.embedding import PIECE_CHARS, pieces
from chats.embedders.minilm import MiniLMEmbedder
from chats.maintenance import ChatMaintainer, MaintenanceWorker
from chats.models import Turn
from chats.sqlite.store import SqliteChatStore
from chats.text.offline_text import OfflineTextModel
from tests.fakes.text_models import ScriptedTextModel


def exchange(i: int, topic: str = "the kitchen renovation") -> list[Turn]:
    return [
        Turn(role="user", text=f"Question {i} about {topic}: what should we do next?"),
        Turn(role="model", text=f"Answer {i}: for {topic}, the next step is step {i}."),
    ]


def conversation(exchanges: int, topic: str = "the kitchen renovation") -> list[Turn]:
    return [turn for i in range(exchanges) for turn in exchange(i, topic)]


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteChatStore]:
    opened = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    yield opened
    await opened.close()


async def test_past_the_window_old_turns_become_one_summary(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    text_model = ScriptedTextModel(summaries=["The user is renovating the kitchen with oak cabinets."])
    maintainer = ChatMaintainer(store, minilm, text_model)
    turns = conversation(20)
    chat = await store.create(turns=turns)
    report = await maintainer.maintain(chat.id)
    after = await store.get(chat.id)
    assert report.compactions == 1
    assert after.full_history == tuple(turns)
    assert after.assistant_history[0].summary
    assert after.assistant_history[0].text == "The user is renovating the kitchen with oak cabinets."
    assert after.assistant_history[1:] == tuple(turns[-TAIL_SIZE:])
    assert text_model.summarized == [tuple(turns[:-TAIL_SIZE])]
    assert after.summary is not None
    assert after.summary.text == after.assistant_history[0].text
    assert after.summary.model == minilm.model_name


async def test_a_request_for_another_chat_is_not_what_a_summary_is_about(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    text_model = ScriptedTextModel(summaries=["The user is renovating the kitchen."])
    request = [
        Turn(role="user", text="Let's go back to the chat about the venue.", navigation=True),
        Turn(role="model", text="I found no chat about a venue.", navigation=True),
    ]
    turns = [*request, *conversation(20)]
    chat = await store.create(turns=turns)
    await ChatMaintainer(store, minilm, text_model).maintain(chat.id)
    assert text_model.summarized == [tuple(turns[len(request) : -TAIL_SIZE])]


async def test_within_the_window_nothing_is_compacted(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    text_model = ScriptedTextModel()
    chat = await store.create(turns=conversation(SUMMARY_WINDOW_SIZE // 2))
    assert (await ChatMaintainer(store, minilm, text_model).maintain(chat.id)).compactions == 0
    assert text_model.summarized == []


async def test_the_summary_never_exceeds_a_quarter_of_what_it_replaces(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    wordy = "This summary is far too long. " * 200
    chat = await store.create(turns=conversation(16))
    await ChatMaintainer(store, minilm, ScriptedTextModel(summaries=[wordy])).maintain(chat.id)
    after = await store.get(chat.id)
    replaced = sum(len(t.text) for t in after.full_history[:-TAIL_SIZE])
    assert 0 < len(after.assistant_history[0].text) <= replaced // 4
    assert after.assistant_history[0].text.endswith(".")


async def test_turns_appended_while_summarising_are_kept(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    text_model = ScriptedTextModel()
    text_model.gate = asyncio.Event()
    turns = conversation(16)
    chat = await store.create(turns=turns)
    compaction = asyncio.create_task(ChatMaintainer(store, minilm, text_model).maintain(chat.id))
    await text_model.waiting.wait()
    late = exchange(99, "the garden")
    await store.append(chat.id, late)
    text_model.gate.set()
    await compaction
    after = await store.get(chat.id)
    assert after.assistant_history[1:] == (*turns[-TAIL_SIZE:], *late)
    assert after.full_history == (*turns, *late)


async def test_a_young_chat_is_titled_after_its_first_exchange(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    maintainer = ChatMaintainer(store, minilm, ScriptedTextModel(titles=["Kitchen renovation"]))
    question, answer = exchange(0)
    chat = await store.create(turns=[question])
    report = await maintainer.maintain(chat.id)
    assert (report.titled, report.topic_refreshed) == (False, True)
    assert (await store.get(chat.id)).title is None
    await store.append(chat.id, [answer])
    assert (await maintainer.maintain(chat.id)).titled
    context = await store.load_assistant_context(chat.id)
    assert context.title == "Kitchen renovation"
    assert context.topic is not None
    assert context.topic.text == f"{question.text} {answer.text}"
    assert context.topic.model == minilm.model_name


async def test_a_young_chats_topic_vector_covers_all_it_says(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    # all-MiniLM-L6-v2 reads 256 word pieces: a subject raised after a long start still counts.
    maintainer = ChatMaintainer(store, minilm, ScriptedTextModel(titles=["Kitchen and bread"]))
    turns = [
        *conversation(12),
        Turn(role="user", text="Different subject: my sourdough loaves come out flat and dense."),
        Turn(role="model", text="Sourdough that stays flat is often under-proofed; is your starter active?"),
    ]
    chat = await store.create(turns=turns)
    await maintainer.maintain(chat.id)
    topic = (await store.load_assistant_context(chat.id)).topic
    assert topic is not None and len(topic.text) > 2 * PIECE_CHARS
    [query, start] = await minilm.embed(["baking sourdough bread", pieces(topic.text)[0]])
    assert float(topic.vector @ query) > float(start @ query) + 0.05


async def test_the_worker_titles_a_chat_by_its_subject_after_one_exchange(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    # The real offline title maker behind the real worker: a greeting names nothing, so the chat stays
    # untitled (the list shows "New chat") only until an exchange says what it is about.
    greeting = [Turn(role="user", text="Hi there!"), Turn(role="model", text="Hello! How can I help you today?")]
    question = Turn(
        role="user",
        text="My sourdough loaves keep coming out flat and dense. I feed the starter every day, what am I doing wrong?",
    )
    answer = Turn(
        role="model",
        text="Flat, dense loaves usually mean the dough is under-proofed, or the starter was not active enough "
        "when you mixed it. Does your starter double within four to six hours of a feed?",
    )
    chat = await store.create(turns=greeting)
    async with MaintenanceWorker(ChatMaintainer(store, minilm, OfflineTextModel())) as worker:
        worker.request(chat.id)
        await worker.idle()
        assert (await store.get(chat.id)).title is None
        await store.append(chat.id, [question, answer])
        worker.request(chat.id)
        await worker.idle()
    assert (await store.get(chat.id)).title == "Flat sourdough loaves"


async def test_a_title_stays_while_the_focus_stays(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    text_model = ScriptedTextModel(
        summaries=[
            "The user is renovating the kitchen: oak cabinets, a budget of 18,500 euros.",
            "The user is renovating the kitchen with oak cabinets and chose a granite countertop.",
        ],
        titles=["Kitchen renovation", "Should not be used"],
    )
    maintainer = ChatMaintainer(store, minilm, text_model)
    chat = await store.create(turns=conversation(16))
    await maintainer.maintain(chat.id)
    assert (await store.get(chat.id)).title == "Kitchen renovation"
    await store.append(chat.id, conversation(10))
    assert (await maintainer.maintain(chat.id)).compactions == 1
    assert (await store.get(chat.id)).title == "Kitchen renovation"


async def test_a_moved_focus_gets_a_new_title(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    text_model = ScriptedTextModel(
        summaries=[
            "The user is renovating the kitchen: oak cabinets, a budget of 18,500 euros.",
            "The user now plans a two-week holiday in Japan in April: Kyoto temples and Tokyo food.",
        ],
        titles=["Kitchen renovation", "Trip to Japan"],
    )
    maintainer = ChatMaintainer(store, minilm, text_model)
    chat = await store.create(turns=conversation(16))
    await maintainer.maintain(chat.id)
    await store.append(chat.id, conversation(10, "the trip to Japan"))
    await maintainer.maintain(chat.id)
    assert (await store.get(chat.id)).title == "Trip to Japan"


async def test_a_title_the_user_chose_survives_compaction(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    chat = await store.create(title="My kitchen", turns=conversation(16))
    await ChatMaintainer(store, minilm, ScriptedTextModel(titles=["Generated"])).maintain(chat.id)
    assert (await store.get(chat.id)).title == "My kitchen"


async def test_the_worker_maintains_off_the_callers_path(store: SqliteChatStore, minilm: MiniLMEmbedder) -> None:
    text_model = ScriptedTextModel()
    text_model.gate = asyncio.Event()
    chat = await store.create(turns=conversation(16))
    async with MaintenanceWorker(ChatMaintainer(store, minilm, text_model)) as worker:
        worker.request(chat.id)
        await text_model.waiting.wait()
        # The caller goes on appending while the summary is being written.
        await store.append(chat.id, exchange(50))
        worker.request(chat.id)
        text_model.gate.set()
        await worker.idle()
    after = await store.get(chat.id)
    assert after.assistant_history[0].summary
    assert after.assistant_history[-2:] == tuple(exchange(50))


async def test_a_worker_cancelled_while_it_finishes_stops_its_task(
    store: SqliteChatStore, minilm: MiniLMEmbedder
) -> None:
    # The window closing while the voice loop waits for the last chats to be maintained: the worker's task
    # must end with it, before the store closes (it used to run on, and fail on the closed store).
    text_model = ScriptedTextModel()
    text_model.gate = asyncio.Event()
    chat = await store.create(turns=conversation(16))

    async def finish_maintaining() -> None:
        async with MaintenanceWorker(ChatMaintainer(store, minilm, text_model)) as worker:
            worker.request(chat.id)  # and leave: the worker waits for this chat's summary (gated)

    leaving = asyncio.create_task(finish_maintaining())
    await text_model.waiting.wait()
    leaving.cancel()
    await asyncio.gather(leaving, return_exceptions=True)
    assert leaving.cancelled()
    assert [task for task in asyncio.all_tasks() if task.get_name() == "chat-maintenance"] == []
