"""Tool intents of the offline voice, with the real local embedder (all-MiniLM-L6-v2)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from app.chat_tools import TOOLS, invalid_arguments
from app.memory_tools import MEMORY_TOOLS
from app.offline_intents import Intent, OfflineIntents, arguments, best_intent, candidates, reply_text
from chats.minilm import MiniLMEmbedder

SPECS = {tool.name: tool for tool in (*TOOLS, *MEMORY_TOOLS)}


@pytest.fixture(scope="module")
def intents() -> OfflineIntents:
    return OfflineIntents(MiniLMEmbedder())


@pytest.mark.parametrize(
    ("said", "tool", "args"),
    [
        ("Let's go back to the chat about the kitchen renovation.", "switch_chat", {"query": "the kitchen renovation"}),
        ("Switch to the chat about the garden", "switch_chat", {"query": "the garden"}),
        ("Start a new chat.", "new_chat", {}),
        ("Can you list my recent chats?", "list_recent_chats", {}),
        ("Thanks, that's all for now. Goodbye.", "end_conversation", {}),
        (
            "Remember that my daughter is called Mia.",
            "save_memory",
            {"content": "User's daughter is called Mia", "category": "relationship"},
        ),
        (
            "Please remember that I prefer tea over coffee.",
            "save_memory",
            {"content": "User prefers tea over coffee", "category": "preference"},
        ),
        ("Forget that I live in Lyon.", "forget_memory", {"query": "I live in Lyon"}),
        ("What do you remember about my job?", "search_memories", {"query": "my job"}),
    ],
)
async def test_requests_become_tool_calls(intents: OfflineIntents, said: str, tool: str, args: dict[str, Any]) -> None:
    call = await intents.match(said)
    assert call is not None and call.name == tool and call.id
    assert {key: call.args[key] for key in args} == args
    if tool != "end_conversation":
        assert invalid_arguments(SPECS[tool], call.args) is None  # the tool will accept them


@pytest.mark.parametrize(
    "said",
    [
        "What's the weather like in Rome tomorrow?",
        "What did we talk about yesterday?",
        "I forgot my keys at home.",
        "Tell me a joke.",
        "What do you think about the new chat app?",
        "Let's talk about the kitchen renovation.",
        "Do you know a good recipe for pasta?",
    ],
)
async def test_questions_and_chat_go_to_the_model(intents: OfflineIntents, said: str) -> None:
    assert await intents.match(said) is None


def test_the_best_tool_must_clear_the_threshold_and_the_runner_up() -> None:
    options = candidates("open it now")
    similarity = np.zeros((len(options), 3), dtype=np.float32)
    tools = ["new_chat", "new_chat", "switch_chat"]
    similarity[1, 0] = 0.95
    intent = best_intent(similarity, tools, options)
    assert intent is not None and (intent.tool, intent.rest) == ("new_chat", "now")
    similarity[0, 2] = 0.9
    assert best_intent(similarity, tools, options) is None  # two tools this close: ask the model instead
    assert best_intent(np.full((len(options), 3), 0.5, dtype=np.float32), tools, options) is None


def test_a_memory_that_cannot_be_put_in_the_third_person_is_not_saved() -> None:
    assert arguments(Intent("save_memory", 1.0, "we"), "remember that we") is None


@pytest.mark.parametrize(
    ("tool", "result", "text"),
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
        (
            "forget_memory",
            {"success": False, "message": "No saved memory is about that."},
            "I don't have anything saved about that.",
        ),
        (
            "search_memories",
            {"success": True, "results": [{"content": "User lives in Lyon."}]},
            "Here is what I have saved: User lives in Lyon.",
        ),
        ("new_chat", {"error": {"code": "unavailable"}}, "Sorry, I couldn't do that right now."),
    ],
)
def test_tool_results_are_put_in_words(tool: str, result: dict[str, Any], text: str) -> None:
    assert reply_text(tool, result) == text
