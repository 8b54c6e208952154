"""The Supabase memory store: the shared memory contract on real Postgres through the real `supabase`
client, signed in as test users of the local stack (each test has users of its own); row level security
on the memories table for plain SQL; the same ranking as the SQLite store."""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime
from pathlib import Path
from uuid import uuid4

import numpy as np
import psycopg
import pytest
from postgrest.exceptions import APIError

from chats.embedders.minilm import MiniLMEmbedder
from chats.errors import StoreUnavailable
from chats.memory.ranking import Ranking
from chats.memory.store import MemoryQuery, MemoryStore, NewMemory
from chats.models import NO_FOLDER, EmbeddedText
from chats.sqlite.memories import SqliteMemoryStore
from chats.supabase.memories import SupabaseMemoryStore
from chats.supabase.migrations import SCHEMA_VERSION, migration_script, migrations
from tests.chats.memory_contract import *  # noqa: F403 - the contract's tests run here
from tests.chats.memory_contract import add, embedded, fact, with_clock
from tests.chats.store_contract import Clock, unit
from tests.chats.test_supabase_isolation import rpc_with_token, run_as
from tests.fakes.supabase_stack import PostgresCluster, SignedInStores, SupabaseStack

SupabaseMemoryFactory = SignedInStores[MemoryStore]


@pytest.fixture
def make_memory_store(supabase_stack: SupabaseStack) -> SupabaseMemoryFactory:
    return SignedInStores(supabase_stack, SupabaseMemoryStore.sign_in)


async def test_vectors_round_trip_bit_for_bit(make_memory_store: SupabaseMemoryFactory, minilm: MiniLMEmbedder) -> None:
    store = await make_memory_store("alice")
    value = await embedded(minilm, "User keeps bees on the roof")
    kept = await add(store, value)
    assert (await store.get(kept.id)).embedding.vector.tobytes() == value.vector.tobytes()
    await store.close()


# Facts and questions of the kind the memory bench asks, with a date and a chat that ties facts together.
PARITY_FACTS = (
    ("User's daughter Mia was born in 2019", "identity", None, "2024-05-02"),
    ("User prefers TypeScript over JavaScript", "preference", None, "2024-05-03"),
    ("User is renovating the kitchen with blue tiles", "project", "home", "2024-05-07"),
    ("User chose a matte finish for the kitchen tiles", "project", "home", "2024-05-07"),
    ("User goes bouldering every Thursday", "context", None, "2024-06-01"),
    ("User is allergic to peanuts", "identity", None, "2024-06-02"),
    ("User's sister Ana lives in Porto", "relationship", None, "2024-07-07"),
    ("User visited Porto in July 2024 for Ana's birthday", "context", None, "2024-07-08"),
    ("User bought a road bike in July", "context", None, "2024-07-09"),
    ("User's kitchen budget is 12000 euros", "project", "home", "2024-07-10"),
    ("User likes green tea in the morning", "preference", None, "2024-08-01"),
    ("User drinks black coffee at work", "preference", None, "2024-08-02"),
)
PARITY_QUESTIONS = (
    ("what colour are the kitchen tiles", "home"),
    ("what did the user do on 8 July 2024?", None),
    ("who lives in Porto", NO_FOLDER),
    ("what does the user drink", None),
    ("kitchen", "home"),
    ("sports and exercise", None),
    ("what happened in July 2024", None),
)


