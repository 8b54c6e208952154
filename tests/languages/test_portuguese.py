"""Portuguese, added as one data folder (`languages/pt/`) and its code in `languages/registry.toml` (issue 33):
it works as the other languages do, from the user's side (the setting: tests/app/test_language_setting.py):
the desktop's locale, the models' codes, stemming, offline titles, memories, the offline intents, timers and
the ring's stop words, the web and advice questions, and dateparser's times. European Portuguese first, with
the Brazilian forms a user says."""

from __future__ import annotations

import locale
from datetime import UTC, datetime, timedelta
from typing import Any
from zoneinfo import ZoneInfo

import pytest

from app.config.desktop_language import desktop_language
from app.offline.chat_facts import unanswered
from app.offline.intents import EXAMPLES, OfflineIntents
from app.offline.memory_questions import broad_question
from app.offline.replies import SAY, tool_answer
from app.offline.web_questions import needs_the_web
from app.timers.parsing import time_said
from app.timers.sayings import stop_words, tool_reply
from app.timers.spoken import timer_call
from chats.embedders.minilm import MiniLMEmbedder
from chats.language.words import stems
from chats.memory.text import second_person, third_person
from chats.models import Turn
from chats.text.offline_text import OfflineTextModel
from languages.registry import SUPPORTED, codes
from languages.schema import problems
from voice.offline.phrases import matching

LISBON = ZoneInfo("Europe/Lisbon")
NOW = datetime(2026, 3, 10, 17, 0, tzinfo=LISBON).astimezone(UTC)
"""17:00 in Lisbon on a Tuesday."""
TIMER_TOOLS = frozenset({"set_timer", "set_reminder", "list_timers", "cancel_timer"})


def test_portuguese_is_registered_and_its_folder_is_complete() -> None:
    assert "pt" in SUPPORTED
    assert problems("pt") == []


@pytest.mark.parametrize("lang", ["pt_PT.UTF-8", "pt_BR.UTF-8"])
def test_a_portuguese_or_brazilian_desktop_speaks_portuguese(lang: str) -> None:
    assert desktop_language({"LANG": lang}) == "pt"


@pytest.mark.parametrize("windows", ["Portuguese_Portugal", "Portuguese_Brazil"])
def test_a_portuguese_windows_locale_speaks_portuguese(monkeypatch: pytest.MonkeyPatch, windows: str) -> None:
    monkeypatch.setattr(locale, "getlocale", lambda: (windows, "1252"))
    assert desktop_language({}) == "pt"


def test_each_model_is_told_portuguese_by_its_own_code() -> None:
    assert codes("whisper")["pt"] == "pt"
    assert codes("espeak")["pt"] == "pt"  # Portuguese_(Portugal); "pt-br" is Brazil's voice
    assert codes("live")["pt"] == "pt-BR"  # the only Portuguese Gemini Live lists
    assert codes("snowball")["pt"] == "portuguese"
    assert codes("dateparser")["pt"] == "pt"


def test_the_forms_of_a_word_share_their_stem() -> None:
    assert stems("renovação", "pt") == stems("renovar", "pt") != stems("cozinha", "pt")


async def test_an_offline_title_names_the_chats_subject() -> None:
    chat = (
        Turn(role="user", text="Quero mudar os azulejos da parede da cozinha. Brancos ou verdes?"),
        Turn(role="model", text="Os azulejos brancos aumentam uma cozinha pequena; os verdes custam o triplo."),
        Turn(role="user", text="A cozinha é pequena e os móveis são de carvalho escuro. Que azulejos ficam melhor?"),
        Turn(role="model", text="Com carvalho escuro, azulejos brancos na parede e uma junta cinzenta clara."),
    )
    text = "\n".join(f"{'User' if t.role == 'user' else 'Assistant'}: {t.text}" for t in chat)
    title = await OfflineTextModel("pt").title(text)
    assert "azulejos" in title.lower()


@pytest.mark.parametrize(
    ("said", "memory", "said_back"),
    [
        ("Sou vegetariano", "O utilizador é vegetariano", "És vegetariano"),
        ("Trabalho num banco há dez anos", "O utilizador trabalha num banco há dez anos", None),
        ("Vivo em Lisboa com a minha mulher", "O utilizador vive em Lisboa com a sua mulher", None),
        ("A minha irmã chama-se Marta", "A irmã do utilizador chama-se Marta", "A tua irmã chama-se Marta"),
        ("Não como carne", "O utilizador não come carne", "Não comes carne"),
        ("Tenho dois filhos", "O utilizador tem dois filhos", "Tens dois filhos"),
        ("Me chamo Marco", "O utilizador se chama Marco", "Chamas-te Marco"),  # Brazil's proclitic "me"
        ("Marco trabalha num banco", "Marco trabalha num banco", None),  # a name, not a verb
    ],
)
def test_a_memory_is_kept_in_the_third_person_and_said_back_in_the_second(
    said: str, memory: str, said_back: str | None
) -> None:
    assert third_person(said, "pt") == memory
    if said_back is not None:
        assert second_person(memory, "pt") == said_back


@pytest.fixture(scope="module")
def embedder() -> MiniLMEmbedder:
    return MiniLMEmbedder()


