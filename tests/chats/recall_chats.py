"""Real chats for the recall tests (a kitchen renovation, a garden, a holiday) and a chat made of one, its turns
embedded by the real `TurnIndexer`."""

from __future__ import annotations

from datetime import UTC, datetime
from uuid import UUID

from chats.embedders.minilm import MiniLMEmbedder
from chats.maintenance import TurnIndexer
from chats.models import Turn
from chats.sqlite.store import SqliteChatStore

AT = datetime(2026, 2, 3, 10, 0, tzinfo=UTC)
KITCHEN = [
    ("user", "Let's plan the kitchen renovation, we have a budget of 18,500 euros."),
    ("model", "Good. What style of cabinets are you thinking of?"),
    ("user", "Oak cabinets, and for the floor we need to pick tiles."),
    ("model", "Terracotta or grey porcelain tiles would both suit oak."),
    ("user", "We decided on the terracotta tiles, 60 by 60, from the shop in town."),
    ("model", "Terracotta it is. I'll note 60 by 60 terracotta tiles."),
    ("user", "The plumber comes on Tuesday to move the sink."),
    ("model", "Noted: plumber on Tuesday for the sink."),
]
GARDEN = [
    ("user", "The tomatoes in the garden need more sun."),
    ("model", "Move the pots to the south side of the house."),
    ("user", "And the roses keep getting aphids."),
    ("model", "Try spraying them with soapy water every few days."),
]
HOLIDAY = [
    ("user", "We are flying to Lisbon in May for a week."),
    ("model", "Lisbon in May is lovely: try the pastel de nata in Belém."),
]


def dialogue(lines: list[tuple[str, str]]) -> list[Turn]:
    return [Turn(role="user" if role == "user" else "model", text=text, at=AT) for role, text in lines]


async def embedded_chat(
    store: SqliteChatStore,
    minilm: MiniLMEmbedder,
    lines: list[tuple[str, str]],
    title: str | None = None,
    project_id: str | None = None,
) -> UUID:
    chat = await store.create(turns=dialogue(lines), title=title, project_id=project_id)
    await TurnIndexer(store, minilm).embed_chat(chat.id)
    return chat.id