async def test_search_ranks_as_the_sqlite_store_does(
    make_memory_store: SupabaseMemoryFactory, minilm: MiniLMEmbedder, tmp_path: Path
) -> None:
    """The same memories, the same questions: the same hits in the same order, with the same similarities,
    whichever store holds them (the ranking is `chats.memory.ranking` in both)."""
    clocks = (Clock(), Clock())
    supabase = await with_clock(make_memory_store, clocks[0])
    sqlite = await SqliteMemoryStore.open(tmp_path / "chats.sqlite3", "alice", clock=clocks[1])
    kitchen_chat = uuid4()
    texts = [text for text, _, _, _ in PARITY_FACTS] + [question for question, _ in PARITY_QUESTIONS]
    vectors = iter(await minilm.embed(texts))  # one batch: the slow part of this test
    for text, category, folder, day in PARITY_FACTS:
        value = EmbeddedText(text, next(vectors), minilm.model_name)
        for clock, store in zip(clocks, (supabase, sqlite), strict=True):
            clock.now = datetime.fromisoformat(f"{day}T10:00:00+00:00")
            await store.add(
                NewMemory(
                    content=value,
                    category=category,  # type: ignore[arg-type]
                    importance=5,
                    project_id=folder,
                    source_chat_id=kitchen_chat if "kitchen" in text else None,
                )
            )
    for question, scope in PARITY_QUESTIONS:
        query = MemoryQuery(next(vectors), minilm.model_name, question, scope, limit=5)
        ours, theirs = await supabase.search(query), await sqlite.search(query)
        assert [h.memory.content for h in ours] == [h.memory.content for h in theirs], question
        np.testing.assert_allclose([h.similarity for h in ours], [h.similarity for h in theirs], atol=1e-5)
    await supabase.close()
    await sqlite.close()


def at(similarity: float, axis: int) -> tuple[float, ...]:
    """Values for `fact` of a vector whose cosine to `unit(1)` is `similarity`, the rest on `axis` (1..7),
    so that facts on different axes are unlike each other."""
    values = [0.0] * 8
    values[0], values[axis] = similarity, math.sqrt(1 - similarity**2)
    return tuple(values)


async def test_each_candidate_list_brings_what_would_rank_first(make_memory_store: SupabaseMemoryFactory) -> None:
    """With lists of 2, five closer memories crowd the answer out of the most-similar list: the word list,
    the date list and the same-chat list must each bring it in, as the full ranking would rank it."""
    clock = Clock()
    user = make_memory_store.user("alice")
    stack = make_memory_store.stack
    store = await SupabaseMemoryStore.sign_in(
        stack.url, stack.anon_key, user.email, user.password, clock=clock, ranking=Ranking(diversity=0.0), candidates=2
    )
    clock.now = datetime(2023, 1, 10, tzinfo=UTC)
    for axis in range(1, 6):
        await add(store, fact(f"User noted plain fact {'abcde'[axis - 1]}", *at(0.55, axis)))
    pottery = await add(store, fact("User took a pottery class", *at(0.5, 6)))
    clock.now = datetime(2024, 3, 6, tzinfo=UTC)
    concert = await add(store, fact("User went to a concert", *at(0.45, 7)))
    clock.now = datetime(2023, 1, 11, tzinfo=UTC)
    chat = uuid4()
    opener, detail = [
        await store.add(NewMemory(content=fact(text, *values), category="context", importance=5, source_chat_id=chat))
        for text, values in (
            ("User's kitchen is being redone", at(0.9, 1)),
            ("User picked oak for the counters", at(0.46, 2)),
        )
    ]

    async def best(text: str, limit: int) -> list[str]:
        hits = await store.search(MemoryQuery(unit(1), "m", text, None, limit=limit))
        return [hit.memory.content for hit in hits]

    assert await best("pottery", 2) == [opener.content, pottery.content]  # by its word
    assert await best("what did I do on 5 March 2024", 2) == [opener.content, concert.content]  # by its date
    assert await best("anything", 2) == [opener.content, detail.content]  # by its chat
    await store.close()