@pytest.mark.parametrize(
    ("said", "tool", "args"),
    [
        (
            "Lembra-te de que sou vegetariano.",
            "save_memory",
            {"content": "O utilizador é vegetariano", "category": "preference"},
        ),
        ("Lembre-se de que tenho dois filhos.", "save_memory", {"content": "O utilizador tem dois filhos"}),
        ("Esquece que trabalho aos sábados.", "forget_memory", {"query": "trabalho aos sábados"}),
        ("Volta à conversa sobre a cozinha.", "switch_chat", {"query": "a cozinha"}),
        ("Volte ao chat sobre a viagem ao Japão.", "switch_chat", {"query": "a viagem ao Japão"}),
        ("Nova conversa, por favor.", "new_chat", {}),
        ("O que sabes sobre mim?", "search_memories", {}),
        ("O que você sabe sobre a minha família?", "search_memories", {"query": "a minha família"}),
        ("O que decidimos sobre os azulejos?", "recall_conversations", {"query": "os azulejos"}),
        ("Adeus!", "end_conversation", {}),
    ],
)
async def test_requests_in_portuguese_become_tool_calls(
    embedder: MiniLMEmbedder, said: str, tool: str, args: dict[str, Any]
) -> None:
    [call] = await OfflineIntents(embedder, language="pt").match(said, frozenset(EXAMPLES))
    assert call.name == tool
    assert {key: call.args[key] for key in args} == args


@pytest.mark.parametrize("said", ["O que sabes sobre mim?", "O que você sabe de mim?", "O que sabes de mim"])
def test_what_do_you_know_about_me_lists_every_memory(said: str) -> None:
    query = said.rstrip("?").split(" sobre ", 1)[-1].split(" de ", 1)[-1]
    assert broad_question(query) is not None
    assert broad_question("o Pedro") is None


@pytest.mark.parametrize(
    ("said", "tool", "args"),
    [
        ("Põe um temporizador de cinco minutos", "set_timer", {"seconds": 300, "label": ""}),
        ("Põe um temporizador de vinte e cinco minutos para o arroz", "set_timer", {"seconds": 1500, "label": "arroz"}),
        ("Coloque um timer de uma hora", "set_timer", {"seconds": 3600, "label": ""}),
        (
            "Lembra-me amanhã às 9 de ligar ao canalizador",
            "set_reminder",
            {"when": "2026-03-11T09:00:00", "text": "ligar ao canalizador"},
        ),
        (
            "Me lembra daqui a cinco minutos de tirar o bolo",
            "set_reminder",
            {"when": "2026-03-10T17:05:00", "text": "tirar o bolo"},
        ),
        ("Quanto tempo falta?", "list_timers", {}),
        ("Cancela o temporizador", "cancel_timer", {"which": ""}),
    ],
)
def test_timers_and_reminders_are_asked_in_portuguese(said: str, tool: str, args: dict[str, Any]) -> None:
    assert timer_call(said, TIMER_TOOLS, "pt", now=NOW, zone=LISBON) == (tool, args)


def test_a_timer_set_is_confirmed_in_portuguese() -> None:
    said = tool_reply("set_timer", {"success": True, "seconds_left": 300, "label": "arroz"}, "pt")
    assert said == "Está bem, temporizador de arroz para 5 minutos."


@pytest.mark.parametrize(("heard", "stops"), [("Pára!", True), ("Para.", True), ("Chega!", True), ("Olá.", False)])
def test_the_ring_stops_on_a_portuguese_stop_word(heard: str, stops: bool) -> None:
    assert (matching(heard, stop_words("pt")) is not None) == stops


@pytest.mark.parametrize(
    ("said", "due"),
    [
        ("cinco minutos", timedelta(minutes=5)),
        ("em dez minutos", timedelta(minutes=10)),
        ("daqui a cinco minutos", timedelta(minutes=5)),
        ("vinte e cinco minutos", timedelta(minutes=25)),  # not "20 e 5": five minutes
        ("uma hora", timedelta(hours=1)),
        ("amanhã às nove", timedelta(hours=16)),
        ("amanhã às 9", timedelta(hours=16)),
        ("às 18:30", timedelta(hours=1, minutes=30)),
        ("sexta-feira às 10", timedelta(days=2, hours=17)),
        ("às 18h30", timedelta(hours=1, minutes=30)),  # dateparser alone: 18 hours from now ([timers] rewrites)
        ("às 18h", timedelta(hours=1)),
        ("meia hora", timedelta(minutes=30)),
    ],
)
def test_dateparser_reads_portuguese_times(said: str, due: timedelta) -> None:
    assert time_said(said, NOW, LISBON, "pt") == NOW + due


@pytest.mark.parametrize(
    ("said", "web"),
    [
        ("Que tempo vai fazer amanhã em Lisboa?", True),
        ("Quem ganhou o jogo de ontem?", True),
        ("Quanto custa um litro de leite?", True),
        ("Pesquisa na internet uma receita de bacalhau.", True),
        ("O tempo passa depressa.", False),
        ("Conta-me uma anedota.", False),
    ],
)
def test_a_question_only_the_web_can_answer_is_told_so(said: str, web: bool) -> None:
    assert needs_the_web(said) == web


@pytest.mark.parametrize(
    "question",
    [
        "Como posso tirar o bolor da casa de banho?",
        "O que devo oferecer à minha irmã?",
        "O que pode ser o barulho do meu carro?",
    ],
)
def test_an_advice_question_gets_one_honest_sentence(question: str) -> None:
    answer = unanswered(question, SAY["pt"])
    assert answer is not None and answer.template == SAY["pt"]["no_advice"]


def test_what_a_tool_did_is_said_in_portuguese() -> None:
    assert tool_answer("switch_chat", {"outcome": "switched", "title": "Cozinha"}, "pt").template == (
        "Passo para a conversa Cozinha."
    )
    assert tool_answer("save_memory", {"success": True}, "pt").template == "Está bem, vou lembrar-me."
