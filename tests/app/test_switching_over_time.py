"""Switching chats by voice holds up with use: twenty switches in a row over five chats, through the voice
session against the fake Live server, the real store, search, embedder and maintenance. The words that ask
for a chat go with the switch, and no chat is searched by them (`Turn.navigation`): neither the chat they were said
in nor the one they went to becomes a candidate for them."""

from __future__ import annotations

from pathlib import Path

import pytest

from chats.models import Turn
from tests.app.switching import maintained_chats, switch_by_each, switch_sessions
from tests.app.voice_harness import Running, running_loop
from tests.fakes.gemini_live_scenario import (
    Action,
    AfterText,
    AfterToolResponse,
    Call,
    CallTools,
    CompleteTurn,
    OutputTranscript,
    Trigger,
    script,
)
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from voice.session_events import ToolUsed

CHATS = {
    "kitchen": [
        "We're renovating the kitchen: oak cabinets, a new worktop and white wall tiles.",
        "The tiler comes on Monday; the budget for the whole kitchen is 18,500 euros.",
    ],
    "lisbon": [
        "Ana and I are planning a long weekend in Lisbon in May.",
        "We want a day trip to Sintra and dinner in Alfama on the last night.",
    ],
    "sourdough": [
        "My sourdough loaves keep coming out flat and dense.",
        "The starter is two weeks old and I bake with 75 percent hydration.",
    ],
    "billing": [
        "We're migrating the billing service from JavaScript to TypeScript.",
        "The invoice module has no types yet and the tests are failing on the currency helpers.",
    ],
    "marathon": [
        "I'm training for the Berlin marathon in September.",
        "This week the long run is 28 kilometres and my left knee is sore.",
    ],
}
# How a user asks for each, in turn: paraphrases, the same chat asked for again from other chats.
REQUESTS = [
    ("kitchen", "let's go back to the chat about the kitchen renovation"),
    ("lisbon", "open the one about our Lisbon weekend with Ana"),
    ("kitchen", "back to the kitchen renovation chat please"),
    ("sourdough", "the chat where we talked about my flat sourdough"),
    ("billing", "let's continue the TypeScript migration of the billing service"),
    ("kitchen", "let's go back to the chat about the kitchen renovation"),
    ("marathon", "go back to my marathon training"),
    ("lisbon", "the Lisbon trip chat"),
    ("sourdough", "back to the bread baking one"),
    ("kitchen", "the chat about the kitchen tiles and cabinets"),
    ("billing", "open the billing service chat"),
    ("marathon", "the one about my sore knee and the long run"),
    ("kitchen", "let's go back to the chat about the kitchen renovation"),
    ("lisbon", "our trip to Sintra and Alfama"),
    ("sourdough", "my sourdough starter chat"),
    ("billing", "the TypeScript billing migration"),
    ("marathon", "the Berlin marathon chat"),
    ("kitchen", "the kitchen budget chat"),
    ("lisbon", "let's go back to the chat about Lisbon"),
    ("kitchen", "let's go back to the chat about the kitchen renovation"),
]


