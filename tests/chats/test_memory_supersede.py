"""When a newer fact replaces an older one: frames of single-valued attributes."""

from __future__ import annotations

import pytest

from chats.memory.supersede import RESTATEMENT_SIMILARITY, Frame, contradicts, frame, restates


def test_frames_name_subject_attribute_and_value() -> None:
    assert frame("User lives in Paris") == Frame("", "home", "paris")
    assert frame("User moved to Berlin in 2024") == Frame("", "home", "berlin")
    assert frame("User's wife is named Jane") == Frame("wife", "name", "jane")
    assert frame("User's favourite colour is deep blue") == Frame("", "favourite colour", "deep blue")
    assert frame("User is 34 years old") == Frame("", "age", "34")
    assert frame("User works at Google as a designer") == Frame("", "employer", "google")
    assert frame("User works as a nurse at the clinic") == Frame("", "job", "nurse")
    assert frame("User is a software engineer by trade") == Frame("", "job", "software engineer")
    assert frame("User likes hiking") is None
    assert frame("User is a vegetarian") is None
    assert frame("User no longer lives in Paris") is None


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("User lives in Paris", "User lives in Berlin"),
        ("User lives in Paris", "User moved to Berlin"),
        ("User works at Google", "User now works at Meta"),
        ("User's favourite colour is blue", "User's favourite colour is green"),
        ("User is 34 years old", "User is 35 years old"),
        ("User's wife is named Jane", "User's wife is named Anna"),
        ("User works as a translator", "User is a nurse by trade"),
        ("User started working at Hooli", "User has a job at Stark"),
    ],
)
def test_a_new_value_of_the_same_attribute_contradicts(older: str, newer: str) -> None:
    assert contradicts(newer, "identity", older, "identity")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("User lives in Berlin", "User moved to Berlin"),  # the same value
        ("User likes painting", "User likes hiking"),  # not single-valued: both stay
        ("User's wife lives in Paris", "User lives in Berlin"),  # another subject
        ("User lives in Paris", "User works in Berlin"),  # another attribute
        ("User lives in Paris", "User no longer lives in Paris"),  # negations are not read
    ],
)
def test_other_pairs_do_not(older: str, newer: str) -> None:
    assert not contradicts(newer, "identity", older, "identity")


def test_only_the_same_category_is_superseded() -> None:
    assert not contradicts("User lives in Berlin", "identity", "User lives in Paris", "context")


def test_the_same_value_said_otherwise_restates() -> None:
    alike = RESTATEMENT_SIMILARITY
    assert restates("User moved to Porto last month", "identity", "User lives in Porto now", "identity", alike)
    assert restates("User is a nurse by trade", "identity", "User works as a nurse at the clinic", "identity", alike)
    assert restates("User's job is being a nurse", "identity", "User is a nurse by trade", "identity", alike)
    assert not restates("User moved to Porto", "identity", "User lives in Lisbon", "identity", 1.0)
    assert not restates(
        "User likes hiking", "identity", "User likes hiking", "identity", 1.0
    )  # no frame: duplicates.py


def test_a_restatement_that_says_more_than_its_frame_needs_a_close_cosine() -> None:
    below = RESTATEMENT_SIMILARITY - 0.01
    assert not restates("User moved to Porto last month", "identity", "User lives in Porto now", "identity", below)


def test_names_are_read_however_they_are_given() -> None:
    dog = Frame("dog", "name", "kofi")
    assert frame("User's dog is called Kofi") == dog
    assert frame("User's dog is named Kofi") == dog
    assert frame("User's dog's name is Kofi") == dog
    assert frame("User has a dog called Kofi") == dog
    assert frame("User's dog Kofi needs a long walk every day") == dog  # in passing
    assert frame("The user's wife, Jane, is a doctor") == Frame("wife", "name", "jane")
    assert frame("User's wife has a cat named Mimi") == Frame("wife cat", "name", "mimi")


