from __future__ import annotations

import logging
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from chats.models import Turn
from chats.text.offline_text import OfflineTextModel, Sentence, salience, split_turns, summarize_extractively
from chats.text.offline_title import subject_title
from chats.text.offline_words import OPEN_USER_LABEL, USER_LABEL, yake_stopwords
from chats.text.text_model import TextModel
from languages.registry import SUPPORTED


def user(text: str) -> Turn:
    return Turn(role="user", text=text)


def model(text: str) -> Turn:
    return Turn(role="model", text=text)


KITCHEN = (
    user("Hi! We're finally planning the kitchen renovation and I'd like your help keeping track of it."),
    model(
        "Of course, happy to help with the kitchen renovation. Renovations have a lot of moving parts, so "
        "it helps to keep the budget, the people involved and the dates in one place. What do you have?"
    ),
    user("Our total budget is 18,500 euros, and that has to cover cabinets, floors and labour."),
    model(
        "Got it: a budget of 18,500 euros for cabinets, floors and labour. That is a reasonable figure "
        "for a mid-range kitchen, although labour often takes a third of it. Do you have a contractor?"
    ),
    user("Yes, a contractor called Marco. He did my sister's bathroom and she was really happy with him."),
    model(
        "That is a good sign. A contractor who comes recommended by family is usually a safer bet than "
        "one found online. It would still be wise to get his quote in writing before anything starts."
    ),
    user(
        "Marco says he can start on February 10th, but everything must be finished by March 3rd because "
        "my parents arrive that weekend."
    ),
    model(
        "So the deadline is March 3rd, with work starting on February 10th. That leaves a little over "
        "three weeks, which is tight but doable for a kitchen if the materials arrive on time."
    ),
    user("For the floor we looked at tiles and at wood."),
    model(
        "Both are popular. Tiles are very durable and easy to clean, while wood feels warmer underfoot "
        "but needs more care near the sink. Many people choose engineered wood for kitchens."
    ),
    user("We decided on oak floors in the end, I prefer the warmer look."),
    model(
        "Oak is a lovely choice and it suits a warm style. I will remember that you prefer the warmer "
        "look. Make sure Marco seals it well around the sink and the dishwasher."
    ),
    user("Thanks, that sounds good."),
    model("You're welcome! Anything else for today?"),
    user("Should we keep the old dishwasher or buy a new one?"),
    model(
        "I'm not sure, it depends on how old it is and whether it fits the new cabinets. You could ask "
        "Marco to measure it."
    ),
)
QUARTER = sum(len(turn.text) for turn in KITCHEN) // 4
"""The budget compaction gives: a quarter of the replaced text."""


def test_summary_keeps_the_facts_within_a_quarter_of_the_text() -> None:
    summary = summarize_extractively(KITCHEN, QUARTER)

    assert len(summary) <= QUARTER
    for fact in ("18,500 euros", "Marco", "March 3rd", "oak floors", "dishwasher"):
        assert fact in summary
    assert f"{OPEN_USER_LABEL} Should we keep the old dishwasher or buy a new one?" in summary
    assert "Thanks, that sounds good." not in summary
    assert summary.splitlines()[0].startswith(USER_LABEL)


def test_summary_keeps_sentences_in_their_original_order() -> None:
    summary = summarize_extractively(KITCHEN, QUARTER)

    positions = [summary.index(fact) for fact in ("18,500", "March 3rd", "oak floors", "dishwasher")]
    assert positions == sorted(positions)


def test_an_assistant_restating_a_fact_is_not_kept_twice() -> None:
    summary = summarize_extractively(KITCHEN, QUARTER)

    assert summary.count("18,500") == 1
    assert summary.count("March 3rd") == 1


def test_summary_never_exceeds_the_budget_even_a_tiny_one() -> None:
    for budget in (QUARTER, 300, 120, 60, 40, 12, 5, 2, 1):
        summary = summarize_extractively(KITCHEN, budget)
        assert len(summary) <= budget
        assert summary


def test_a_sentence_longer_than_the_budget_is_cut_at_a_word() -> None:
    summary = summarize_extractively([user("Marco quoted 18,500 euros for the whole kitchen renovation.")], 30)

    assert summary == "User: Marco quoted 18,500…"


def test_tighter_budgets_keep_the_most_salient_facts() -> None:
    summary = summarize_extractively(KITCHEN, 120)

    assert "18,500 euros" in summary


def test_summary_is_deterministic() -> None:
    assert summarize_extractively(KITCHEN, QUARTER) == summarize_extractively(KITCHEN, QUARTER)
    assert summarize_extractively(KITCHEN, 150) == summarize_extractively(list(KITCHEN), 150)