async def test_the_twentieth_switch_is_as_right_as_the_first(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_TEXT_MODEL", "offline")  # titles and topics as a user without Gemini text gets them
    gemini_live_server.script(*switch_sessions([words for _, words in REQUESTS]))
    async with running_loop(environment) as running:
        chats = {
            name: [*(Turn(role="user", text=text) for text in said), Turn(role="model", text="Noted.")]
            for name, said in CHATS.items()
        }
        ids = await maintained_chats(running, chats)
        started_in = running.chat_id  # a new, empty chat: where the first request is said
        landed, used = await switch_by_each(running, [words for _, words in REQUESTS])
        assert [u.reply.result["outcome"] for u in used] == ["switched"] * len(REQUESTS)
        assert landed == [ids[name] for name, _ in REQUESTS]
        # The requests went with their switches: the chat the first was said in holds nothing, and each topic
        # chat holds the words that asked for it, besides its own.
        assert (await running.store.get(started_in)).full_history == ()
        for name, chat_id in ids.items():
            users = [t for t in (await running.store.get(chat_id)).full_history if t.role == "user"]
            assert [t.text for t in users] == [*CHATS[name], *(words for target, words in REQUESTS if target == name)]
            assert [t.navigation for t in users] == [False] * len(CHATS[name]) + [True] * (
                len(users) - len(CHATS[name])
            )
        # A word said only in a request finds no chat: "bread" asked for the sourdough chat, which never said it.
        assert [r for r in await running.services.finder.ranked("bread") if r.lexical > 0] == []
        # And searching afterwards, as `parley chats search` does, still finds each chat first.
        for name, words in REQUESTS:
            assert (await running.services.finder.ranked(words))[0].chat_id == ids[name], words


GARDEN = ("The tomatoes in the greenhouse need staking.", "Use bamboo canes and soft twine.")


async def garden_then(gemini_live_server: FakeGeminiLiveServer, *steps: tuple[Trigger, tuple[Action, ...]]) -> None:
    """One session: a garden exchange, then `steps`, then the model ends the conversation."""
    gemini_live_server.script(
        script(
            (AfterText(), (OutputTranscript(GARDEN[1]), CompleteTurn())),
            *steps,
            (AfterText(), (CallTools((Call("end", "end_conversation", {}),)),)),
            (AfterToolResponse("end"), (OutputTranscript("Goodbye."), CompleteTurn())),
        ),
        script(),
    )


async def talk(running: Running, *said: str) -> None:
    """Each of `said` once the model has answered the one before; the last ends the conversation."""
    for n, words in enumerate(said, start=1):
        await running.loop.send_text(words)

        def answered(turns: int = 2 * n) -> bool:
            return len(running.watcher.spoken()) == turns

        await running.watcher.until(answered)
    await running.watcher.until_saved(2 * len(said))


async def test_a_request_that_finds_no_chat_stays_where_it_was_said_and_is_not_searched(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_TEXT_MODEL", "offline")
    await garden_then(
        gemini_live_server,
        (AfterText(), (CallTools((Call("s", "switch_chat", {"query": "the venue chat"}),)),)),
        (AfterToolResponse("s"), (OutputTranscript("I found no chat about a venue."), CompleteTurn())),
        (AfterText(), (OutputTranscript("Pinch out the side shoots."), CompleteTurn())),
    )
    async with running_loop(environment) as running:
        await talk(running, GARDEN[0], "switch to the venue chat", "And the side shoots?", "Thanks, bye.")
        chat = await running.store.get(running.chat_id)
        assert [(t.text, t.navigation) for t in chat.full_history] == [
            (GARDEN[0], False),
            (GARDEN[1], False),
            ("switch to the venue chat", True),
            ("I found no chat about a venue.", True),
            ("And the side shoots?", False),
            ("Pinch out the side shoots.", False),
            ("Thanks, bye.", False),
            ("Goodbye.", False),
        ]
        # Asked again, from another chat, the garden chat is no candidate: the request left no word behind.
        ranked = await running.services.finder.ranked("switch to the venue chat")
        assert [r for r in ranked if r.lexical > 0] == []
        await running.services.maintainer.maintain(running.chat_id)
        context = await running.store.load_assistant_context(running.chat_id)
        assert context.topic is not None and "venue" not in context.topic.text.lower()
        assert context.title is not None and "venue" not in context.title.lower()


async def test_a_choice_the_user_does_not_make_leaves_the_rest_of_the_talk_searchable(
    environment: Path, gemini_live_server: FakeGeminiLiveServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARLEY_TEXT_MODEL", "offline")
    await garden_then(
        gemini_live_server,
        (AfterText(), (CallTools((Call("s", "switch_chat", {"query": "the wedding chat"}),)),)),
        (AfterToolResponse("s"), (OutputTranscript("Which one: the guest list or the seating plan?"), CompleteTurn())),
        (AfterText(), (OutputTranscript("Harvest when they are deep red."), CompleteTurn())),
    )
    async with running_loop(environment) as running:
        for text in ("Felix's wedding guest list is at 120 people.", "Felix's wedding seating plan puts Ana first."):
            chat = await running.store.create(turns=[Turn(role="user", text=text), Turn(role="model", text="Noted.")])
            await running.services.maintainer.maintain(chat.id)
        await talk(running, GARDEN[0], "back to the wedding chat", "Never mind: when are the tomatoes ripe?", "Bye.")
        used = [e for e in running.watcher.of("conversation") if isinstance(e, ToolUsed)]
        assert used[0].reply.result["outcome"] == "ask"
        chat = await running.store.get(running.chat_id)
        assert [t.navigation for t in chat.full_history] == [False, False, True, True, False, False, False, False]
        ranked = await running.services.finder.ranked("ripe tomatoes")
        assert ranked[0].chat_id == running.chat_id and ranked[0].lexical > 0
