"""Text between the offline parts: pure."""

from __future__ import annotations

import pytest

from voice.offline.prompt import ChatMessage, fit, turns_block, with_findings
from voice.offline.text import (
    SentenceSplitter,
    is_noise,
    said_before,
    speakable,
    wake_phrase_of,
    whisper_prompt,
    without_wake_phrase,
)


@pytest.mark.parametrize(
    ("heard", "expected"),
    [
        ("Hey Jarvis, what's the weather like in Rome tomorrow?", "What's the weather like in Rome tomorrow?"),
        ("Jarvis. let's go back to the chat", "Let's go back to the chat"),
        ("hey, jarvis! Open it", "Open it"),
        ("What's the weather in Jarvis county?", "What's the weather in Jarvis county?"),
        ("Hey there", "Hey there"),
    ],
)
def test_the_wake_phrase_the_pre_roll_carries_is_cut_off(heard: str, expected: str) -> None:
    assert without_wake_phrase(heard, "hey jarvis") == expected


def test_wake_phrases_come_from_model_names_and_files() -> None:
    assert wake_phrase_of("hey_jarvis") == "hey jarvis"
    assert wake_phrase_of("/models/ok_computer.onnx") == "ok computer"


def test_whisper_is_told_the_assistants_name_and_nothing_else() -> None:
    assert whisper_prompt("hey jarvis") == "A user speaks to Jarvis, a voice assistant."
    assert whisper_prompt("alexa") == "A user speaks to Alexa, a voice assistant."
    assert whisper_prompt(None) is None and whisper_prompt("") is None


def test_a_tools_findings_come_with_the_question_in_one_turn() -> None:
    asked = with_findings(" What did we decide? ", ["White tiles.", "A new sink."])
    assert asked.startswith("What did we decide?\n\nFrom your notes:\n- White tiles.\n- A new sink.\n")


def test_whisper_words_for_silence_are_noise() -> None:
    assert is_noise("") and is_noise(" Thank you.") and is_noise("...")
    assert not is_noise("Thank you for the recipe")


def test_model_text_is_made_speakable() -> None:
    text = "**Boil** the [egg](https://x.y) for 7 minutes 🥚 see https://example.com/egg\n- done"
    assert speakable(text) == "Boil the egg for 7 minutes see - done"
    # A list item's mark is not said ("dash"): the small model answered "- You're planning to repaint the hallway."
    assert speakable("- You're planning to repaint the hallway.") == "You're planning to repaint the hallway."
    assert speakable("2. Then add the salt.") == "Then add the salt."
    assert speakable("2 eggs are enough.") == "2 eggs are enough."


def test_sentences_are_handed_out_as_soon_as_they_end() -> None:
    splitter = SentenceSplitter()
    pieces = ["The weather", " in Rome is", " sunny. It is", " warm!", " Bring a", " hat"]
    out = [splitter.push(piece) for piece in pieces]
    assert out == [[], [], ["The weather in Rome is sunny."], [], ["It is warm!"], []]
    assert splitter.flush() == ["Bring a hat"]


def test_a_long_sentence_is_cut_after_a_comma() -> None:
    splitter = SentenceSplitter(max_words=8)
    assert splitter.push("Rome is warm in spring, with long days and cool evenings by the river and") == [
        "Rome is warm in spring,"
    ]


def test_the_first_sentence_is_cut_sooner_for_the_first_audio() -> None:
    splitter = SentenceSplitter()
    assert splitter.push("The weather in Rome is quite pleasant,") == []
    assert splitter.push(" with a") == ["The weather in Rome is quite pleasant,"]
    assert splitter.push(" mild climate. Pack light, since the days in spring are warm") == ["with a mild climate."]
    assert splitter.flush() == ["Pack light, since the days in spring are warm"]  # later ones: only past 24


def test_the_history_is_trimmed_from_the_oldest_and_starts_with_the_user() -> None:
    messages = [ChatMessage("user" if i % 2 == 0 else "assistant", f"turn {i} " + "word " * 20) for i in range(10)]
    messages.append(ChatMessage("user", "the question"))

    def count(text: str) -> int:
        return len(text.split())

    kept = fit(messages, count, budget=70)
    assert kept[-1].text == "the question" and kept[0].role == "user"
    assert count(turns_block(kept)) <= 70
    assert kept == messages[-len(kept) :]
    assert fit(messages[-1:], count, budget=1) == messages[-1:]  # the question always goes


def test_a_sentence_of_an_earlier_answer_is_known_word_for_word_and_a_short_one_may_come_again() -> None:
    earlier = ["The cabinets are a beautiful shade of blue. They'll last for years.", "Sounds good."]
    assert said_before("the cabinets are a beautiful shade of BLUE!", earlier)
    assert said_before("They'll last for years.", earlier)
    assert not said_before("The cabinets are sage green.", earlier)
    assert not said_before("Sounds good.", earlier)  # under four words: "Sounds good" may be said again
