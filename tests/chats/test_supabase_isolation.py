"""Two signed-in users of one Supabase project: no row of one ever reaches the other, whatever they call;
anon reaches nothing; a forged or expired token is refused. Row level security is what is tested: every
call runs in Postgres as `authenticated` with the caller's verified JWT claims."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Coroutine
from dataclasses import dataclass, replace
from typing import Any
from uuid import UUID, uuid4

import httpx
import numpy as np
import psycopg
import pytest
from postgrest.exceptions import APIError
from supabase import AsyncClientOptions, acreate_client

from chats.errors import ChatNotFound, FolderNotFound
from chats.memory.store import MemoryQuery, NewMemory
from chats.models import NO_FOLDER, Chat, EmbeddedText, Folder, Turn
from chats.store import HiddenTurns, RecallQuery, SearchQuery, TurnVector
from chats.supabase.memories import SupabaseMemoryStore
from chats.supabase.store import SupabaseChatStore
from tests.fakes.supabase_stack import SupabaseStack, TestUser


def unit(*values: float) -> np.ndarray[Any, np.dtype[np.float32]]:
    vector = np.zeros(8, dtype=np.float32)
    vector[: len(values)] = values
    return vector / np.linalg.norm(vector)


@dataclass
class Pair:
    alice: SupabaseChatStore
    bob: SupabaseChatStore
    alice_user: TestUser
    bob_user: TestUser
    chat: Chat
    """Alice's, in her folder, with turns, a summary and a topic."""
    folder: Folder


async def sign_in(stack: SupabaseStack, user: TestUser) -> SupabaseChatStore:
    return await SupabaseChatStore.sign_in(stack.url, stack.anon_key, user.email, user.password)


@pytest.fixture
async def pair(supabase_stack: SupabaseStack) -> AsyncIterator[Pair]:
    alice_user, bob_user = supabase_stack.new_user("alice"), supabase_stack.new_user("bob")
    alice, bob = await sign_in(supabase_stack, alice_user), await sign_in(supabase_stack, bob_user)
    folder = await alice.create_folder("Secret plans")
    chat = await alice.create(
        title="Alice's surprise party",
        turns=[Turn(role="user", text="plan the surprise party", id=uuid4()), Turn(role="model", text="sure")],
        project_id=folder.id,
    )
    await alice.set_embedding(chat.id, "topic", EmbeddedText("surprise party", unit(1), "m"))
    await alice.replace_assistant_history(
        chat.id,
        expected_version=chat.version,
        assistant_history=[Turn(role="model", text="They plan a party.", summary=True)],
        summary=EmbeddedText("They plan a party.", unit(1, 1), "m"),
    )
    yield Pair(alice, bob, alice_user, bob_user, await alice.get(chat.id), folder)
    await alice.close()
    await bob.close()


def stored_rows(stack: SupabaseStack, user_id: str) -> tuple[Any, ...]:
    """Everything stored for a user, read past row level security."""
    return (
        stack.query(
            "SELECT id, project_id, title, title_by_user, assistant_history, turn_count, summary_text, summary_model,"
            " topic_text, topic_model, last_activity_at, version FROM chats WHERE user_id = %s ORDER BY id",
            user_id,
        ),
        stack.query("SELECT chat_id, seq, body FROM chat_turns WHERE user_id = %s ORDER BY chat_id, seq", user_id),
        stack.query("SELECT id, name, created_at FROM chat_folders WHERE user_id = %s ORDER BY id", user_id),
    )


async def test_another_users_chats_and_folders_are_out_of_reach_for_every_operation(
    supabase_stack: SupabaseStack, pair: Pair
) -> None:
    bob, chat, folder = pair.bob, pair.chat, pair.folder
    before = stored_rows(supabase_stack, pair.alice_user.id)
    assert await bob.list_chats() == []
    assert await bob.list_chats(project_id=NO_FOLDER) == []
    assert await bob.count() == 0
    assert await bob.list_folders() == []
    assert await bob.embedded_texts() == []
    assert await bob.search(SearchQuery(vector=unit(1), model="m", text="surprise party plans")) == []
    summary = EmbeddedText("x", unit(1), "m")
    for call in (
        bob.get(chat.id),
        bob.load_assistant_context(chat.id),
        bob.append(chat.id, [Turn(role="user", text="sneaking in")]),
        bob.replace_assistant_history(chat.id, expected_version=chat.version, assistant_history=[], summary=summary),
        bob.set_embedding(chat.id, "summary", summary),
        bob.set_embedding(chat.id, "topic", summary),
        bob.rename(chat.id, "mine"),
        bob.rename(chat.id, "mine", automatic=True),
        bob.move(chat.id, None),
        bob.delete(chat.id),
    ):
        with pytest.raises(ChatNotFound):
            await call
    folder_calls: tuple[Coroutine[Any, Any, object], ...] = (
        bob.list_chats(project_id=folder.id),
        bob.create(project_id=folder.id),
        bob.rename_folder(folder.id, "Mine now"),
        bob.delete_folder(folder.id),
    )
    for folder_call in folder_calls:
        with pytest.raises(FolderNotFound):
            await folder_call
    own = await bob.create(title="Bob's")
    with pytest.raises(FolderNotFound):
        await bob.move(own.id, folder.id)
    assert stored_rows(supabase_stack, pair.alice_user.id) == before
    assert await pair.alice.get(chat.id) == chat
    # Every one of Bob's calls reached Postgres as `authenticated` with Bob's id: RLS did the refusing.
    bobs = [call for call in supabase_stack.postgrest.calls if call.subject == pair.bob_user.id]
    assert len(bobs) > 20
    assert {call.role for call in bobs} == {"authenticated"}


