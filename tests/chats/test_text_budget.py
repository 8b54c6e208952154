"""Cutting text to a budget: sentences first, then words."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from chats.text.text_budget import cut_at_sentence, cut_at_word


def test_cut_at_sentence() -> None:
    assert cut_at_sentence("One. Two.", 20) == "One. Two."
    assert cut_at_sentence("One. Two. Three.", 10) == "One. Two."
    assert cut_at_sentence("It costs 3.5 euros. Then more.", 22) == "It costs 3.5 euros."
    assert cut_at_sentence("It costs 3.5 euros", 10) == "It costs…"
    assert cut_at_sentence("Did it? Yes", 9) == "Did it?"


def test_cut_at_word() -> None:
    assert cut_at_word("short", 10) == "short"
    assert cut_at_word("the oak floors", 9) == "the oak…"
    assert cut_at_word("unbreakable", 5) == "unbr…"
    assert cut_at_word("anything", 1) == "…"
    assert cut_at_word("anything", 0) == ""


def test_clipping_prefers_a_sentence_end() -> None:
    assert cut_at_sentence("One two. Three four five.", 12) == "One two."
    assert cut_at_sentence("short", 10) == "short"
    assert cut_at_sentence("no sentence end here at all", 12) == "no sentence…"


@given(st.text(), st.integers(1, 300))
def test_clipping_never_exceeds_the_limit(text: str, limit: int) -> None:
    assert len(cut_at_sentence(text, limit)) <= limit


@given(st.text(), st.integers(1, 300))
def test_word_cuts_never_exceed_the_limit(text: str, limit: int) -> None:
    assert len(cut_at_word(text, limit)) <= limit
