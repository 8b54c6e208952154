"""Working memory: the merge patch and its rules, pure; then through the real SQLite store."""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from uuid import uuid4

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chats.errors import ChatNotFound, InvalidWorkingMemory, WorkingMemoryTooLarge
from chats.sqlite.store import SqliteChatStore
from chats.working_memory import MAX_BYTES, MAX_DEPTH, WorkingMemory, apply_update, encoded_size, merge_patch

# RFC 7386, appendix A: (target, patch, result).
RFC_EXAMPLES = [
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"a": "foo"}, "bar", "bar"),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
]


@pytest.mark.parametrize(("target", "patch", "result"), RFC_EXAMPLES)
def test_merge_patch_follows_rfc_7386(target: Any, patch: Any, result: Any) -> None:
    before = json.dumps(target)
    assert merge_patch(target, patch) == result
    assert json.dumps(target) == before  # the target is not changed in place


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
    max_leaves=10,
)
json_objects = st.dictionaries(st.text(max_size=3), json_values, max_size=4)


@given(json_objects, json_objects)
def test_a_patch_applied_twice_changes_nothing_more(target: dict[str, Any], patch: dict[str, Any]) -> None:
    once = merge_patch(target, patch)
    assert merge_patch(once, patch) == once


@given(json_objects, json_objects)
def test_keys_the_patch_does_not_name_are_kept(target: dict[str, Any], patch: dict[str, Any]) -> None:
    merged = merge_patch(target, patch)
    for key, value in target.items():
        if key not in patch:
            assert merged[key] == value
        elif patch[key] is None:
            assert key not in merged


def test_an_update_must_be_an_object_of_json_values() -> None:
    for patch in (["a"], "text", None, 3):
        with pytest.raises(InvalidWorkingMemory, match="JSON object"):
            apply_update({}, patch)
    refused_patches: list[tuple[object, str]] = [
        ({"x": math.nan}, "finite"),
        ({"x": {1: "a"}}, "keys must be strings"),
        ({"x": {1, 2}}, "not set"),
        ({"x": b"bytes"}, "not bytes"),
    ]
    for bad, message in refused_patches:
        with pytest.raises(InvalidWorkingMemory, match=message) as refused:
            apply_update({"kept": 1}, bad)
        assert isinstance(refused.value, ValueError)
    deep: dict[str, Any] = {"leaf": 1}
    for _ in range(MAX_DEPTH):
        deep = {"d": deep}
    with pytest.raises(InvalidWorkingMemory, match="levels deep"):
        apply_update({}, deep)


def test_the_size_cap_counts_compact_utf8_bytes() -> None:
    assert encoded_size({"a": "é"}) == len('{"a":"é"}'.encode())
    fits = {"k": "x" * (MAX_BYTES - len('{"k":""}'))}
    assert encoded_size(apply_update({}, fits)) == MAX_BYTES
    with pytest.raises(WorkingMemoryTooLarge) as refused:
        apply_update(fits, {"more": 1})
    assert refused.value.size == MAX_BYTES + len(',"more":1')
    assert refused.value.limit == MAX_BYTES
    assert f"limit of {MAX_BYTES}" in str(refused.value) and "null" in str(refused.value)
    # Removing keys is always possible, even from a memory that is over a lowered cap.
    assert apply_update(fits, {"k": None}, max_bytes=10) == {}


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SqliteChatStore]:
    opened = await SqliteChatStore.open(tmp_path / "chats.sqlite3", "alice")
    yield opened
    await opened.close()


async def test_updates_merge_and_null_removes(store: SqliteChatStore) -> None:
    memory = WorkingMemory(store)
    chat = await store.create()
    assert await memory.get(chat.id) == {}
    await memory.update(chat.id, {"goal": "tile the kitchen", "budget": {"total": 18500, "spent": 0}})
    merged = await memory.update(chat.id, {"budget": {"spent": 4200}, "tiles": ["terracotta"]})
    expected = {"goal": "tile the kitchen", "budget": {"total": 18500, "spent": 4200}, "tiles": ["terracotta"]}
    assert merged == expected
    assert await memory.get(chat.id) == expected
    assert await memory.update(chat.id, {"goal": None, "budget": {"total": None}}) == {
        "budget": {"spent": 4200},
        "tiles": ["terracotta"],
    }
    await memory.clear(chat.id)
    assert await memory.get(chat.id) == {}


async def test_an_update_past_the_cap_stores_nothing(store: SqliteChatStore) -> None:
    memory = WorkingMemory(store, max_bytes=64)
    chat = await store.create()
    await memory.update(chat.id, {"note": "short"})
    with pytest.raises(WorkingMemoryTooLarge):
        await memory.update(chat.id, {"essay": "words " * 20})
    with pytest.raises(WorkingMemoryTooLarge):
        await memory.replace(chat.id, {"essay": "words " * 20})
    assert await memory.get(chat.id) == {"note": "short"}
    assert (await store.get_working_memory(chat.id)).version == 1


async def test_concurrent_updates_are_all_kept(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    first, second = await SqliteChatStore.open(path, "alice"), await SqliteChatStore.open(path, "alice")
    chat = await first.create()
    await asyncio.gather(
        *(WorkingMemory(first).update(chat.id, {f"a{i}": i}) for i in range(4)),
        *(WorkingMemory(second).update(chat.id, {f"b{i}": i}) for i in range(4)),
    )
    stored = await WorkingMemory(first).get(chat.id)
    assert stored == {**{f"a{i}": i for i in range(4)}, **{f"b{i}": i for i in range(4)}}
    await first.close()
    await second.close()


async def test_replace_overwrites_as_spec_002_does(store: SqliteChatStore) -> None:
    memory = WorkingMemory(store)
    chat = await store.create()
    await memory.update(chat.id, {"a": 1, "b": 2})
    assert await memory.replace(chat.id, {"c": 3, "gone": None}) == {"c": 3}
    assert await memory.get(chat.id) == {"c": 3}


async def test_another_users_chat_has_no_working_memory(tmp_path: Path) -> None:
    path = tmp_path / "chats.sqlite3"
    alice, bob = await SqliteChatStore.open(path, "alice"), await SqliteChatStore.open(path, "bob")
    chat = await alice.create()
    await WorkingMemory(alice).update(chat.id, {"secret": "plan"})
    for call in (
        WorkingMemory(bob).get(chat.id),
        WorkingMemory(bob).update(chat.id, {"secret": None}),
        WorkingMemory(bob).clear(chat.id),
        WorkingMemory(alice).get(uuid4()),
    ):
        with pytest.raises(ChatNotFound):
            await call
    assert await WorkingMemory(alice).get(chat.id) == {"secret": "plan"}
    await alice.close()
    await bob.close()
