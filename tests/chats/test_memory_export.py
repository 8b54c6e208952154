"""The export a user keeps: memories and every chat's working memory, on real SQLite stores."""

from __future__ import annotations

import json
from pathlib import Path

from chats.embedders.minilm import MiniLMEmbedder
from chats.memory.export import CHATS_PER_PAGE, export_json, export_markdown, working_notes
from chats.memory.service import MemoryService, Saved
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from chats.working_memory import WorkingMemory


async def test_the_export_carries_every_chats_working_memory_and_no_one_elses(
    tmp_path: Path, minilm: MiniLMEmbedder
) -> None:
    path = tmp_path / "chats.sqlite3"
    chats, bobs = await SqliteChatStore.open(path, "alice"), await SqliteChatStore.open(path, "bob")
    memories = await SqliteMemoryStore.open(path, "alice")
    saved = await MemoryService(memories, minilm).add(
        "My daughter is called Mia", project_id=None, category="relationship"
    )
    assert isinstance(saved, Saved)
    notes = WorkingMemory(chats)
    kitchen = await chats.create(title="Kitchen renovation")
    await notes.update(kitchen.id, {"budget": 18500, "tiles": "terracotta", "rooms": ["kitchen", "hall"]})
    # Both chats with notes end up past the first page of chats: gathering goes through every page.
    plumbing = await chats.create()
    await notes.update(plumbing.id, {"next step": "call the plumber"})
    for _ in range(CHATS_PER_PAGE):
        await chats.create(title="Nothing noted")
    await notes.update(kitchen.id, {"budget": 19000})  # an update does not make the chat more recent
    secret = await bobs.create(title="Bob's plans")
    await WorkingMemory(bobs).update(secret.id, {"surprise": "a party for Alice"})

    gathered = await working_notes(chats)
    assert [(n.chat_id, n.chat_title) for n in gathered] == [(plumbing.id, None), (kitchen.id, "Kitchen renovation")]

    document = json.loads(export_json(await memories.export(), gathered))
    assert [m["content"] for m in document["memories"]] == ["User's daughter is called Mia"]
    assert document["workingMemory"] == [
        {"chatId": str(plumbing.id), "chatTitle": None, "notes": {"next step": "call the plumber"}},
        {
            "chatId": str(kitchen.id),
            "chatTitle": "Kitchen renovation",
            "notes": {"budget": 19000, "tiles": "terracotta", "rooms": ["kitchen", "hall"]},
        },
    ]
    markdown = export_markdown(await memories.export(), gathered)
    assert "## People\n\n- User's daughter is called Mia" in markdown
    kitchen_section = f"### Kitchen renovation (chat {kitchen.id})\n\n- budget: 19000\n- tiles: terracotta\n"
    assert kitchen_section + '- rooms: ["kitchen", "hall"]\n' in markdown
    assert f"### Untitled chat (chat {plumbing.id})\n\n- next step: call the plumber\n" in markdown
    assert markdown.index("## People") < markdown.index("## Working memory of chats")
    assert "party" not in markdown and "party" not in export_json(await memories.export(), gathered)
    for store in (chats, bobs, memories):
        await store.close()


def test_an_empty_export_says_so() -> None:
    assert "Nothing yet." in export_markdown([], [])
    assert json.loads(export_json([], [])) == {
        "format": "parley.memories/2",
        "folders": [],
        "memories": [],
        "workingMemory": [],
    }
