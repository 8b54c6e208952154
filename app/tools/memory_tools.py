"""The memory tools the voice model can call: `save_memory`, `add_memory`, `search_memories`, `forget_memory`.

Their names, parameters and answers follow the spec documents exactly (000 for add/search, 001 for
save). Every answer is a JSON object with `success`; a failure is `success: false` with a message the
model can say in its own words, never an exception: a bad call must not end a conversation.

A memory is saved only from what the user said (`chats.memory.grounding`): a fact whose words the user
never spoke in this chat is refused, so nothing the model read in the system prompt, in a recalled memory
or in its own answers is fed back into memory.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any
from uuid import UUID

from jsonschema import ValidationError

from app.offline.memory_questions import BroadQuestion, broad_question, overview
from app.tools.chat_tools import argument_error, query_or_id
from chats.errors import ChatsError, InvalidMemory, MemoryNotFound
from chats.memory.grounding import grounded
from chats.memory.models import CATEGORIES, CONTENT_MAX, CONTENT_MIN, Memory, MemoryHit, scope_of, shown_category
from chats.memory.service import REASONING_MAX, REASONING_MIN, Duplicate, MemoryService, Saved
from chats.memory.store import SEARCH_LIMIT_MAX
from chats.models import FolderFilter
from voice.live.connection import ToolDeclaration

log = logging.getLogger(__name__)


def content_parameter(description: str) -> dict[str, Any]:
    """The `content` argument of the tools that keep a memory: text within a memory's length bounds."""
    return {"type": "string", "minLength": CONTENT_MIN, "maxLength": CONTENT_MAX, "description": description}


CATEGORY_NAME = (
    f"One of {', '.join(CATEGORIES)}, or any name that groups memories (e.g. incident): "
    "a search with it finds only the memories added with it."
)
SAVE_MEMORY = ToolDeclaration(
    "save_memory",
    "Save a durable fact about the user to their memory bank. Call it when the user asks you to remember "
    "something, or states their name, role, location, family, a clear preference (I prefer, I always, I "
    "never) or an ongoing project with details. Do not call it for one-off requests, vague or uncertain "
    "statements (I might try...), questions, generic facts, what the conversation is doing, or facts already "
    "in your instructions. Rephrase in the third person: 'User prefers TypeScript', not 'I prefer "
    "TypeScript'. Only what the user said about themselves, never your own words.",
    {
        "type": "object",
        "properties": {
            "content": content_parameter(
                "The fact to remember, rephrased in third person (e.g. 'User prefers dark mode')."
            ),
            "category": {
                "type": "string",
                "enum": list(CATEGORIES),
                "description": "identity (who they are), preference (likes, dislikes), project (work, ongoing "
                "tasks), context (situational), relationship (people they know).",
            },
            "reasoning": {
                "type": "string",
                "minLength": REASONING_MIN,
                "maxLength": REASONING_MAX,
                "description": "Why this is worth remembering long-term, in one or two sentences.",
            },
        },
        "required": ["content", "category", "reasoning"],
        "additionalProperties": False,
    },
)
ADD_MEMORY = ToolDeclaration(
    "add_memory",
    "Keep information for later recall in this folder's memory (a note, a detail of a project). Prefer "
    "save_memory for facts about the user.",
    {
        "type": "object",
        "properties": {
            "content": content_parameter("What to keep, in the third person."),
            "metadata": {
                "type": "object",
                "properties": {
                    "title": {"type": "string"},
                    "category": {"type": "string", "description": CATEGORY_NAME},
                    "tags": {"type": "array", "items": {"type": "string"}},
                },
                "additionalProperties": False,
            },
        },
        "required": ["content"],
        "additionalProperties": False,
    },
)
SEARCH_MEMORIES = ToolDeclaration(
    "search_memories",
    "Look up what you saved about the user when it matters to the answer: project details, earlier "
    "decisions, facts not in your instructions. Pass what you are looking for as `query`. When the user asks "
    "what you know about them (or about their family, work...), pass the question as they said it: the answer "
    "lists what is saved, most important first.",
    {
        "type": "object",
        "properties": {
            "query": {"type": "string", "minLength": 1},
            "limit": {"type": "integer", "minimum": 1, "maximum": SEARCH_LIMIT_MAX, "default": 5},
            "category": {"type": "string", "description": CATEGORY_NAME},
            "tags": {"type": "array", "items": {"type": "string"}},
        },
        "required": ["query"],
        "additionalProperties": False,
    },
)
FORGET_MEMORY = ToolDeclaration(
    "forget_memory",
    "Forget a saved fact when the user asks you to ('forget where I work'). Pass what to forget as `query`, "
    "or, after the answer offered choices, the chosen `memory_id`. Say what you forgot.",
    query_or_id("The fact to forget, in plain words.", "memory_id", "A memory id from earlier choices."),
)
MEMORY_TOOLS = (SAVE_MEMORY, ADD_MEMORY, SEARCH_MEMORIES, FORGET_MEMORY)

