"""When a newer fact replaces an older one: frames of single-valued attributes."""

from __future__ import annotations

import pytest

from chats.memory.supersede import Frame, contradicts, frame, restates


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
    assert restates("User moved to Porto last month", "identity", "User lives in Porto now", "identity")
    assert restates("User is a nurse by trade", "identity", "User works as a nurse at the clinic", "identity")
    assert restates("User's job is being a nurse", "identity", "User is a nurse by trade", "identity")
    assert not restates("User moved to Porto", "identity", "User lives in Lisbon", "identity")
    assert not restates("User likes hiking", "identity", "User likes hiking", "identity")  # no frame: duplicates.py