async def test_the_same_folder_name_and_turn_ids_are_free_for_another_user(pair: Pair) -> None:
    bobs_folder = await pair.bob.create_folder("secret PLANS")
    turn = pair.chat.full_history[0]
    chat = await pair.bob.create(turns=[turn], project_id=bobs_folder.id)
    assert (await pair.bob.get(chat.id)).full_history == (turn,)
    assert [(f.id, f.chats) for f in await pair.alice.list_folders()] == [(pair.folder.id, 1)]


def run_as(stack: SupabaseStack, role: str, claims: dict[str, Any] | None, statement: str) -> list[tuple[Any, ...]]:
    """One transaction as PostgREST runs a request: the role, then the JWT claims, then the statement."""
    with psycopg.connect(stack.admin_conninfo) as db, db.transaction():
        db.execute(psycopg.sql.SQL("SET LOCAL ROLE {}").format(psycopg.sql.Identifier(role)))
        db.execute("SELECT set_config('request.jwt.claims', %s, true)", (json.dumps(claims) if claims else "",))
        cursor = db.execute(statement.encode())
        return cursor.fetchall() if cursor.description else [(cursor.rowcount,)]


async def test_row_level_security_holds_for_plain_sql_too(supabase_stack: SupabaseStack, pair: Pair) -> None:
    """Past the functions: Bob's own SQL on the tables sees, changes and forges nothing of Alice's."""
    bob = {"sub": pair.bob_user.id, "role": "authenticated"}
    chat_id, alice_id = pair.chat.id, pair.alice_user.id
    for table in ("chats", "chat_turns", "chat_folders"):
        assert run_as(supabase_stack, "authenticated", bob, f"SELECT count(*) FROM {table}") == [(0,)]
    assert run_as(supabase_stack, "authenticated", bob, f"UPDATE chats SET title = 'x' WHERE id = '{chat_id}'") == [
        (0,)
    ]
    assert run_as(supabase_stack, "authenticated", bob, f"DELETE FROM chat_turns WHERE chat_id = '{chat_id}'") == [(0,)]
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        run_as(
            supabase_stack,
            "authenticated",
            bob,
            f"INSERT INTO chats (user_id, assistant_history) VALUES ('{alice_id}', '[]')",
        )
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        run_as(
            supabase_stack,
            "authenticated",
            bob,
            f"INSERT INTO chat_turns (chat_id, user_id, seq, body, text)"
            f" VALUES ('{chat_id}', '{alice_id}', 9, '{{\"role\": \"user\", \"parts\": []}}', 'x')",
        )
    # Signed in but with no claims at all (auth.uid() is null): nothing.
    assert run_as(supabase_stack, "authenticated", None, "SELECT count(*) FROM chats") == [(0,)]
    for statement in ("SELECT count(*) FROM chats", "SELECT count(*) FROM chat_turns", "SELECT public.count_chats()"):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            run_as(supabase_stack, "anon", {"role": "anon"}, statement)
    assert len(stored_rows(supabase_stack, alice_id)[1]) == 2


