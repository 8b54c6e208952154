"""Asking what Parley knows: "what do you know about me" lists what is saved, most important first, and a
search that matches nothing says so without denying the rest (issue 23). From the user's side: the
memory tools over a real SQLite store and the real embedder, and the offline voice's intents and answers
in every supported language."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest

from app.offline.intents import EXAMPLES, OfflineIntents
from app.offline.memory_questions import broad_question
from app.offline.replies import SAY
from app.tools.memory_tools import MemoryCallContext, MemoryTools
from chats.embedders.minilm import MiniLMEmbedder
from chats.memory.service import MemoryService, Saved
from chats.sqlite.memories import SqliteMemoryStore
from voice.live.connection import ToolCall

EVERY_TOOL = frozenset(EXAMPLES)
SAVED = {
    # (fact, category, a word the answer must say), most important first: identity 10, preference 9,
    # relationship 8 (spec 001).
    "en": [
        ("User's name is Marco", "identity", "Marco"),
        ("User prefers green tea to coffee", "preference", "tea"),
        ("User's daughter is called Mia", "relationship", "Mia"),
    ],
    "it": [
        ("L'utente si chiama Marco", "identity", "Marco"),
        ("L'utente preferisce il tè verde al caffè", "preference", "tè"),
        ("La figlia dell'utente si chiama Mia", "relationship", "Mia"),
    ],
    "es": [
        ("El usuario se llama Marco", "identity", "Marco"),
        ("El usuario prefiere el té verde al café", "preference", "té"),
        ("La hija del usuario se llama Mía", "relationship", "Mía"),
    ],
    "fr": [
        ("L'utilisateur s'appelle Marco", "identity", "Marco"),
        ("L'utilisateur préfère le thé vert au café", "preference", "thé"),
        ("La fille de l'utilisateur s'appelle Mia", "relationship", "Mia"),
    ],
    "de": [
        ("Der Nutzer heißt Marco", "identity", "Marco"),
        ("Der Nutzer trinkt lieber grünen Tee als Kaffee", "preference", "Tee"),
        ("Die Tochter des Nutzers heißt Mia", "relationship", "Mia"),
    ],
}
ASKED = {
    # (everything, everything said another way, about the family)
    "en": ("What do you know about me?", "Tell me what you remember about me", "What have I told you about my family?"),
    "it": ("Cosa sai di me?", "Dimmi cosa ricordi di me", "Cosa ti ho detto della mia famiglia?"),
    "es": ("¿Qué sabes de mí?", "Dime qué recuerdas de mí", "¿Qué te he contado de mi familia?"),
    "fr": ("Que sais-tu de moi ?", "Dis-moi ce que tu sais de moi", "Qu'est-ce que je t'ai dit sur ma famille ?"),
    "de": (
        "Was weißt du über mich?",
        "Sag mir, was du über mich weißt",
        "Was habe ich dir über meine Familie erzählt?",
    ),
}
CONTEXT = MemoryCallContext(chat_id=uuid4(), project_id=None, user_said=())


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


async def tools_with(
    tmp_path: Path, minilm: MiniLMEmbedder, language: str
) -> tuple[MemoryTools, SqliteMemoryStore, list[str]]:
    """The tools over a store holding `SAVED[language]`, and those facts as kept (in the order saved)."""
    store = await SqliteMemoryStore.open(tmp_path / f"{language}.sqlite3", "alice")
    service = MemoryService(store, minilm)
    kept = []
    for fact, category, _ in SAVED[language]:
        saved = await service.save(fact, category, "The user told us this about themselves.", project_id=None)
        assert isinstance(saved, Saved)
        kept.append(saved.memory.content)
    return MemoryTools(service), store, kept


@pytest.fixture
async def english(tmp_path: Path, minilm: MiniLMEmbedder) -> AsyncIterator[MemoryTools]:
    tools, store, _ = await tools_with(tmp_path, minilm, "en")
    yield tools
    await store.close()


def contents(answer: dict[str, Any]) -> list[str]:
    return [result["content"] for result in answer["results"]]


@pytest.mark.parametrize("query", ["what do you know about me", "me", "What have you saved about the user?", ""])
async def test_a_broad_question_lists_everything_saved_most_important_first(english: MemoryTools, query: str) -> None:
    args = {"query": query} if query else {"query": " "}
    answer = await english.call("search_memories", args, CONTEXT)
    assert answer["success"] is True
    assert contents(answer) == [fact for fact, _, _ in SAVED["en"]]
    assert answer["totalSaved"] == 3


async def test_a_question_about_the_family_lists_the_family_first(english: MemoryTools) -> None:
    answer = await english.call("search_memories", {"query": "what have I told you about my family"}, CONTEXT)
    facts = [fact for fact, _, _ in SAVED["en"]]
    assert contents(answer) == [facts[2], facts[0], facts[1]]
    limited = await english.call("search_memories", {"query": "my family", "limit": 1}, CONTEXT)
    assert (contents(limited), limited["totalSaved"]) == ([facts[2]], 3)


async def test_a_search_that_finds_nothing_says_what_else_is_saved(english: MemoryTools) -> None:
    answer = await english.call("search_memories", {"query": "the submarine's periscope depth"}, CONTEXT)
    assert answer["results"] == []
    assert answer["message"] == "Nothing saved matches 'the submarine's periscope depth'; 3 other memories are saved."
    assert (await english.call("search_memories", {"query": "my daughter"}, CONTEXT))["results"][0]["content"] == (
        SAVED["en"][2][0]
    )


async def test_with_nothing_saved_the_answer_says_so(tmp_path: Path, minilm: MiniLMEmbedder) -> None:
    store = await SqliteMemoryStore.open(tmp_path / "empty.sqlite3", "alice")
    tools = MemoryTools(MemoryService(store, minilm))
    everything = await tools.call("search_memories", {"query": "what do you know about me"}, CONTEXT)
    something = await tools.call("search_memories", {"query": "green tea"}, CONTEXT)
    await store.close()
    assert (everything["results"], everything["totalSaved"]) == ([], 0)
    assert something["message"] == "Nothing saved matches 'green tea'; none is saved yet."


async def test_a_folders_own_memories_are_listed_only_in_that_folder(english: MemoryTools) -> None:
    garden = MemoryCallContext(chat_id=uuid4(), project_id="garden", user_said=("We chose lavender for the bed.",))
    added = await english.call(
        "add_memory", {"content": "User chose lavender for the garden bed", "metadata": {"category": "project"}}, garden
    )
    assert added["success"] is True
    in_folder = await english.call("search_memories", {"query": "what do you know about me"}, garden)
    elsewhere = await english.call("search_memories", {"query": "what do you know about me"}, CONTEXT)
    assert (in_folder["totalSaved"], elsewhere["totalSaved"]) == (4, 3)


@pytest.mark.parametrize("language", list(ASKED))
async def test_the_offline_voice_says_what_it_knows_in_every_language(
    tmp_path: Path, minilm: MiniLMEmbedder, language: str
) -> None:
    tools, store, facts = await tools_with(tmp_path, minilm, language)
    intents = OfflineIntents(minilm, language=language)
    try:
        for number, said in enumerate(ASKED[language]):
            [call] = await intents.match(said, EVERY_TOOL)
            assert call is not None and call.name == "search_memories", said
            result = await tools.call(call.name, call.args, CONTEXT)
            family_first = [facts[2], facts[0], facts[1]]
            assert contents(result) == (family_first if number == 2 else facts), said
            template = intents.reply([(call, result)]).template
            assert all(word in template for _, _, word in SAVED[language]), template
    finally:
        await store.close()


@pytest.mark.parametrize("language", list(ASKED))
async def test_offline_a_search_that_finds_nothing_does_not_deny_the_rest(
    tmp_path: Path, minilm: MiniLMEmbedder, language: str
) -> None:
    tools, store, _ = await tools_with(tmp_path, minilm, language)
    search = ToolCall(id="intent-1", name="search_memories", args={"query": "submarine periscope depth", "limit": 3})
    result = await tools.call(search.name, search.args, CONTEXT)
    await store.close()
    assert result["results"] == []
    assert OfflineIntents(minilm, language=language).reply([(search, result)]).template == SAY[language]["nothing_but"]


@pytest.mark.parametrize(
    "query",
    ["Mia", "my daughter", "where do I live", "the kitchen tiles", "mia sorella", "what do I drink"],
)
def test_a_query_that_names_something_is_searched_not_listed(query: str) -> None:
    assert broad_question(query) is None
