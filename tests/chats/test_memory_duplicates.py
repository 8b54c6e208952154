"""Duplicate detection: the pure verdict on two texts and a cosine, then the labelled paraphrase set
with the real embedder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from chats.embedders.minilm import MiniLMEmbedder
from chats.memory.duplicates import judge_duplicate

PARAPHRASES = Path(__file__).resolve().parents[2] / "bench" / "memory_paraphrases.json"


def test_the_same_text_once_normalised_is_a_duplicate_whatever_the_vectors() -> None:
    verdict = judge_duplicate("The user prefers TypeScript!", "User prefers typescript", 0.2)
    assert (verdict.duplicate, verdict.reason) == (True, "same text")


def test_a_close_restatement_with_the_same_details_is_a_duplicate() -> None:
    assert judge_duplicate("User likes TypeScript", "User prefers using TypeScript", 0.87).duplicate
    assert not judge_duplicate("User likes TypeScript", "User prefers using TypeScript", 0.84).duplicate


@pytest.mark.parametrize(
    ("new", "old", "cosine"),
    [
        ("User's daughter was born in 2021", "User's daughter was born in 2019", 0.959),
        ("Melanie gave Caroline a book", "Caroline gave Melanie a book", 0.991),
        ("User's son was born in 2019", "User's daughter was born in 2019", 0.90),
        ("User does not like coffee", "User likes coffee", 0.884),
        ("User has three kids", "User has two kids", 0.926),
        ("Maria met Ana in Lisbon", "Maria met Ana in Porto", 0.96),
    ],
)
def test_differing_details_veto_even_above_the_specs_line(new: str, old: str, cosine: float) -> None:
    verdict = judge_duplicate(new, old, cosine)
    assert (verdict.duplicate, verdict.reason) == (False, "details differ")


def test_a_fronted_phrase_is_not_a_different_subject() -> None:
    assert judge_duplicate(
        "Last Friday Calvin was in a car accident in which nobody was hurt.",
        "Calvin had a car accident last Friday, but no one was hurt.",
        0.958,
    ).duplicate


def test_the_paraphrase_set_keeps_precision(minilm: MiniLMEmbedder) -> None:
    pairs = json.loads(PARAPHRASES.read_text(encoding="utf-8"))["pairs"]
    first = minilm.embed_sync([p["a"] for p in pairs])
    second = minilm.embed_sync([p["b"] for p in pairs])
    cosines = np.sum(first * second, axis=1)
    said = [judge_duplicate(p["b"], p["a"], float(c)).duplicate for p, c in zip(pairs, cosines, strict=True)]
    right = sum(s and p["duplicate"] for s, p in zip(said, pairs, strict=True))
    assert right / sum(said) >= 0.95
    assert right / sum(p["duplicate"] for p in pairs) >= 0.9
