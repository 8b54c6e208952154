"""Two more memory tools: `recall_conversations` (what was said in the user's earlier chats) and
`update_working_memory` (the chat's small notebook of facts the model keeps while it works).

Answers follow the memory tools' shape: `success`, and on failure a message the model can say in its own
words. The chat's working memory itself is given to the model in the system prompt at the start of each
session, so reading it needs no tool.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from app.tools.chat_tools import invalid_arguments, unavailable
from app.tools.memory_tools import failure
from chats.errors import ChatsError, InvalidRecallQuery, InvalidWorkingMemory, WorkingMemoryTooLarge
from chats.recall import DEFAULT_LIMIT, MAX_LIMIT, Recaller
from chats.working_memory import MAX_BYTES, WorkingMemory
from voice.live.connection import ToolDeclaration

log = logging.getLogger(__name__)

RECALL_CONVERSATIONS = ToolDeclaration(
    "recall_conversations",
    "Look up what was said in the user's earlier chats ('what did we decide about the tiles?'), when it is "
    "not in this conversation. Each result is a message with the messages around it and its chat's title.",
    {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1, "description": "What to look for, in plain words."},
            "limit": {"type": "integer", "minimum": 1, "maximum": MAX_LIMIT, "default": DEFAULT_LIMIT},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)
UPDATE_WORKING_MEMORY = ToolDeclaration(
    "update_working_memory",
    "Keep notes for this chat while you work on something with the user (a budget, a list, a decision): "
    "pass a JSON object to merge into the chat's working memory; a key set to null is removed. The notes "
    f"are shown to you at the start of every conversation in this chat. At most {MAX_BYTES} bytes in all.",
    {
        "type": "object",
        "properties": {
            "patch": {
                "type": "string",
                "minLength": 2,
                "description": 'A JSON object, e.g. {"budget_eur": 18500, "tiles": "white zellige"}.',
            },
        },
        "required": ["patch"],
        "additionalProperties": False,
    },
)
RECALL_TOOLS = (RECALL_CONVERSATIONS, UPDATE_WORKING_MEMORY)


class RecallTools:
    def __init__(self, recaller: Recaller, working_memory: WorkingMemory) -> None:
        self._recaller = recaller
        self._working = working_memory

    def handles(self, name: str) -> bool:
        return name in (RECALL_CONVERSATIONS.name, UPDATE_WORKING_MEMORY.name)

    async def call(self, name: str, args: Mapping[str, Any], chat_id: UUID) -> dict[str, Any]:
        spec = RECALL_CONVERSATIONS if name == RECALL_CONVERSATIONS.name else UPDATE_WORKING_MEMORY
        problem = invalid_arguments(spec, args)
        if problem is not None:
            return failure(f"invalid arguments: {problem}")
        try:
            if name == RECALL_CONVERSATIONS.name:
                return await self._recall(args, chat_id)
            return await self._update(args, chat_id)
        except (InvalidRecallQuery, InvalidWorkingMemory, WorkingMemoryTooLarge) as invalid:
            return failure(str(invalid))
        except ChatsError as error:
            log.warning("tool %s failed: %s", name, type(error).__name__)
            return failure(unavailable(error))

    async def _recall(self, args: Mapping[str, Any], chat_id: UUID) -> dict[str, Any]:
        hits = await self._recaller.recall(
            str(args["query"]), current_chat=chat_id, limit=int(args.get("limit", DEFAULT_LIMIT))
        )
        if not hits:
            return {"success": True, "results": [], "message": "Nothing in earlier chats matches that."}
        return {"success": True, "results": [hit.to_json() for hit in hits]}

    async def _update(self, args: Mapping[str, Any], chat_id: UUID) -> dict[str, Any]:
        try:
            patch = json.loads(str(args["patch"]))
        except json.JSONDecodeError as error:
            return failure(f"patch is not JSON: {error.msg}")
        if not isinstance(patch, dict):
            return failure("patch must be a JSON object")
        notes = await self._working.update(chat_id, patch)
        return {"success": True, "workingMemory": notes}


def working_memory_block(notes: Mapping[str, Any]) -> str:
    """The chat's working memory as the system prompt shows it; empty when there is none."""
    if not notes:
        return ""
    return "Your notes for this chat (working memory):\n" + json.dumps(notes, ensure_ascii=False, sort_keys=True)
