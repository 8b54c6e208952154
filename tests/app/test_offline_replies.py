"""What the offline voice says once a tool has answered: templates for what a tool did, findings for the
chat model to put in words, and the check its words must pass."""

from __future__ import annotations

from typing import Any

import pytest

from app.offline.replies import supported, tool_answer
from voice.offline.router import ToolAnswer

TILES = "Let's go with the white zellige tiles for the wall behind the sink."


@pytest.mark.parametrize(
    ("tool", "result", "template"),
    [
        (
            "switch_chat",
            {"outcome": "switched", "chat_id": "x", "title": "Kitchen plans"},
            "Switching to Kitchen plans.",
        ),
        ("switch_chat", {"outcome": "none"}, "I couldn't find a chat about that."),
        (
            "switch_chat",
            {"outcome": "ask", "options": [{"title": "Kitchen"}, {"title": None}]},
            "I found several chats: Kitchen and an untitled chat. Which one do you mean?",
        ),
        (
            "list_recent_chats",
            {"chats": [{"title": "A"}, {"title": "B"}, {"title": "C"}]},
            "Your recent chats are: A, B and C.",
        ),
        ("save_memory", {"success": True}, "Okay, I'll remember that."),
        ("save_memory", {"success": False, "duplicate": True}, "I already know that."),
        ("add_memory", {"success": True, "memoryId": "x", "message": "Memory added"}, "Okay, I've noted that."),
        ("add_memory", {"success": False, "error": "the user did not say this"}, "Sorry, I couldn't save that."),
        (
            "forget_memory",
            {"success": False, "message": "No saved memory is about that."},
            "I don't have anything saved about that.",
        ),
        ("search_memories", {"success": True, "results": []}, "I don't have anything saved about that."),
        ("recall_conversations", {"success": True, "results": []}, "I couldn't find that in our earlier chats."),
        ("new_chat", {"error": {"code": "unavailable"}}, "Sorry, I couldn't do that right now."),
    ],
)
def test_what_a_tool_did_is_said_from_a_template(tool: str, result: dict[str, Any], template: str) -> None:
    assert tool_answer(tool, result) == ToolAnswer(template)


def test_saved_memories_found_go_to_the_model_with_a_template_to_fall_back_on() -> None:
    answer = tool_answer(
        "search_memories",
        {"success": True, "results": [{"content": "User lives in Lyon."}, {"content": "User works at a bakery."}]},
    )
    assert answer.findings == ("You live in Lyon.", "You work at a bakery.")
    assert answer.template == "Here is what I have saved: you live in Lyon and you work at a bakery."
    assert answer.names == ("Lyon",)  # the best match's: an answer that leaves it out is followed by the template


def test_the_names_an_answer_must_say_are_the_best_matchs_names_and_numbers() -> None:
    results = [{"content": "User's daughter Mia was born in 2019, Mia loves horses."}, {"content": "User met Ana."}]
    assert tool_answer("search_memories", {"success": True, "results": results}).names == ("Mia", "2019")


def test_memories_to_choose_from_are_read_to_the_user() -> None:
    choices = [{"content": "User's sister lives in Porto."}, {"content": "User's sister works in Lisbon."}]
    answer = tool_answer("forget_memory", {"success": False, "choices": choices})
    assert answer == ToolAnswer(
        "Which one should I forget: your sister lives in Porto and your sister works in Lisbon?"
    )


def test_earlier_messages_found_go_to_the_model_cut_short() -> None:
    long = " ".join(["word"] * 60)
    hit = {"chatTitle": "Kitchen renovation", "role": "user", "text": TILES, "before": [], "after": []}
    answer = tool_answer(
        "recall_conversations", {"success": True, "results": [hit, {**hit, "role": "model", "text": long}]}
    )
    assert answer.findings[0] == TILES
    assert answer.findings[1].split() == [*["word"] * 39, "word..."]
    assert answer.template == f"In our chat Kitchen renovation, you said: {TILES}"


@pytest.mark.parametrize(
    ("sentence", "holds"),
    [
        ("We decided to use white zellige tiles for the wall.", True),
        ("You chose the white zellige tiles behind the sink.", True),
        ("We chose blue Moroccan tiles for the floor.", False),  # a name and words the findings never said
        ("I remember the day I was hired by the hospital to help with patient care.", False),
        ("The tiles cost 400 euros.", False),  # a number nobody said
        ("The user asked to remember what was decided about the kitchen tile.", False),  # the question, echoed
    ],
)
def test_the_models_words_are_said_only_when_the_findings_support_them(sentence: str, holds: bool) -> None:
    assert supported(sentence, [TILES], "What did we decide about the kitchen tiles?") is holds
