"""Recall's pure parts: ranking turns by similarity, words and neighbours, relevance, planning hits from excerpts,
and the turns the model already sees."""

from __future__ import annotations

from uuid import UUID

import pytest

from chats.compaction import summary_turn
from chats.models import Turn
from chats.recall import (
    MIN_SIMILARITY,
    MIN_SIMILARITY_WITH_WORDS,
    TEXT_MAX_CHARS,
    PlannedHit,
    RankedTurn,
    hit_from_excerpt,
    is_relevant,
    plan_hits,
    rank_turns,
    seen_turns_of,
)
from chats.store import ChatExcerpt, TurnCandidate, TurnSpan
from tests.chats.recall_chats import AT

CHAT = UUID(int=1)
OTHER = UUID(int=2)


def candidate(index: int, similarity: float | None = 0.0, lexical: float = 0.0, chat: UUID = CHAT) -> TurnCandidate:
    return TurnCandidate(chat, index, similarity, lexical)


def ranked(index: int, chat: UUID = CHAT, score: float = 1.0) -> RankedTurn:
    return RankedTurn(chat, index, score, 0.5, 1.0)


def test_similarity_and_scaled_bm25_add_up() -> None:
    turns = rank_turns(
        [candidate(0, 0.2, lexical=8.0), candidate(10, 0.5, lexical=0.0), candidate(20, None, lexical=4.0)],
        vector_weight=1.5,
        neighbour_weights=(),
    )
    assert [(t.index, round(t.score, 3)) for t in turns] == [(0, 1.3), (10, 0.75), (20, 0.5)]


def test_a_turn_gains_a_share_of_its_neighbours_in_the_same_chat_only() -> None:
    lone = candidate(0, 0.6)
    answer = candidate(11, 0.5)
    question = candidate(10, 0.4)
    elsewhere = candidate(12, 0.9, chat=OTHER)  # the same position in another chat is no neighbour
    two_away = candidate(13, 0.2)
    turns = {
        t.index: t.score
        for t in rank_turns([lone, answer, question, elsewhere, two_away], neighbour_weights=(0.3, 0.1))
        if t.chat_id == CHAT
    }
    assert turns[0] == pytest.approx(1.5 * 0.6)
    assert turns[11] == pytest.approx(1.5 * (0.5 + 0.3 * 0.4 + 0.1 * 0.2))
    assert turns[10] == pytest.approx(1.5 * (0.4 + 0.3 * 0.5))
    assert turns[11] > turns[0]


def test_ties_rank_in_a_repeatable_order() -> None:
    turns = rank_turns([candidate(3, 0.5, chat=OTHER), candidate(2, 0.5), candidate(1, 0.5)], neighbour_weights=())
    assert [(t.chat_id, t.index) for t in turns] == [(CHAT, 1), (CHAT, 2), (OTHER, 3)]
    assert rank_turns([]) == []


def test_relevance_needs_similarity_or_shared_words() -> None:
    def turn(similarity: float | None, lexical: float) -> RankedTurn:
        return RankedTurn(CHAT, 0, 1.0, similarity, lexical)

    assert is_relevant(turn(MIN_SIMILARITY, 0.0))
    assert not is_relevant(turn(MIN_SIMILARITY - 0.01, 0.0))
    assert is_relevant(turn(MIN_SIMILARITY_WITH_WORDS, 2.0))
    assert not is_relevant(turn(MIN_SIMILARITY_WITH_WORDS - 0.01, 2.0))
    assert is_relevant(turn(None, 2.0))  # words found before the turn had a vector
    assert not is_relevant(turn(None, 0.0))


def test_hits_never_show_a_turn_twice() -> None:
    order = [ranked(10), ranked(11), ranked(14), ranked(3), ranked(0, chat=OTHER), ranked(7)]
    planned = plan_hits(order, limit=4, neighbours=2)
    assert [(p.turn.chat_id, p.turn.index) for p in planned] == [(CHAT, 10), (CHAT, 14), (CHAT, 3), (OTHER, 0)]
    assert [(p.span.first, p.span.last) for p in planned] == [(8, 12), (13, 16), (1, 5), (0, 2)]


def test_a_hit_between_two_others_keeps_only_its_own_turns() -> None:
    planned = plan_hits([ranked(10), ranked(20), ranked(15)], limit=3, neighbours=3)
    assert [(p.span.first, p.span.last) for p in planned] == [(7, 13), (17, 23), (14, 16)]
    assert plan_hits([ranked(1)], limit=3, neighbours=0)[0].span == TurnSpan(CHAT, 1, 1)
    assert len(plan_hits([ranked(i * 10) for i in range(9)], limit=3, neighbours=2)) == 3


def test_a_hit_is_read_from_its_excerpt() -> None:
    turns = tuple(Turn(role="user" if i % 2 else "model", text=f"turn {i}", at=AT) for i in range(4))
    long = Turn(role="model", text="word " * 400)
    excerpt = ChatExcerpt(CHAT, "Tiles", 5, (*turns[:2], long, *turns[2:]))
    hit = hit_from_excerpt(PlannedHit(ranked(7, score=2.5), TurnSpan(CHAT, 5, 9)), excerpt)
    assert hit is not None
    assert (hit.chat_title, hit.turn.index, hit.score) == ("Tiles", 7, 2.5)
    assert len(hit.turn.text) <= TEXT_MAX_CHARS and hit.turn.text.endswith("…")
    assert [t.index for t in hit.before] == [5, 6] and [t.index for t in hit.after] == [8, 9]
    assert hit.before[0].to_json() == {"role": "model", "text": "turn 0"}
    assert hit.to_json()["chatTitle"] == "Tiles" and hit.to_json()["at"] is None
    assert hit_from_excerpt(PlannedHit(ranked(11), TurnSpan(CHAT, 9, 13)), excerpt) is None


def test_the_model_sees_its_assistant_history_without_the_summary() -> None:
    history = [summary_turn("They chose tiles.", AT), Turn(role="user", text="a"), Turn(role="model", text="b")]
    assert seen_turns_of(history) == 2
    assert seen_turns_of([]) == 0