async def test_memory_rows_stay_apart_under_plain_sql(
    make_memory_store: SupabaseMemoryFactory, supabase_stack: SupabaseStack
) -> None:
    """Past the procedures: Bob's own SQL on the memories table sees, changes and forges nothing of
    Alice's, cannot supersede her memories nor point at them; anon reaches nothing at all."""
    alice, bob = await make_memory_store("alice"), await make_memory_store("bob")
    secret = await add(alice, fact("User's PIN hint is the cat's birthday", 1), "identity")
    own = await add(bob, fact("User likes long walks by the sea", 1), "preference")
    alice_id, bob_claims = alice.user_id, {"sub": bob.user_id, "role": "authenticated"}

    def as_bob(statement: str) -> list[tuple[object, ...]]:
        return run_as(supabase_stack, "authenticated", bob_claims, statement)

    assert as_bob("SELECT count(*) FROM memories") == [(1,)]  # his own only
    assert as_bob(f"SELECT count(*) FROM memories WHERE id = '{secret.id}'") == [(0,)]
    assert as_bob(f"UPDATE memories SET content = 'User is Bob now, really' WHERE id = '{secret.id}'") == [(0,)]
    assert as_bob(f"DELETE FROM memories WHERE user_id = '{alice_id}'") == [(0,)]
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        as_bob(
            "INSERT INTO memories (id, user_id, content, category, importance, embedding, embedding_model)"
            f" VALUES ('{uuid4()}', '{alice_id}', 'User was planted here', 'identity', 5, '[1,0]', 'm')"
        )
    with pytest.raises(psycopg.errors.InsufficientPrivilege, match="row-level security"):
        as_bob(f"UPDATE memories SET user_id = '{alice_id}' WHERE id = '{own.id}'")
    # Superseding is by the user's own newer memories only: his row cannot point at hers.
    with pytest.raises(psycopg.errors.ForeignKeyViolation):
        as_bob(f"UPDATE memories SET superseded_by = '{secret.id}' WHERE id = '{own.id}'")
    # Signed in with no claims at all (auth.uid() is null): nothing.
    assert run_as(supabase_stack, "authenticated", None, "SELECT count(*) FROM memories") == [(0,)]
    for statement in (
        "SELECT count(*) FROM memories",
        "SELECT public.count_memories()",
        "SELECT nextval('memories_seq')",
    ):
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            run_as(supabase_stack, "anon", {"role": "anon"}, statement)
    for function in ("count_memories", "export_memories", "preload_memories"):
        with pytest.raises(APIError) as refused:
            await rpc_with_token(supabase_stack, None, function)
        assert refused.value.code == "42501"
    stored = supabase_stack.query("SELECT id, content, superseded_by FROM memories WHERE user_id = %s", alice_id)
    assert stored == [(secret.id, secret.content, None)]
    await alice.close()
    await bob.close()


async def test_the_table_itself_forgets_the_versions_a_deleted_memory_superseded(
    make_memory_store: SupabaseMemoryFactory, supabase_stack: SupabaseStack
) -> None:
    store = await make_memory_store("alice")
    first = await add(store, fact("User works at Google", 1), "identity")
    second = await add(store, fact("User works at Meta", 1), "identity", supersedes=[first.id])
    # The table itself holds the chain: deleting the newest version by plain SQL, past the procedure,
    # takes the older ones too.
    assert run_as(
        supabase_stack,
        "authenticated",
        {"sub": store.user_id, "role": "authenticated"},
        f"DELETE FROM memories WHERE id = '{second.id}'",
    ) == [(1,)]
    assert await store.count(include_superseded=True) == 0
    await store.close()


async def test_a_project_without_the_memories_migration_is_refused_clearly(postgres_cluster: PostgresCluster) -> None:
    older = SupabaseStack(postgres_cluster, f"older_{uuid.uuid4().hex[:10]}", migrated=False)
    with psycopg.connect(older.admin_conninfo, autocommit=True) as db:  # 0001-0004 only
        db.execute(migration_script(m.version for m in migrations() if m.version >= 5).encode())
    user = older.new_user("alice")
    with pytest.raises(StoreUnavailable, match=f"schema 4, not {SCHEMA_VERSION}: apply the newer migration"):
        await SupabaseMemoryStore.sign_in(older.url, older.anon_key, user.email, user.password)
    older.close()


async def test_a_closed_store_says_so(make_memory_store: SupabaseMemoryFactory) -> None:
    store = await make_memory_store("alice")
    await store.close()
    await store.close()  # closing twice is harmless
    with pytest.raises(StoreUnavailable, match="closed"):
        await store.list_memories()
