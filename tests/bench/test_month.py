"""The month benchmark's plan: generated from its seed, the same each time, and as large as issue 14 asks."""

from __future__ import annotations

from collections import Counter

from bench.month_plan import MEMORY_MIX, make_plan, week_of


def test_the_same_seed_gives_the_same_month_and_another_seed_another() -> None:
    assert make_plan(14) == make_plan(14)
    assert make_plan(14).conversations != make_plan(15).conversations


def test_the_month_has_what_the_issue_asks_for() -> None:
    plan = make_plan(14)
    conversations = plan.conversations
    assert len(conversations) == 200
    assert len({t.domain for t in plan.topics}) == 12
    assert {c.topic for c in conversations} == set(range(12))
    assert Counter(week_of(c.day) for c in conversations if c.how == "switch") == {1: 10, 2: 10, 3: 10, 4: 10}
    assert Counter(f.kind for c in conversations for _, f in c.facts) == MEMORY_MIX
    assert sum(c.restart_before for c in conversations) == 10
    assert sum(c.crash for c in conversations) == 2


def test_a_switch_asks_for_another_topic_and_facts_are_restated_only_once_said() -> None:
    plan = make_plan(14)
    previous = None
    said: set[str] = set()
    for c in plan.conversations:
        if c.how == "switch":
            assert previous is not None and c.topic != previous.topic and c.switch_words
        for _, fact in c.facts:
            assert (fact.key in said) == (fact.kind != "first")
            said.add(fact.key)
        previous = c
