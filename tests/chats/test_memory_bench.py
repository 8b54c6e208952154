"""The memory benchmark's own arithmetic and its reading of LoCoMo."""

from __future__ import annotations

from pathlib import Path

from bench import locomo
from bench.memory import personal_category
from bench.memory_facts import evidence_recall, rewrite


def test_recall_is_the_share_of_evidence_turns_covered() -> None:
    evidence = frozenset({"D1:3", "D2:5"})
    assert evidence_recall(evidence, [frozenset({"D1:3"}), frozenset({"D9:1"})]) == 0.5
    assert evidence_recall(evidence, [frozenset({"D1:3", "D2:5"})]) == 1.0
    assert evidence_recall(evidence, []) == 0.0


def test_the_tried_rewrite_strips_question_words() -> None:
    assert rewrite("When did Caroline go to the LGBTQ support group?") == "Caroline go to the LGBTQ support group"
    assert rewrite("How many times has Melanie gone to the beach?") == "Melanie gone to the beach"
    assert rewrite("Why?") == "Why?"


def test_dialogue_ids_are_read_however_locomo_writes_them() -> None:
    assert locomo.dialogue_ids("D8:6; D9:17") == {"D8:6", "D9:17"}
    assert locomo.dialogue_ids(["D1:3", "D2:1 D2:4"]) == {"D1:3", "D2:1", "D2:4"}
    assert locomo.dialogue_ids(None) == frozenset()


def test_personal_categories_for_the_preload_figure() -> None:
    assert personal_category("Melanie's kids love the beach") == "relationship"
    assert personal_category("Nate enjoys sci-fi movies") == "preference"
    assert personal_category("Andrew lives in an apartment") == "identity"


SAMPLE = Path(__file__).resolve().parents[1] / "fixtures" / "locomo_sample.json"
"""The first conversation of LoCoMo cut to two sessions of four turns, with their facts and questions (the
whole data set lives beside the repository, not in it)."""


def test_every_observation_and_question_keeps_its_sources() -> None:
    [conversation] = locomo.load(SAMPLE)
    assert len(conversation.observations) == 4
    assert len(conversation.questions) == 3
    assert all(o.sources for o in conversation.observations)
    assert all(q.evidence for q in conversation.questions)
    assert {source for o in conversation.observations for source in o.sources} == {"D1:2", "D1:3", "D2:1", "D2:3"}