@pytest.mark.parametrize(
    "content",
    [
        "User's son Leo plays football",  # one of several sons, maybe
        "User's other dog is called Tomás",
        "User also has a dog called Tomás",
        "User's new puppy is named Tomás",
        "User has two dogs, Kofi and Tomás",
    ],
)
def test_a_name_that_may_be_one_of_several_has_no_frame(content: str) -> None:
    assert frame(content) is None


def test_speaking_a_language_is_read_with_its_level() -> None:
    speaks = Frame("", "speaks japanese", "speaks")
    assert frame("User speaks Japanese fairly well") == speaks
    assert frame("User can get by in Japanese") == speaks
    assert frame("User speaks a little Japanese") == speaks
    assert frame("User is fluent in Japanese") == Frame("", "speaks japanese", "fluent")
    assert frame("User speaks Japanese fluently") == Frame("", "speaks japanese", "fluent")
    assert frame("User's wife speaks Japanese") == Frame("wife", "speaks japanese", "speaks")
    assert frame("User is learning Japanese") is None
    assert frame("User cannot speak Japanese") is None
    assert frame("User speaks to Marco every day") is None


@pytest.mark.parametrize(
    ("new", "old"),
    [
        ("User's dog is called Kofi", "User's dog Kofi needs a long walk every day"),  # cosine 0.69
        ("User has a dog named Kofi", "User's dog is called Kofi"),
        ("User can get by in Japanese", "User speaks Japanese fairly well"),  # cosine 0.67
        ("User speaks Japanese fluently", "User is fluent in Japanese"),
    ],
)
def test_a_fact_saying_only_what_an_older_one_says_restates_it_however_far_apart_their_words(
    new: str, old: str
) -> None:
    assert restates(new, "identity", old, "identity", 0.3)


@pytest.mark.parametrize(
    ("new", "old"),
    [
        # says more than the name: the walk is worth keeping
        ("User's dog Kofi needs a long walk every day", "User's dog is called Kofi"),
        # two facts about the same dog
        ("User's dog Kofi loves the beach", "User's dog Kofi needs a long walk every day"),
        ("User is fluent in Japanese", "User can get by in Japanese"),  # another level
        ("User can get by in Spanish", "User speaks Japanese fairly well"),  # another language
        ("User is learning Japanese", "User speaks Japanese fairly well"),  # not an ability yet
        ("User's wife speaks Japanese", "User speaks Japanese"),  # another subject
        ("User's other dog is called Kofi", "User's dog is called Kofi"),
    ],
)
def test_other_facts_about_the_same_thing_do_not_restate(new: str, old: str) -> None:
    assert not restates(new, "identity", old, "identity", 0.99)


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        ("User's dog is called Kofi", "User's dog Tomás needs a long walk every day"),
        ("User's dog Kofi needs a long walk every day", "User's dog Tomás needs a long walk every day"),
        ("User has a dog called Kofi", "User's dog is named Tomás"),
        ("User can get by in Japanese", "User is fluent in Japanese"),
    ],
)
def test_another_name_or_level_contradicts(older: str, newer: str) -> None:
    assert contradicts(newer, "relationship", older, "relationship")


@pytest.mark.parametrize(
    ("older", "newer"),
    [
        # what the older fact says of Kofi may still hold: Tomás may be a second dog
        ("User's dog Kofi loves the beach", "User's dog Tomás needs a long walk every day"),
        ("User's dog Kofi loves the beach", "User's dog is called Tomás"),
        ("User's dog is called Kofi", "User also has a dog called Tomás"),
        ("User's dog is called Kofi", "User's cat is called Tomás"),
        ("User's son is called Max", "User's son Leo plays football"),
        ("User speaks Japanese fairly well", "User speaks Spanish fairly well"),  # many languages
        ("User speaks Japanese", "User is learning Spanish"),
    ],
)
def test_another_dog_language_or_child_does_not_contradict(older: str, newer: str) -> None:
    assert not contradicts(newer, "relationship", older, "relationship")
