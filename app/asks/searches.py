"""What `parley chats search` and `parley memories search` found, as JSON-ready values: made by the running
Parley for a search that came over its socket, or by the command itself when none runs. The command prints
from these values either way, so that its output is the same wherever the search ran: scores go whole (JSON
keeps a float exactly), and each command rounds them as it prints."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.asks.wire import Search

if TYPE_CHECKING:
    from app.wiring import ChatServices
    from chats.search import ChatMatch


async def found(services: ChatServices, search: Search) -> dict[str, Any]:
    """What `search` finds with `services`: `chats_found` or `memories_found`."""
    if search.of == "chats":
        from app.controller import ChatController

        return chats_found(await ChatController(services).find(search.query))
    return await memories_found(services, search)


def chats_found(match: ChatMatch) -> dict[str, Any]:
    """`{"outcome", "chats": [{"id", "title", "score", "similarity", "lexical", "last_activity_at"}]}`."""
    return {
        "outcome": match.outcome,
        "chats": [
            {
                "id": str(option.chat_id),
                "title": option.title,
                "score": option.score,
                "similarity": option.similarity,
                "lexical": option.lexical,
                "last_activity_at": option.last_activity_at.isoformat(),
            }
            for option in match.options
        ],
    }


async def memories_found(services: ChatServices, search: Search) -> dict[str, Any]:
    """`{"hits": [memory JSON with "score" and "similarity"], "broad": a question about what is saved as a whole,
    "saved": how many memories are saved, when a search that is not broad found none (else None)}`."""
    from app.memory_controller import MemoryController
    from app.offline.memory_questions import broad_question

    memory = MemoryController(services)
    hits = await memory.search(search.query, limit=search.limit, category=search.category)
    broad = broad_question(search.query) is not None
    return {
        "hits": [{**hit.memory.to_json(), "score": hit.score, "similarity": hit.similarity} for hit in hits],
        "broad": broad,
        "saved": None if hits or broad else await memory.count(),
    }
