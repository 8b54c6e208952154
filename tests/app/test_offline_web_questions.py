"""Offline, a question only the web can answer (the weather, the news, a score, a price, a search) gets one
honest sentence in the user's language, never an invented answer: the phrases in five languages, and
`parley ask` on the real offline voice (Whisper aside: typed), the real embedder for intents and SQLite."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from app.cli.main import main
from app.offline.intents import EXAMPLES, OfflineIntents
from app.offline.replies import SAY
from app.offline.web_questions import WEB_PHRASES, needs_the_web
from chats.embedders.minilm import MiniLMEmbedder

WEB = [
    ("en", "What's the weather like in Rome tomorrow?"),
    ("en", "Search the web for the price of oak flooring."),
    ("en", "Who won the match last night?"),
    ("en", "What's in the news today?"),
    ("it", "Che tempo fa domani a Roma?"),
    ("it", "Quali sono le ultime notizie?"),
    ("it", "Cerca su internet un buon idraulico."),
    ("es", "¿Qué tiempo hará mañana en Madrid?"),
    ("es", "¿Quién ganó el partido de ayer?"),
    ("fr", "Quel temps fera-t-il demain à Paris ?"),
    ("fr", "Combien coûte un billet pour Lyon ?"),
    ("de", "Wie wird das Wetter morgen in Berlin?"),
    ("de", "Was kostet ein Liter Milch?"),
    ("de", "Such im Internet nach einem Rezept."),
]
CHAT = [
    ("en", "What should we do about the leaking tap?"),
    ("en", "I forgot my keys at home."),
    ("en", "Tell me a joke."),
    ("it", "Cosa dovremmo fare per il rubinetto che perde?"),
    ("es", "Cuéntame un chiste."),
    ("fr", "Raconte-moi une blague."),
    ("de", "Erzähl mir einen Witz."),
]


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.mark.parametrize(("language", "said"), WEB)
def test_a_question_for_the_web_is_recognised(language: str, said: str) -> None:
    assert needs_the_web(said)


@pytest.mark.parametrize(("language", "said"), CHAT)
def test_a_question_the_chat_model_may_answer_is_left_to_it(language: str, said: str) -> None:
    assert not needs_the_web(said)


def test_every_language_has_its_phrases_and_its_sentence() -> None:
    assert set(WEB_PHRASES) == set(SAY) == {"en", "it", "es", "fr", "de", "pt"}
    for language, phrases in WEB_PHRASES.items():
        assert len(phrases) >= 10, language
        assert "Gemini" in SAY[language]["no_web"], language
    assert not needs_the_web("I'm going to the cinema tonight.")  # "going to rain" is two words more
    assert not needs_the_web("Googled")  # whole words only


@pytest.mark.parametrize(
    ("said", "language"),
    [("Wie wird das Wetter morgen in Berlin?", "de"), ("¿Qué tiempo hará mañana en Madrid?", "es")],
)
async def test_with_auto_the_sentence_is_in_the_language_the_question_was_heard_in(
    embedder: MiniLMEmbedder, said: str, language: str
) -> None:
    intents = OfflineIntents(embedder, language=None)
    assert await intents.match(said, frozenset(EXAMPLES)) == ()  # no tool: the web question is next
    assert intents.beyond_offline(said) == SAY[language]["no_web"]
    assert intents.beyond_offline("Tell me a joke.") is None
    assert intents.no_answer() == SAY[language]["no_advice"]  # the small voice's limit, in that language too


async def ask(capsys: pytest.CaptureFixture[str], question: str) -> dict[str, object]:
    capsys.readouterr()
    code = await asyncio.to_thread(main, ["ask", question, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    answer: dict[str, object] = json.loads(out)
    return answer


@pytest.mark.parametrize(
    ("language", "said"),
    [("en", "Search the web for the price of oak flooring."), ("it", "Che tempo fa domani a Roma?")],
)
async def test_offline_parley_says_it_cannot_look_it_up_and_saves_that(
    offline: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, language: str, said: str
) -> None:
    monkeypatch.setenv("PARLEY_LANGUAGE", language)
    answer = await ask(capsys, said)
    assert answer["model"] == SAY[language]["no_web"]
    assert answer["tool_calls"] == []
    capsys.readouterr()
    assert await asyncio.to_thread(main, ["chats", "show", str(answer["chat_id"]), "--json"]) == 0
    history = json.loads(capsys.readouterr().out)["full_history"]
    assert [(t["role"], t["parts"][0]["text"]) for t in history] == [("user", said), ("model", answer["model"])]
