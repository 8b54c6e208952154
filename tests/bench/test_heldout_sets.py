"""The test parts of chat switching and memory (issue 23, part 7): complete and consistent."""

from __future__ import annotations

import json

from bench import memory_heldout, switch_heldout


def test_every_switch_request_names_a_chat_of_its_user_and_every_chat_is_asked_for() -> None:
    users = switch_heldout.load()
    assert len(users) == 3
    for user in users:
        assert len(user.chats) == 7 and all(len(turns) >= 4 for turns in user.chats.values())
        assert {topic for topic, _ in user.requests} == set(user.chats)
        assert len(user.requests) == 8


def test_every_memory_question_names_memories_of_its_user() -> None:
    users = json.loads(memory_heldout.DATA.read_text(encoding="utf-8"))["users"]
    for user in users.values():
        assert len(user["memories"]) >= 12 and len(user["questions"]) >= 8
        assert all(set(q["memories"]) <= set(user["memories"]) for q in user["questions"])


def test_the_duplicate_pairs_hold_both_verdicts_of_every_kind_they_test() -> None:
    pairs = memory_heldout.test_pairs()
    assert sum(p["duplicate"] for p in pairs) >= 10 and sum(not p["duplicate"] for p in pairs) >= 10
    assert {p["kind"] for p in pairs if not p["duplicate"]} >= {"swap", "number", "date", "negation", "relative"}
