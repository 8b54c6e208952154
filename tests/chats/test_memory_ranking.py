"""Ranking memories: the pure fusion, date reading and diversity."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from chats.memory.ranking import (
    FUSED,
    VECTOR_ONLY,
    DateWindow,
    Ranking,
    best_of_chat,
    date_window,
    diversify,
    fuse,
    memory_terms,
    relevant,
    top,
)


def arrays(*values: float) -> np.ndarray:
    return np.array(values, dtype=np.float32)


def no_chat(count: int) -> np.ndarray:
    return np.full(count, -1, dtype=np.int64)


def never(count: int) -> np.ndarray:
    return np.zeros(count, dtype=np.float64)


@pytest.mark.parametrize(
    ("text", "start", "end"),
    [
        ("What did Maria do on 7 July, 2023?", datetime(2023, 7, 7), datetime(2023, 7, 8)),
        ("what happened on July 7th 2023", datetime(2023, 7, 7), datetime(2023, 7, 8)),
        ("What did Maria start in December 2023?", datetime(2023, 12, 1), datetime(2024, 1, 1)),
        ("How often did she go to the beach in 2023?", datetime(2023, 1, 1), datetime(2024, 1, 1)),
    ],
)
def test_absolute_dates_are_read(text: str, start: datetime, end: datetime) -> None:
    assert date_window(text) == DateWindow(start.replace(tzinfo=UTC), end.replace(tzinfo=UTC))


@pytest.mark.parametrize("text", ["what did I say last week", "the 3:2019 ratio", "on 31 February 2024", "at 10:30"])
def test_other_text_names_no_date(text: str) -> None:
    assert date_window(text) is None


def test_lexical_counts_relative_to_the_best_match() -> None:
    scores = fuse(
        arrays(0.5, 0.5, 0.4),
        lexical=arrays(0.0, 8.0, 4.0),
        chat=no_chat(3),
        created=never(3),
        window=None,
        ranking=FUSED,
    )
    np.testing.assert_allclose(scores, [0.5, 0.7, 0.5], rtol=1e-6)
    alone = fuse(
        arrays(0.5, 0.2), lexical=arrays(0, 9), chat=no_chat(2), created=never(2), window=None, ranking=VECTOR_ONLY
    )
    np.testing.assert_allclose(alone, [0.5, 0.2], rtol=1e-6)


def test_a_strong_neighbour_from_the_same_chat_lifts_a_memory() -> None:
    ranking = Ranking(lexical_weight=0, chat_weight=0.5, date_weight=0, diversity=0)
    chats = np.array([0, 0, 1, -1], dtype=np.int64)
    scores = fuse(
        arrays(0.9, 0.3, 0.35, 0.3),
        lexical=arrays(0, 0, 0, 0),
        chat=chats,
        created=never(4),
        window=None,
        ranking=ranking,
    )
    np.testing.assert_allclose(scores, [1.35, 0.75, 0.525, 0.45], rtol=1e-6)
    np.testing.assert_allclose(best_of_chat(arrays(0.1, 0.2), no_chat(2)), [0.1, 0.2])


def test_a_named_date_lifts_what_was_saved_then_and_a_few_days_after() -> None:
    ranking = Ranking(lexical_weight=0, chat_weight=0, date_weight=0.2, date_grace_days=3, diversity=0)
    days = [datetime(2023, 7, d, tzinfo=UTC).timestamp() for d in (6, 7, 9, 11)]
    scores = fuse(
        arrays(0.5, 0.5, 0.5, 0.5),
        lexical=arrays(0, 0, 0, 0),
        chat=no_chat(4),
        created=np.array(days),
        window=date_window("on 7 July 2023"),
        ranking=ranking,
    )
    np.testing.assert_allclose(scores, [0.5, 0.7, 0.7, 0.5], rtol=1e-6)


def test_top_is_best_first_and_stable() -> None:
    assert top(arrays(0.1, 0.9, 0.5, 0.9), 3) == [1, 3, 2]
    assert top(arrays(0.1), 5) == [0]
    assert top(arrays(), 5) == []


def test_diversity_lets_a_second_fact_past_restatements_of_the_first() -> None:
    first, restated, other = np.eye(3, dtype=np.float32)
    restated = (first * 0.99 + restated * 0.14).astype(np.float32)
    vectors = np.stack([first, restated / np.linalg.norm(restated), other])
    relevance = arrays(0.9, 0.88, 0.7)
    assert diversify(relevance, vectors, 2, 0.0) == [0, 1]
    assert diversify(relevance, vectors, 2, 0.2) == [0, 2]
    assert diversify(relevance, vectors, 5, 0.2) == [0, 2, 1]


def test_unrelated_memories_are_left_out_unless_they_share_a_word() -> None:
    kept = relevant(arrays(0.6, 0.05, 0.05), arrays(0, 0, 3), Ranking())
    assert kept.tolist() == [True, False, True]
    assert relevant(arrays(-0.5), arrays(0), VECTOR_ONLY).tolist() == [True]


def test_memory_terms_skip_the_words_every_memory_has() -> None:
    assert memory_terms("Do you remember what the user said about Lisbon?") == ["lisbon"]
