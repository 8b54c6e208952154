from __future__ import annotations

from datetime import UTC, datetime

from app.tools.chat_tools import TOOLS
from app.tools.prompt import system_prompt
from voice.offline.prompt import without_tools

NOW = datetime(2026, 11, 22, 9, 30, tzinfo=UTC)


def test_the_prompt_states_the_rules_and_every_tool() -> None:
    prompt = system_prompt(tools=TOOLS, chat_title="Kitchen renovation", now=NOW)
    assert "spoken aloud" in prompt and "short" in prompt
    assert "summary turn is consolidated truth" in prompt
    assert "never invent, guess or reconstruct" in prompt
    assert 'This chat is titled "Kitchen renovation".' in prompt
    assert "Sunday 22 November 2026, 09:30" in prompt
    for tool in TOOLS:
        assert f"- {tool.name}: {tool.description}" in prompt


def test_the_prompt_is_stable_and_skips_what_is_absent() -> None:
    first = system_prompt(tools=(), chat_title=None, now=NOW)
    assert first == system_prompt(tools=(), chat_title=None, now=NOW)
    assert "titled" not in first and "tools" not in first


def test_the_small_model_is_not_shown_the_tools_it_cannot_call() -> None:
    with_tools = system_prompt(tools=TOOLS, memories="- User is vegetarian", chat_title=None, now=NOW)
    system = without_tools(with_tools, [t.name for t in TOOLS])
    assert "list_recent_chats" not in system and "tools" not in system and system.startswith("You are Parley")
    assert "User is vegetarian" in system
    assert system.endswith("(UTC).")  # all that came before the tools is kept
    assert (
        without_tools("You are Parley.\n- a list: of things", ["list_recent_chats"])
        == "You are Parley.\n- a list: of things"
    )
