"""The offline voice answers from the chat's own facts and the memories (`app.offline.chat_facts`): the fact
is found however far back it was said, a question about the user that nothing answers is "not known",
an answer read out once is not read out again to a new question, and a sentence that tells the user
about themselves what they never said is caught. Pure parts here; `parley ask` on the real offline model
in `test_offline_long_chat.py`."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import numpy as np

from app.offline.chat_facts import from_chat, unfit
from app.offline.replies import SAY
from app.tools.prompt import INSTRUCTIONS
from chats.memory.models import Memory
from chats.memory.preload import build_preload, memories_in
from chats.models import EmbeddedText
from voice.offline.router import ToolAnswer

KITCHEN = [
    ("user", "We're redoing the kitchen. I want terracotta tiles on the floor."),
    ("assistant", "Terracotta is warm and hard-wearing. Seal it well."),
    ("user", "Our builder is called Tomasz and he starts on 3 March."),
    ("assistant", "Good to have a date. Ask Tomasz for a written schedule."),
    ("user", "The builder wants to talk about the worktop first."),
    ("assistant", "Oak is warmer; quartz shrugs off heat and stains."),
    ("user", "Biscuit keeps scratching his ears."),
    ("assistant", "A vet can look inside the ear quickly."),
    ("user", "I booked the vet for Thursday at 4 pm."),
    ("assistant", "Good. Note when the scratching got worse."),
    *[("user", f"Another thing about the garden, number {n}.") for n in range(5)],
]
EN = SAY["en"]


def asked(question: str, history: list[tuple[str, str]] = KITCHEN, memories: tuple[str, ...] = ()) -> ToolAnswer | None:
    return from_chat(question, [*history, ("user", question)], memories, "en", EN).answer


def test_a_fact_said_long_before_is_handed_to_the_model_with_the_users_words_as_the_template() -> None:
    answer = asked("When does the builder start?")
    assert answer is not None
    assert answer.findings[0] == "You said: Our builder is called Tomasz and he starts on 3 March."
    assert answer.template == "Earlier in this chat you said: Our builder is called Tomasz and he starts on 3 March."
    assert "3" in answer.names and "March" in answer.names


def test_a_question_asking_when_prefers_the_sentence_that_holds_a_time() -> None:
    answer = asked("What time is Biscuit's vet appointment?")
    assert answer is not None and "4 pm" in answer.findings[0]


def test_the_users_earlier_questions_tell_nothing() -> None:
    history = [*KITCHEN, ("user", "What colour are the handles in the kitchen?"), ("assistant", "Brass.")]
    answer = asked("Which handles did I choose for the kitchen?", history)
    assert answer is not None and all("What colour" not in finding for finding in answer.findings)


def test_a_question_about_the_user_that_nothing_answers_is_not_known_in_their_language() -> None:
    assert asked("What's my sister's name?") == ToolAnswer(EN["not_known"])
    italian = from_chat("Come si chiama mio fratello?", KITCHEN, (), "it", SAY["it"]).answer
    assert italian is not None and italian.template == "Non lo so: non me l'hai detto." and not italian.findings


def test_a_question_for_the_model_and_a_statement_are_left_to_it() -> None:
    assert asked("What is the capital of France?") is None
    assert asked("Tell me about the builder.") is None  # no question: the user tells, the model answers


def test_asking_what_to_do_is_beyond_the_small_model_not_a_fact_the_user_never_told() -> None:
    for question, language in [
        ("How do I make a good risotto?", "en"),
        ("My dog Fido has itchy skin, what can I do?", "en"),
        ("Il mio cane si gratta sempre, cosa posso fare?", "it"),
        ("¿Cómo puedo quitar el moho de mi baño?", "es"),
        ("Comment puis-je calmer mon chien ?", "fr"),
        ("Was soll ich meiner Schwester schenken?", "de"),
        ("My dog keeps scratching his ears, what could it be?", "en"),
        ("Il mio cane Rocky si gratta sempre le orecchie, cosa può essere?", "it"),
        ("Sto rifacendo la cucina: meglio un piano in quarzo o in legno?", "it"),
        ("¿Qué puede ser el ruido de mi coche?", "es"),
        ("Pour mon salon, c'est mieux le gris ou le vert ?", "fr"),
        ("Mein Auto quietscht beim Bremsen, woran kann das liegen?", "de"),
    ]:
        answer = from_chat(question, [("user", question)], (), language, SAY[language]).answer
        assert answer == ToolAnswer(SAY[language]["no_advice"]), question
    assert asked("What's my dog called?") == ToolAnswer(EN["not_known"])  # a fact about the user, not advice


def test_an_answer_read_out_once_is_not_read_out_again_to_a_new_question() -> None:
    first = from_chat("Quando inizia il muratore?", ITALIAN, (), "it", SAY["it"]).answer
    assert first is not None
    history = [*ITALIAN, ("user", "Quando inizia il muratore?"), ("assistant", first.template)]
    again = from_chat("Come si chiama il muratore?", history, (), "it", SAY["it"]).answer
    assert again is not None and again.template != first.template
    same_question = from_chat("Quando inizia il muratore?", history, (), "it", SAY["it"]).answer
    assert same_question is not None and same_question.template == first.template


ITALIAN = [
    ("user", "Il muratore inizia il 3 marzo."),
    ("assistant", "Bene, chiedigli un calendario."),
    ("user", "Il muratore si chiama Tomasz ed è molto bravo."),
    ("assistant", "Ottimo."),
]


def test_in_a_language_the_model_does_not_write_the_chat_is_read_out_as_it_was_said() -> None:
    answer = from_chat("Quando inizia il muratore?", ITALIAN, (), "it", SAY["it"]).answer
    assert answer is not None and not answer.findings
    assert answer.template == "Prima in questa chat hai detto: Il muratore inizia il 3 marzo."


def test_the_memories_in_the_system_prompt_answer_in_the_second_person() -> None:
    now = datetime(2026, 3, 1, tzinfo=UTC)
    saved = [
        Memory(
            id=uuid.UUID(int=n + 1),
            user_id="u",
            content=text,
            title=None,
            category="identity",
            tags=(),
            importance=5,
            project_id=None,
            embedding=EmbeddedText(text, np.zeros(1, dtype=np.float32), "none"),
            source_chat_id=None,
            created_at=now,
            updated_at=now,
        )
        for n, text in enumerate(["User's daughter is called Mia", 'User says "hi" - often'])
    ]
    prompt = f"You are Parley.\n\n{build_preload(saved).text}\n\nIt is Monday."
    assert memories_in(prompt) == ["User's daughter is called Mia", 'User says "hi" - often']
    assert memories_in("You are Parley.") == []
    answer = asked("What is my daughter called?", memories=tuple(memories_in(prompt)))
    assert answer is not None and answer.template == "Your daughter is called Mia" and "Mia" in answer.names


def test_a_sentence_telling_the_user_what_they_never_said_is_caught_and_advice_is_not() -> None:
    known = ["Our builder is called Tomasz and he starts on 3 March.", "Your daughter is called Mia"]
    question = "What should we cook tonight?"
    assert unfit("Your sister is called Maria.", question, known)
    assert unfit("You live in a big house in Paris.", question, known)
    assert not unfit("Your daughter is Mia.", question, known)
    assert not unfit("You can oil the oak once a year.", question, known)


def test_a_free_answer_in_a_language_the_model_does_not_write_is_left_out() -> None:
    # Asked for English, the 135M model answered an Italian statement in made-up Italian.
    statement = "Devo preparare il colloquio per un posto da project manager giovedì"
    assert unfit("Il mio posto di project manager giudice ho una storia per un puntaggio.", statement, [])
    assert not unfit("Good luck with the interview on Thursday!", statement, [])
    assert not unfit("Sure.", statement, [])  # too short to tell: taken as the model's English


def test_a_free_answer_reading_back_a_memory_or_the_request_whole_is_left_out() -> None:
    memories = ["L'utente è allergico alle noci"]
    capital = "Qual è la capitale della Francia?"
    assert unfit("The answer is: L'utente è allergico alle noci.", capital, memories)
    remember = "Ricordati che sono allergico alle noci"
    assert unfit("The user's response is: Ricordati che sono allergico alle noci.", remember, [])
    france = "What is the capital of France?"
    assert not unfit("The capital of France is Paris.", france, memories)
    assert not unfit("Yes, please keep the nuts away.", "Yes please", ["Yes please"])  # too short to read back


def test_a_free_answer_reading_out_the_prompts_instructions_is_left_out() -> None:
    """Said by SmolLM2 to "Hey, could you please set a timer for 3 minutes?" before its opener was dropped."""
    leaked = [
        "The user speaks English: speak English with them, and save what you remember of them in English.",
        "Everything you say is spoken aloud: answer in short, natural sentences, one or two unless the user asks",
    ]
    question = "Hey, could you please set a timer for 3 minutes?"
    assert all(unfit(sentence, question, [], INSTRUCTIONS) for sentence in leaked)
    assert not any(unfit(sentence, question, []) for sentence in leaked)  # without them, nothing tells
    answers = ["The capital of France is Paris.", "You could ask me to remember it for you.", "Sure, in English."]
    assert not any(unfit(answer, "What is the capital of France?", [], INSTRUCTIONS) for answer in answers)
