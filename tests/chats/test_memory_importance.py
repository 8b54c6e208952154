"""Spec 001's importance: base by category, boosts and reductions, clamped."""

from __future__ import annotations

import pytest

from chats.memory.importance import IMPORTANCE_MAX, IMPORTANCE_MIN, asks_to_remember, importance
from chats.memory.models import CATEGORIES


@pytest.mark.parametrize(
    ("category", "base"), [("identity", 10), ("preference", 9), ("relationship", 8), ("project", 7), ("context", 5)]
)
def test_the_base_is_the_categorys(category: str, base: int) -> None:
    assert importance(category, "user prefers plain answers") == base  # type: ignore[arg-type]


def test_boosts_and_reductions_add_up() -> None:
    plain = "user is building a chat application"
    assert importance("project", plain) == 7
    assert importance("project", plain, explicit_request=True) == 9
    assert importance("project", plain, reasoning="The user said: remember this") == 9
    assert importance("project", "User is building Parley with Python 3.11") == 8  # names, numbers
    assert importance("project", plain, reasoning="A long-term career goal") == 8
    assert importance("context", "user might try pottery someday") == 3  # vague
    assert importance("context", "user is tired today") == 3  # temporary
    assert importance("context", "user might be tired today") == IMPORTANCE_MIN


def test_the_score_is_clamped() -> None:
    assert importance("identity", "User is a nurse in Lisbon", explicit_request=True) == IMPORTANCE_MAX
    for category in CATEGORIES:
        assert IMPORTANCE_MIN <= importance(category, "user might be here today, maybe") <= IMPORTANCE_MAX


def test_asking_to_remember_is_recognised() -> None:
    assert asks_to_remember("User said: don't forget that")
    assert asks_to_remember("Keep in mind")
    assert not asks_to_remember("Programming language preference")
