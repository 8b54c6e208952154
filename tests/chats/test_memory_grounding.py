"""A fact is saved only from what the user said: names and numbers exactly, most other words by stem."""

from __future__ import annotations

import pytest

from chats.memory.grounding import asked_to_remember, grounded


@pytest.mark.parametrize(
    ("fact", "said"),
    [
        ("User prefers TypeScript over JavaScript", "I prefer TypeScript to JavaScript for everything"),
        ("User's daughter is named Mia", "my daughter Mia starts school next week"),
        ("User lives in Berlin", "I moved to Berlin last month"),
        ("User's budget is 18,500 euros", "our budget is about 18,500 euros"),
        ("User is a software engineer", "I'm a software engineer at a startup"),
        ("User works as a chef", "I work as a chef."),  # short verbs in the third person (bench/month.py)
        ("User loves cycling", "I love cycling at the weekend."),
    ],
)
def test_a_rephrasing_of_the_users_words_is_grounded(fact: str, said: str) -> None:
    assert grounded(fact, ["What's the weather like?", said])


@pytest.mark.parametrize(
    ("fact", "said"),
    [
        ("User works at Google", "What's the weather in Rome?"),  # never said
        ("User lives in Paris", "I moved to Berlin last month"),  # another place
        ("User's budget is 20,000 euros", "our budget is about 18,500 euros"),  # another number
        ("User enjoys hiking in the Alps on weekends", "I like running"),
        ("User prefers dark mode", ""),
    ],
)
def test_what_the_user_did_not_say_is_not(fact: str, said: str) -> None:
    assert not grounded(fact, [said])


def test_only_the_users_words_count() -> None:
    assert not grounded("User is allergic to peanuts", [])


def test_an_explicit_request_is_recognised() -> None:
    assert asked_to_remember("Remember that I take my coffee black")
    assert asked_to_remember("please don't forget: the meeting moved")
    assert asked_to_remember("This is important, I'm vegetarian")
    assert not asked_to_remember("I take my coffee black")


@pytest.mark.parametrize(
    "said",
    [
        "Merk dir, dass ich Vegetarier bin",
        "Ricordati che sono vegetariano",
        "Recuerda que soy vegetariano",
        "Souviens-toi que je suis végétarien",
        "Lembra-te que sou vegetariano",
    ],
)
def test_an_explicit_request_is_recognised_in_every_language(said: str) -> None:
    assert asked_to_remember(said)
    assert not asked_to_remember(said.split(maxsplit=2)[-1])  # the fact alone


def test_a_rephrasing_in_the_users_language_adds_no_content() -> None:
    assert grounded("Der Nutzer ist Vegetarier", ["Merk dir, dass ich Vegetarier bin"])
    assert not grounded("Der Nutzer ist Koch", ["Merk dir, dass ich Vegetarier bin"])
    assert not grounded("L'utente è vegetariano", ["Che tempo fa domani?"])
