"""The offline voice's tool intents and answers in Italian, Spanish, French and German (issue 17), with the
real local embedder behind them as in the English tests."""

from __future__ import annotations

from typing import Any

import pytest

from app.offline.intents import EXAMPLES, OfflineIntents
from app.offline.phrases import PHRASES, leading_phrase
from app.offline.replies import SAY, tool_answer
from app.tools.chat_tools import TOOLS, invalid_arguments
from app.tools.memory_tools import MEMORY_TOOLS
from app.tools.recall_tools import RECALL_TOOLS
from chats.embedders.minilm import MiniLMEmbedder
from voice.live.connection import ToolCall

SPECS = {tool.name: tool for tool in (*TOOLS, *MEMORY_TOOLS, *RECALL_TOOLS)}
EVERY_TOOL = frozenset(EXAMPLES)


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


REQUESTS: list[tuple[str, str, str, dict[str, Any]]] = [
    (
        "it",
        "Torniamo alla chat sulla ristrutturazione della cucina.",
        "switch_chat",
        {"query": "ristrutturazione della cucina"},
    ),
    (
        "it",
        "Ricordati che mi chiamo Marco.",
        "save_memory",
        {"content": "L'utente si chiama Marco", "category": "identity"},
    ),
    ("it", "Cosa ricordi di mia sorella?", "search_memories", {"query": "mia sorella"}),
    ("it", "Nuova chat, per favore.", "new_chat", {}),
    ("it", "Arrivederci!", "end_conversation", {}),
    ("es", "Volvamos al chat sobre el viaje a Japón.", "switch_chat", {"query": "el viaje a Japón"}),
    (
        "es",
        "Recuerda que mi hermana se llama Lucía.",
        "save_memory",
        {"content": "La hermana del usuario se llama Lucía", "category": "relationship"},
    ),
    ("es", "¿Qué decidimos sobre los azulejos?", "recall_conversations", {"query": "los azulejos"}),
    ("fr", "Revenons à la discussion sur le jardin.", "switch_chat", {"query": "le jardin"}),
    (
        "fr",
        "Souviens-toi que j'habite à Lyon.",
        "save_memory",
        {"content": "L'utilisateur habite à Lyon", "category": "identity"},
    ),
    ("fr", "Oublie que je travaille le samedi.", "forget_memory", {"query": "je travaille le samedi"}),
    ("de", "Zurück zum Chat über die Gitarre.", "switch_chat", {"query": "die Gitarre"}),
    (
        "de",
        "Merk dir, dass ich Vegetarier bin.",
        "save_memory",
        {"content": "Der Nutzer ist Vegetarier", "category": "preference"},
    ),
    ("de", "Was weißt du über mich?", "search_memories", {}),
    ("de", "Tschüss!", "end_conversation", {}),
]


@pytest.mark.parametrize(("language", "said", "tool", "args"), REQUESTS)
async def test_requests_in_the_users_language_become_tool_calls(
    embedder: MiniLMEmbedder, language: str, said: str, tool: str, args: dict[str, Any]
) -> None:
    intents = OfflineIntents(embedder, language=language)
    [call] = await intents.match(said, EVERY_TOOL)
    assert call is not None and call.name == tool
    assert {key: call.args[key] for key in args} == args
    if tool != "end_conversation":
        assert invalid_arguments(SPECS[tool], call.args) is None  # the tool will accept them


@pytest.mark.parametrize(("language", "said", "tool", "args"), REQUESTS)
async def test_with_auto_each_request_is_heard_in_its_own_language(
    embedder: MiniLMEmbedder, language: str, said: str, tool: str, args: dict[str, Any]
) -> None:
    intents = OfflineIntents(embedder, language=None)
    intents.heard_in = language  # the conversation so far: what a request too short to tell is taken for
    [call] = await intents.match(said, EVERY_TOOL)
    assert call is not None and call.name == tool
    assert intents.heard_in == language


@pytest.mark.parametrize(
    ("language", "said"),
    [
        ("it", "Che tempo fa domani a Roma?"),
        ("it", "Cosa dovremmo fare per il rubinetto che perde?"),
        ("es", "¿Qué tiempo hará mañana en Madrid?"),
        ("fr", "Quel temps fera-t-il demain à Paris ?"),
        ("de", "Wie wird das Wetter morgen in Berlin?"),
    ],
)
async def test_questions_and_chat_go_to_the_model(embedder: MiniLMEmbedder, language: str, said: str) -> None:
    assert await OfflineIntents(embedder, language=language).match(said, EVERY_TOOL) == ()


def test_every_language_has_phrasings_for_every_tool_the_english_examples_have() -> None:
    for language, tools in PHRASES.items():
        assert set(tools) == set(EXAMPLES), language


def test_the_leading_phrase_keeps_the_words_that_follow_as_they_were_said() -> None:
    apostrophe = "\u2019"  # as Whisper and phone keyboards write it
    said = f"Souviens-toi que j{apostrophe}habite à Lyon."
    assert leading_phrase(said, "fr") == ("save_memory", f"j{apostrophe}habite à Lyon")
    assert leading_phrase("¿Qué recuerdas de mi trabajo?", "es") == ("search_memories", "mi trabajo")
    assert leading_phrase("Torniamo a casa", "it") is None


@pytest.mark.parametrize(
    ("language", "switched", "saved", "goodbye"),
    [
        ("it", "Passo alla chat Cucina.", "Va bene, me lo ricorderò.", "Arrivederci!"),
        ("es", "Cambio al chat Cucina.", "Vale, lo recordaré.", "¡Adiós!"),
        ("fr", "Je passe à la discussion Cucina.", "D'accord, je m'en souviendrai.", "Au revoir !"),
        ("de", "Ich wechsle zum Chat Cucina.", "Okay, das merke ich mir.", "Tschüss!"),
        ("en", "Switching to Cucina.", "Okay, I'll remember that.", "Goodbye!"),
    ],
)
def test_what_a_tool_did_is_said_in_the_users_language(language: str, switched: str, saved: str, goodbye: str) -> None:
    assert tool_answer("switch_chat", {"outcome": "switched", "title": "Cucina"}, language).template == switched
    assert tool_answer("save_memory", {"success": True}, language).template == saved
    assert tool_answer("end_conversation", {}, language).template == goodbye


def test_every_language_has_every_message() -> None:
    for language, messages in SAY.items():
        assert set(messages) == set(SAY["en"]), language


def test_memories_found_are_said_back_in_the_second_person() -> None:
    result = {
        "success": True,
        "results": [{"content": "L'utente abita a Roma"}, {"content": "All'utente piace il jazz"}],
    }
    answer = tool_answer("search_memories", result, "it")
    assert answer.template == "Ecco cosa ho salvato: abiti a Roma e ti piace il jazz."
    assert answer.findings == ("Abiti a Roma", "Ti piace il jazz")


async def test_the_answer_is_said_in_the_language_the_request_was_heard_in(embedder: MiniLMEmbedder) -> None:
    intents = OfflineIntents(embedder, language=None)
    [call] = await intents.match("Nuova chat, per favore.", EVERY_TOOL)
    assert call is not None
    assert intents.reply([(ToolCall("offline-1", call.name, call.args), {"success": True})]).template == (
        "Inizio una nuova chat."
    )