FORGET_CHOICES = 3
"""Most candidates offered back when several memories could be meant."""


@dataclass(frozen=True, slots=True)
class MemoryCallContext:
    """Where a tool call comes from."""

    chat_id: UUID
    project_id: str | None
    """The chat's folder: project and context memories live in its pool."""
    user_said: Sequence[str]
    """What the user said in this chat so far (their turns only): what a saved memory must come from."""
    explicit_request: bool = False


def without_nulls(args: Mapping[str, Any]) -> dict[str, Any]:
    """The arguments with null values left out, in `metadata` too: spec 000 allows null for every optional
    argument, and null means "not given" (declaring nullable enums to Gemini fails its schema check)."""
    cleaned = {key: value for key, value in args.items() if value is not None}
    if isinstance(cleaned.get("metadata"), Mapping):
        cleaned["metadata"] = {key: value for key, value in cleaned["metadata"].items() if value is not None}
    return cleaned


def failure(message: str) -> dict[str, Any]:
    return {"success": False, "error": message}


def spoken_problem(error: ValidationError) -> str:
    """Why the arguments were refused, in spec 001's sentences ("Content too short (minimum 10
    characters)"): never the schema's own text, which repeats the value given, a long content whole."""
    field = str(error.absolute_path[0]) if error.absolute_path else None
    name = (field or "arguments").replace("_", " ").capitalize()
    # Typed loosely by jsonschema (an unset marker beside the value): read as the validator gives them.
    value: Any = error.validator_value
    given: Any = error.instance
    schema: Any = error.schema
    if error.validator == "minLength" and field is not None:
        return f"{name} too short (minimum {value} characters)"
    if error.validator == "maxLength" and field is not None:
        return f"{name} too long (maximum {value} characters, got {len(given)})"
    if error.validator == "enum":
        return f"{name} must be one of {', '.join(map(str, value))}"
    if error.validator == "required":
        return f"Missing {', '.join(key for key in value if key not in given)}"
    if error.validator == "additionalProperties":
        return f"Unknown argument {', '.join(sorted(set(given) - set(schema.get('properties', {}))))}"
    if error.validator == "type":
        return f"{name} must be of type {value}"
    if error.validator in ("minimum", "maximum"):
        return f"{name} must be at {'least' if error.validator == 'minimum' else 'most'} {value}"
    if error.validator == "format":
        return f"{name} must be a {value}"
    if error.validator == "anyOf" and all("required" in option for option in value):
        return f"Missing {' or '.join(option['required'][0] for option in value)}"
    return f"{name} is not valid ({error.validator})"