async def rpc_with_token(stack: SupabaseStack, token: str | None, function: str) -> Any:
    """A call by the real client holding `token` (None: the anon key alone, nobody signed in)."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient() as http:
        client = await acreate_client(stack.url, stack.anon_key, AsyncClientOptions(headers=headers, httpx_client=http))
        return (await client.rpc(function, {}).execute()).data


async def test_anon_reaches_nothing(supabase_stack: SupabaseStack, pair: Pair) -> None:
    for function in ("count_chats", "list_chat_folders", "chat_embedded_texts", "parley_schema_version"):
        with pytest.raises(APIError) as refused:
            await rpc_with_token(supabase_stack, None, function)
        assert refused.value.code == "42501"  # permission denied: anon may execute none of them


async def test_a_forged_or_expired_token_is_refused(supabase_stack: SupabaseStack, pair: Pair) -> None:
    forged = supabase_stack.auth.forge_access_token(
        pair.alice_user.id, secret="not the project's secret, though just as long"
    )
    expired = supabase_stack.auth.forge_access_token(pair.alice_user.id, expires_in=-60)
    valid = supabase_stack.auth.forge_access_token(pair.alice_user.id)
    for token, code in ((forged, "PGRST301"), (expired, "PGRST303"), ("not-a-jwt", "PGRST301")):
        with pytest.raises(APIError) as refused:
            await rpc_with_token(supabase_stack, token, "count_chats")
        assert refused.value.code == code
    assert await rpc_with_token(supabase_stack, valid, "count_chats") == 1


OWNER_RUN_CALLS = (
    "search_chats_semantic('[1,0,0,0,0,0,0,0]', 10, 'm', '{reykjavik}')",
    "recall_candidates('[1,0,0,0,0,0,0,0]', 'm', '{reykjavik}', 10, 2)",
    "search_memory_candidates('[1,0,0,0,0,0,0,0]', 'm', '{reykjavik}', 10)",
)
"""The searches that run as their owner, past row level security, keeping to `auth.uid()`'s rows."""


async def test_the_searches_run_as_their_owner_keep_to_the_callers_rows(supabase_stack: SupabaseStack) -> None:
    """Two users with the same words and vectors in their chats, turns and memories: chat search, recall
    and memory search each find the caller's rows only; naming the other's folder or chat finds nothing of
    it; with no user id in the claims, they find nothing at all."""
    users = [supabase_stack.new_user("alice"), supabase_stack.new_user("bob")]
    own: dict[str, tuple[set[UUID], set[tuple[UUID, int]], set[UUID]]] = {}
    folders: dict[str, Folder] = {}
    for user in users:
        chats = await sign_in(supabase_stack, user)
        memories = await SupabaseMemoryStore.sign_in(
            supabase_stack.url, supabase_stack.anon_key, user.email, user.password
        )
        folders[user.id] = await chats.create_folder("Trips")
        chat = await chats.create(
            turns=[Turn(role="user", text="the weather in Reykjavik"), Turn(role="model", text="cold")],
            project_id=folders[user.id].id,
        )
        await chats.set_embedding(chat.id, "topic", EmbeddedText("Reykjavik", unit(1), "m"))
        await chats.set_turn_vectors([TurnVector(chat.id, i, EmbeddedText("x", unit(1), "m")) for i in range(2)])
        memory = await memories.add(
            NewMemory(
                content=EmbeddedText("User went to Reykjavik in March", unit(1), "m"), category="context", importance=5
            )
        )
        own[user.id] = ({chat.id}, {(chat.id, 0), (chat.id, 1)}, {memory.id})
        await chats.close()
        await memories.close()
    for user, other in (users, users[::-1]):
        chats = await sign_in(supabase_stack, user)
        memories = await SupabaseMemoryStore.sign_in(
            supabase_stack.url, supabase_stack.anon_key, user.email, user.password
        )
        found_chats = {hit.chat_id for hit in await chats.search(SearchQuery(unit(1), "m", "Reykjavik weather"))}
        recall = RecallQuery(vector=unit(1), model="m", text="Reykjavik weather", context=1)
        recalled = {(c.chat_id, c.index) for c in await chats.recall_candidates(recall)}
        memory_hits = await memories.search(MemoryQuery(unit(1), "m", "Reykjavik", None))
        assert (found_chats, recalled, {hit.memory.id for hit in memory_hits}) == own[user.id]
        other_chat = next(iter(own[other.id][0]))
        hidden = HiddenTurns(other_chat, 2)  # naming the other's chat hides nothing of one's own
        assert {(c.chat_id, c.index) for c in await chats.recall_candidates(replace(recall, hidden=hidden))} == own[
            user.id
        ][1]
        with pytest.raises(FolderNotFound):
            await chats.recall_candidates(RecallQuery(unit(1), "m", "Reykjavik", project_id=folders[other.id].id))
        await chats.close()
        await memories.close()
    for call in OWNER_RUN_CALLS:
        assert run_as(supabase_stack, "authenticated", None, f"SELECT count(*) FROM {call}") == [(0,)]
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            run_as(supabase_stack, "anon", {"role": "anon"}, f"SELECT count(*) FROM {call}")