def test_an_earlier_summary_is_carried_forward_as_written() -> None:
    earlier = Turn(
        role="model",
        text=(
            "User: My sister Giulia lends us her van on Saturday 14 June for the old cabinets.\n"
            "Assistant: Reminded the user to book the recycling centre for 9:30."
        ),
        summary=True,
    )
    turns = (earlier, *KITCHEN)
    budget = sum(len(turn.text) for turn in turns) // 4

    summary = summarize_extractively(turns, budget)

    assert len(summary) <= budget
    assert summary.startswith("User: My sister Giulia lends us her van on Saturday 14 June for the old cabinets.")
    assert "Assistant: Reminded the user to book the recycling centre for 9:30." in summary
    assert "18,500" in summary


def test_a_prose_summary_is_kept_without_a_label() -> None:
    earlier = Turn(
        role="model", text="The user is allergic to walnuts. They will host a dinner on Friday.", summary=True
    )

    summary = summarize_extractively([earlier, user("What wine goes with fish?"), model("A dry white.")], 200)

    assert summary.startswith("The user is allergic to walnuts. They will host a dinner on Friday.")


def test_summarizing_nothing_gives_nothing() -> None:
    assert summarize_extractively([], 100) == ""
    assert summarize_extractively([user("   "), model("...")], 100) == ""
    assert summarize_extractively(KITCHEN, 0) == ""


def test_salience_rewards_facts_over_small_talk() -> None:
    phrases = ["kitchen renovation", "budget"]

    def score(text: str, **flags: bool) -> float:
        return salience(Sentence(0, "user", text, USER_LABEL, **flags), phrases)

    small_talk = score("Thanks, that sounds good.")
    assert score("The budget is 18,500 euros.") > small_talk
    assert score("Marco will call on Tuesday.") > score("He will call soon.")
    assert score("We decided on oak floors.") > score("We looked at oak floors.")
    assert score("I prefer the warmer look.") > score("It has the warmer look.")
    assert score("Should we keep the old dishwasher?", open_question=True) > score("Should we keep the old dishwasher?")
    assert score("The kitchen renovation starts soon.") > score("The bathroom work starts soon.")
    assert score("Marco quoted 18,500 euros.", from_summary=True) > score("Marco quoted 18,500 euros.")
    assert score("They chose oak.", from_summary=True) > score("We decided Marco starts on March 3rd.")


def test_open_questions_are_the_unanswered_or_put_off_ones() -> None:
    turns = [
        user("Is oak more expensive than tiles?"),
        model("Yes, usually by about a third."),
        user("Who pays for the skip?"),
        model("I don't know, that depends on your contract with Marco."),
        user("And can we move the sink?"),
    ]

    opened = [sentence.text for sentence in split_turns(turns) if sentence.open_question]

    assert opened == ["Who pays for the skip?", "And can we move the sink?"]


def test_the_transcript_and_its_summary_are_titled_by_what_they_say() -> None:
    summary = summarize_extractively(KITCHEN, QUARTER)
    transcript = "\n".join(f"{'User' if t.role == 'user' else 'Assistant'}: {t.text}" for t in KITCHEN)

    assert subject_title(transcript) == "Kitchen renovation"
    # The summary says "kitchen renovation" once and "floors" twice: with so few repeats it is titled by
    # the decision it keeps (bench/titles.py measures how often summaries miss the subject).
    title = subject_title(summary)
    assert 2 <= len(title.split()) <= 5
    assert set(title.lower().split()) <= set(re.findall(r"[\w']+", summary.lower()))
    assert not any(quote in title for quote in "\"'")
    assert "User" not in title and "Assistant" not in title


def test_yake_failures_log_no_transcript(caplog: pytest.LogCaptureFixture) -> None:
    # YAKE's own warning quotes the start of the text it failed on.
    logging.getLogger("yake.core.yake").warning(
        "Exception during keyword extraction: boom (text preview: 'Marco quoted 18,500 euros...')"
    )

    assert "YAKE keyword extraction failed" in caplog.text
    assert "Marco" not in caplog.text


async def test_the_model_implements_the_protocol() -> None:
    offline: TextModel = OfflineTextModel()

    assert offline.name == "offline-extractive"
    assert await offline.summarize(KITCHEN, QUARTER) == summarize_extractively(KITCHEN, QUARTER)
    assert await offline.title("Planning the kitchen renovation with Marco.") == subject_title(
        "Planning the kitchen renovation with Marco."
    )


turn_lists = st.lists(
    st.builds(
        Turn,
        role=st.sampled_from(["user", "model"]),
        text=st.text(max_size=300) | st.sampled_from([turn.text for turn in KITCHEN]),
        summary=st.booleans(),
    ),
    max_size=12,
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(turns=turn_lists, max_chars=st.integers(min_value=-5, max_value=1500))
def test_any_turns_any_budget_never_exceed_the_budget(turns: list[Turn], max_chars: int) -> None:
    summary = summarize_extractively(turns, max_chars)

    assert len(summary) <= max(max_chars, 0)


@pytest.mark.parametrize("language", [*SUPPORTED, "xx"])
def test_yakes_stop_words_are_read_as_yake_reads_them(language: str) -> None:
    import yake

    assert yake_stopwords(language) == frozenset(yake.KeywordExtractor(lan=language).stopword_set)