class MemoryTools:
    def __init__(self, service: MemoryService) -> None:
        self._service = service
        self._handlers = {
            SAVE_MEMORY.name: self._save,
            ADD_MEMORY.name: self._add,
            SEARCH_MEMORIES.name: self._search,
            FORGET_MEMORY.name: self._forget,
        }

    def handles(self, name: str) -> bool:
        return name in self._handlers

    async def call(self, name: str, args: Mapping[str, Any], context: MemoryCallContext) -> dict[str, Any]:
        spec = next(tool for tool in MEMORY_TOOLS if tool.name == name)
        args = without_nulls(args)
        problem = argument_error(spec, args)
        if problem is not None:
            return failure(spoken_problem(problem))
        try:
            return await self._handlers[name](args, context)
        except InvalidMemory as invalid:
            return failure(str(invalid))
        except ChatsError as error:
            log.warning("memory tool %s failed: %s", name, type(error).__name__)
            return failure("memory cannot be reached right now; say so and carry on")

    async def _save(self, args: Mapping[str, Any], context: MemoryCallContext) -> dict[str, Any]:
        content = str(args["content"])
        if not grounded(content, context.user_said):
            return failure("the user did not say this: save only what the user said about themselves")
        outcome = await self._service.save(
            content,
            str(args["category"]),
            str(args["reasoning"]),
            project_id=context.project_id,
            source_chat_id=context.chat_id,
            explicit_request=context.explicit_request,
        )
        if isinstance(outcome, Duplicate):
            return _duplicate(outcome)
        return {
            "success": True,
            "message": "Memory saved successfully",
            "memoryId": str(outcome.memory.id),
            "content": outcome.memory.content,
            "category": outcome.memory.category,
            **_replaced(outcome),
        }

    async def _add(self, args: Mapping[str, Any], context: MemoryCallContext) -> dict[str, Any]:
        content = str(args["content"])
        if not grounded(content, context.user_said):
            return failure("the user did not say this: keep only what the user said")
        metadata = args.get("metadata") or {}
        outcome = await self._service.add(
            content,
            project_id=context.project_id,
            category=metadata.get("category"),
            title=metadata.get("title"),
            tags=metadata.get("tags") or (),
            source_chat_id=context.chat_id,
        )
        if isinstance(outcome, Duplicate):
            return _duplicate(outcome)
        return {"success": True, "memoryId": str(outcome.memory.id), "message": "Memory added", **_replaced(outcome)}

    async def _search(self, args: Mapping[str, Any], context: MemoryCallContext) -> dict[str, Any]:
        query, scope = str(args["query"]), scope_of(context.project_id)
        broad = broad_question(query)
        if broad is not None:
            return await self._overview(broad, args, context)
        hits = await self._service.search(
            query,
            scope=scope,
            limit=int(args.get("limit") or 5),
            category=args.get("category"),
            tags=args.get("tags") or (),
        )
        if hits:
            return {"success": True, "results": [_result(hit) for hit in hits]}
        # Said so that the model never tells the user nothing is saved when other memories are.
        others = len(await self._service.saved(scope=scope))
        shown = " ".join(query.split())[:80]
        saved = f"{others} other memor{'y is' if others == 1 else 'ies are'} saved" if others else "none is saved yet"
        return {
            "success": True,
            "results": [],
            "message": f"Nothing saved matches '{shown}'; {saved}.",
            "totalSaved": others,
        }

    async def _overview(
        self, broad: BroadQuestion, args: Mapping[str, Any], context: MemoryCallContext
    ) -> dict[str, Any]:
        """The answer to "what do you know about me": what is saved, most important first (the parts of the
        user's life asked about first), rather than a search for the question's words."""
        saved = await self._service.saved(
            scope=scope_of(context.project_id), category=args.get("category"), tags=args.get("tags") or ()
        )
        hits = overview(broad, saved, int(args.get("limit") or 5))
        if not saved:
            message = "Nothing is saved about the user yet."
        else:
            about = f", those about {', '.join(sorted(broad.parts))} first" if broad.parts else ""
            message = f"{len(saved)} saved memories, most important first{about}; {len(hits)} shown."
        return {
            "success": True,
            "results": [_result(hit) for hit in hits],
            "message": message,
            "totalSaved": len(saved),
        }

    async def _forget(self, args: Mapping[str, Any], context: MemoryCallContext) -> dict[str, Any]:
        scope = scope_of(context.project_id)
        if "memory_id" in args:
            try:
                memory = await self._service.store.get(UUID(str(args["memory_id"])), scope=scope)
            except MemoryNotFound:
                return failure("no saved memory has that id; search with a query instead")
            return await self._forgotten(memory, scope)
        choice = await self._service.find_to_forget(str(args["query"]), scope=scope)
        if choice.outcome == "none":
            return {"success": False, "message": "No saved memory is about that."}
        if choice.outcome == "ask":
            return {
                "success": False,
                "message": "Several memories could be meant: ask the user which one, then pass its memory_id.",
                "choices": [{"memoryId": str(m.id), "content": m.content} for m in choice.options[:FORGET_CHOICES]],
            }
        return await self._forgotten(choice.options[0], scope)

    async def _forgotten(self, memory: Memory, scope: FolderFilter) -> dict[str, Any]:
        await self._service.forget(memory.id, scope=scope)
        return {"success": True, "message": "Forgotten", "memoryId": str(memory.id), "content": memory.content}


def _duplicate(duplicate: Duplicate) -> dict[str, Any]:
    return {
        "success": False,
        "duplicate": True,
        "message": "Similar memory already exists",
        "existingContent": duplicate.existing.content,
    }


def _replaced(saved: Saved) -> dict[str, Any]:
    """The older facts the new one replaced, so the model can say so ("I've updated where you live")."""
    if not saved.superseded:
        return {}
    return {"replaced": [memory.content for memory in saved.superseded]}


def _result(hit: MemoryHit) -> dict[str, Any]:
    memory = hit.memory
    category, tags = shown_category(memory)
    added_at = memory.created_at.isoformat()
    metadata = {"title": memory.title, "category": category, "tags": list(tags), "addedAt": added_at}
    return {
        "content": memory.content,
        "score": round(hit.score, 3),
        "metadata": metadata,
        "memoryId": str(memory.id),
        "createdAt": added_at,
    }
