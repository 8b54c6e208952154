"""Working memory: a small JSON object per chat that the model reads and updates as it works.

Spec 002's `getWorkingMemory` / `updateWorkingMemory`, except that an update is a JSON merge patch
(RFC 7386) rather than an overwrite: `{"budget": 18500}` sets one key and keeps the rest, `{"budget":
null}` removes it, and nested objects merge the same way. Arrays and other values replace whole.
So the model never has to repeat what it is not changing, and two updates in a row never lose the
first one. The object is capped (`MAX_BYTES` of compact UTF-8 JSON) so that it stays cheap to hand to
the model on every turn; an update that would pass the cap is refused whole, with a message saying so.

`merge_patch` and `apply_update` are pure; `WorkingMemory` is the thin async shell around the store,
applying each update with compare-and-swap so that concurrent updates are never lost.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any
from uuid import UUID

from chats.errors import InvalidWorkingMemory, VersionConflict, WorkingMemoryTooLarge
from chats.store import ChatStore

MAX_BYTES = 2048
"""Largest working memory, as compact UTF-8 JSON: about 500 tokens, a fair price on every turn."""
MAX_DEPTH = 8
"""Deepest nesting of objects and arrays: working memory is notes, not a data store."""
CAS_ATTEMPTS = 10
"""Every round of racing updates lets one through, so this many writers at once all land; past that
the update is refused with `VersionConflict`, never lost silently. One model in one chat writes alone."""


def merge_patch(target: object, patch: object) -> Any:
    """RFC 7386 section 2: `patch` applied to `target`. Neither argument is changed."""
    if not isinstance(patch, Mapping):
        return patch
    result = dict(target) if isinstance(target, Mapping) else {}
    for key, value in patch.items():
        if value is None:
            result.pop(key, None)
        else:
            result[key] = merge_patch(result.get(key), value)
    return result


def encoded_size(document: Mapping[str, Any]) -> int:
    """Bytes of `document` as compact UTF-8 JSON, the measure the cap applies to."""
    return len(json.dumps(document, ensure_ascii=False, separators=(",", ":")).encode("utf-8"))


def apply_update(current: Mapping[str, Any], patch: object, *, max_bytes: int = MAX_BYTES) -> dict[str, Any]:
    """The working memory after `patch`; raise `InvalidWorkingMemory` when the patch is not a JSON
    object of JSON values, `WorkingMemoryTooLarge` when the result would pass `max_bytes`."""
    if not isinstance(patch, Mapping):
        raise InvalidWorkingMemory(
            "a working-memory update must be a JSON object of the keys to set (null removes a key)"
        )
    check_json(patch)
    updated: dict[str, Any] = merge_patch(current, patch)
    size = encoded_size(updated)
    if size > max_bytes:
        raise WorkingMemoryTooLarge(size, max_bytes)
    return updated


def check_json(value: object, depth: int = 0) -> None:
    """Raise `InvalidWorkingMemory` unless `value` is plain JSON: objects with string keys, arrays,
    strings, finite numbers, booleans and null, nested at most `MAX_DEPTH` deep."""
    if value is None or isinstance(value, bool | str | int):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise InvalidWorkingMemory("working memory holds only finite numbers")
        return
    if depth >= MAX_DEPTH:
        raise InvalidWorkingMemory(f"working memory nests at most {MAX_DEPTH} levels deep")
    if isinstance(value, Mapping):
        for key, item in value.items():
            if not isinstance(key, str):
                raise InvalidWorkingMemory("working-memory keys must be strings")
            check_json(item, depth + 1)
        return
    if isinstance(value, list | tuple):
        for item in value:
            check_json(item, depth + 1)
        return
    raise InvalidWorkingMemory(f"working memory holds only JSON values, not {type(value).__name__}")


class WorkingMemory:
    """Per-chat working memory through a `ChatStore` (which keeps it user-scoped)."""

    def __init__(self, store: ChatStore, *, max_bytes: int = MAX_BYTES) -> None:
        self._store = store
        self._max_bytes = max_bytes

    async def get(self, chat_id: UUID) -> dict[str, Any]:
        """The chat's working memory, `{}` before the first update; raises `ChatNotFound`."""
        return dict((await self._store.get_working_memory(chat_id)).data)

    async def update(self, chat_id: UUID, patch: object) -> dict[str, Any]:
        """Merge `patch` in (RFC 7386) and return the result; see `apply_update` for what is refused."""
        for _ in range(CAS_ATTEMPTS):
            record = await self._store.get_working_memory(chat_id)
            updated = apply_update(record.data, patch, max_bytes=self._max_bytes)
            if updated == record.data:
                return updated
            try:
                await self._store.put_working_memory(chat_id, updated, expected_version=record.version)
            except VersionConflict:
                continue  # another update landed first: merge into that one
            return updated
        raise VersionConflict(chat_id, record.version, (await self._store.get_working_memory(chat_id)).version)

    async def replace(self, chat_id: UUID, document: object) -> dict[str, Any]:
        """Overwrite the whole working memory (spec 002's original update), under the same rules."""
        if not isinstance(document, Mapping):
            raise InvalidWorkingMemory("working memory must be a JSON object")
        # A merge patch of the new document onto nothing is the document without its null members.
        updated = apply_update({}, document, max_bytes=self._max_bytes)
        for _ in range(CAS_ATTEMPTS):
            record = await self._store.get_working_memory(chat_id)
            try:
                await self._store.put_working_memory(chat_id, updated, expected_version=record.version)
            except VersionConflict:
                continue
            return updated
        raise VersionConflict(chat_id, record.version, (await self._store.get_working_memory(chat_id)).version)

    async def clear(self, chat_id: UUID) -> None:
        """Forget everything in the chat's working memory."""
        await self.replace(chat_id, {})
