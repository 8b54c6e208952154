"""Third-person content, comparison keys and the details of a fact: pure functions."""

from __future__ import annotations

import pytest

from chats.errors import InvalidMemory
from chats.memory.text import comparison_key, names, numbers, second_person, third_person


@pytest.mark.parametrize(
    ("said", "kept"),
    [
        # spec 001's table
        ("I am a software engineer", "User is a software engineer"),
        ("My wife is Jane", "User's wife is Jane"),
        ("I prefer TypeScript", "User prefers TypeScript"),
        ("I'm based in London", "User is based in London"),
        # the other simple forms
        ("I\u2019ve got two cats named Miso and Tofu", "User has got two cats named Miso and Tofu"),
        ("I moved to Berlin in 2024", "User moved to Berlin in 2024"),
        ("I go climbing every Thursday", "User goes climbing every Thursday"),
        ("I try to avoid sugar", "User tries to avoid sugar"),
        ("I have a dog called Rex", "User has a dog called Rex"),
        ("I don't drink coffee", "User does not drink coffee"),
        ("I can speak three languages", "User can speak three languages"),
        ("I always take the train", "User always takes the train"),
        ("I also have a bike", "User also has a bike"),
        (
            "I prefer short answers. My sister lives in Porto.",
            "User prefers short answers. User's sister lives in Porto.",
        ),
        ("I told my boss about it myself", "User told their boss about it themselves"),
        # already third person: unchanged, but tidied
        ("  User prefers   dark mode\n", "User prefers dark mode"),
        ('User\'s motto is "I think, therefore I am"', 'User\'s motto is "I think, therefore I am"'),
    ],
)
def test_simple_first_person_forms_are_rewritten(said: str, kept: str) -> None:
    assert third_person(said) == kept


@pytest.mark.parametrize(
    ("memory", "said"),
    [
        ("User is a software engineer", "You are a software engineer"),
        ("User's wife is Jane", "Your wife is Jane"),
        ("User prefers TypeScript", "You prefer TypeScript"),
        ("User has got two cats named Miso and Tofu", "You have got two cats named Miso and Tofu"),
        ("User moved to Berlin in 2024", "You moved to Berlin in 2024"),
        ("User goes climbing every Thursday", "You go climbing every Thursday"),
        ("User tries to avoid sugar", "You try to avoid sugar"),
        ("User does not drink coffee", "You do not drink coffee"),
        ("User doesn\u2019t drink coffee", "You don't drink coffee"),
        ("User always takes the train", "You always take the train"),
        (
            "User prefers short answers. User's sister lives in Porto.",
            "You prefer short answers. Your sister lives in Porto.",
        ),
        ("User told their boss about it themselves", "You told your boss about it yourself"),
        ("The user studies law and User watches football", "You study law and you watch football"),
        ("After work, User goes running", "After work, you go running"),
        ("Mia is User's daughter and she calls User every day", "Mia is your daughter and she calls you every day"),
        ("User's kids love their school", "Your kids love their school"),  # theirs, not the user's
        ("User gave them a lift to the station", "You gave them a lift to the station"),
        ('User\'s motto is "User first"', 'Your motto is "User first"'),
    ],
)
def test_a_memory_is_said_back_to_the_user_in_the_second_person(memory: str, said: str) -> None:
    assert second_person(memory) == said


@pytest.mark.parametrize(
    "said",
    ["When I was five I lived in Rome", "We moved to Lisbon last year", "Our cat is called Miso", "Tell us about it"],
)
def test_first_person_it_cannot_rewrite_is_refused_with_a_hint(said: str) -> None:
    with pytest.raises(InvalidMemory, match="third person"):
        third_person(said)


def test_the_us_is_a_country_not_a_pronoun() -> None:
    assert third_person("User moved to the US in 2020") == "User moved to the US in 2020"


@pytest.mark.parametrize(("content", "message"), [("too short", "too short"), ("x" * 501, "too long")])
def test_length_is_checked_after_tidying(content: str, message: str) -> None:
    with pytest.raises(InvalidMemory, match=message):
        third_person(content)
    assert third_person("   ten chars!  ") == "ten chars!"


def test_a_long_text_in_the_first_person_hears_it_is_too_long_and_is_not_said_back() -> None:
    with pytest.raises(InvalidMemory) as refused:
        third_person("I " + "really like long walks by the sea " * 150)
    assert str(refused.value) == "Content too long (maximum 500 characters, got 5101)"


def test_comparison_key_ignores_case_punctuation_spaces_and_the_subject() -> None:
    assert comparison_key("The user's wife is named Jane!") == comparison_key("User's  wife is named jane")
    assert comparison_key("User prefers TypeScript.") == "prefers typescript"
    assert comparison_key("User prefers TypeScript") != comparison_key("User prefers Python")


def test_numbers_dates_and_names() -> None:
    assert numbers("User's daughter was born on 3 May 2019 and has two cats") == {"3", "may", "2019", "2"}
    assert numbers("Nobody was hurt, no one at all, last Friday") == {"friday"}
    assert names("Caroline gave Melanie a book in Paris") == ["^caroline", "melanie", "paris"]
    assert names("User's wife Jane met User's boss in March") == ["jane"]
