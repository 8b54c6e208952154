"""Supabase store figures on the local stack: `python -m bench.supabase [--chats N] [--out FILE]`.

The stack is the tests' one: real PostgreSQL 16 with pgvector (`pgserver`), Parley's migrations, row level
security, and the GoTrue and PostgREST doubles behind one HTTP address; the store is the real `supabase`
client signed in as the user.

1. Scale: one user with N chats (default 10,000) of 40 turns each, compacted to a summary plus 12 turns,
   a 384-d vector for every turn (recall), and N memories (written straight into the tables as the
   database owner: building through the API would take hours and measures nothing asked). Turn texts and
   summaries come from LoCoMo, memories are "User said: " and a LoCoMo turn, and vectors are random
   (search cost does not depend on what they mean; the turn and memory vectors are made by Postgres,
   which is much faster than sending 400,000 of them); queries are LoCoMo questions with random
   vectors. Two timings of each operation:
   - `client`: the store's call through the `supabase` client, HTTP and the PostgREST double included
     (the double is a Python test server: its share is not Supabase's);
   - `database`: the same remote procedure run as the user (role `authenticated`, the user's JWT claims,
     so row level security applies) on one connection, as PostgREST runs it, timed by Postgres itself:
     `EXPLAIN (ANALYZE)`'s execution time. The connection is reused, so PL/pgSQL's cached plans are what
     is measured after the first few calls. On a shared machine wall time includes waiting for a core,
     so the mean CPU time of the server process per call is reported too, with the load average (recall
     scans its 400,000 vectors with two parallel workers, whose CPU time is not in that figure).
2. Sync: a SQLite history of 10,000 turns (100 chats of 100 turns) copied into Supabase by `parley
   sync`'s code, and copied again (nothing to copy: the cost of checking).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import shutil
import tempfile
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np
import psycopg

from app.account.sync import StampClock, Stores, sync
from bench import locomo
from bench.chats import TURNS_PER_CHAT, summarise, timed
from chats.compaction import TAIL_SIZE
from chats.memory.ranking import memory_terms
from chats.memory.store import MemoryQuery
from chats.models import Turn
from chats.search import query_terms
from chats.sqlite.memories import SqliteMemoryStore
from chats.sqlite.store import SqliteChatStore
from chats.store import RecallQuery, SearchQuery
from chats.supabase.connection import SupabaseConnection
from chats.supabase.memories import SupabaseMemoryStore
from chats.supabase.rows import vector_text
from chats.supabase.store import SupabaseChatStore
from tests.fakes.supabase_stack import PostgresCluster, SupabaseStack, TestUser

RESULTS = Path(__file__).resolve().parent / "results"
SAMPLES = 300
SEARCHES = 100
DIMENSIONS = 384
MODEL = "all-MiniLM-L6-v2"
MEMORY_CANDIDATES = 100
"""What the memory store asks `search_memory_candidates` for (chats.supabase.memories.CANDIDATES)."""
SYNC_CHATS, SYNC_TURNS_PER_CHAT = 100, 100


def unit_vector(rng: random.Random) -> np.ndarray:
    vector = np.asarray([rng.gauss(0, 1) for _ in range(DIMENSIONS)], dtype=np.float32)
    return vector / np.linalg.norm(vector)


def turn_json(turn_id: uuid.UUID, role: str, text: str) -> dict[str, Any]:
    return {"id": str(turn_id), "role": role, "parts": [{"text": text}]}


def build(stack: SupabaseStack, user: TestUser, chats: int, corpus: list[locomo.Conversation]) -> list[uuid.UUID]:
    """`chats` compacted chats of `user`, written with COPY as the database owner; their ids."""
    rng = random.Random(7)
    texts = [t.text for c in corpus for s in c.sessions for t in s.turns]
    summaries = [s.summary for c in corpus for s in c.sessions]
    start = datetime(2025, 1, 1, tzinfo=UTC)
    ids = [uuid.uuid4() for _ in range(chats)]
    chat_rows, turn_rows = io.StringIO(), io.StringIO()
    for n, chat_id in enumerate(ids):
        turns = [
            turn_json(uuid.uuid4(), "user" if j % 2 == 0 else "model", rng.choice(texts)) for j in range(TURNS_PER_CHAT)
        ]
        summary = rng.choice(summaries)
        history = [{"role": "model", "parts": [{"text": summary}], "summary": True}, *turns[-TAIL_SIZE:]]
        at = (start + timedelta(minutes=7 * n)).isoformat()
        chat_rows.write(
            "\t".join(
                (
                    str(chat_id),
                    user.id,
                    _copy_text(json.dumps(history)),
                    str(TURNS_PER_CHAT),
                    _copy_text(summary),
                    vector_text(unit_vector(rng)).replace(" ", ""),
                    MODEL,
                    at,
                    at,
                )
            )
            + "\n"
        )
        for seq, turn in enumerate(turns):
            turn_rows.write(
                "\t".join(
                    (
                        str(chat_id),
                        user.id,
                        str(seq),
                        turn["id"],
                        _copy_text(json.dumps(turn)),
                        _copy_text(turn["parts"][0]["text"]),
                    )
                )
                + "\n"
            )
    with psycopg.connect(stack.admin_conninfo, autocommit=True) as db:
        with db.cursor().copy(
            "COPY chats (id, user_id, assistant_history, turn_count, summary_text, summary_embedding, summary_model,"
            " last_activity_at, created_at) FROM STDIN"
        ) as copy:
            copy.write(chat_rows.getvalue())
        with db.cursor().copy("COPY chat_turns (chat_id, user_id, seq, turn_id, body, text) FROM STDIN") as copy:
            copy.write(turn_rows.getvalue())
        db.execute(RANDOM_TURN_VECTORS, (MODEL, DIMENSIONS))
        db.execute(MEMORIES_FROM_TURNS, (DIMENSIONS, MODEL, chats))
        for table in ("chats", "chat_turns", "chat_turn_vectors", "memories"):
            db.execute(f"VACUUM ANALYZE {table}")
    return ids


RANDOM_TURN_VECTORS = """
INSERT INTO chat_turn_vectors (chat_id, seq, model, user_id, text, embedding)
SELECT t.chat_id, t.seq, %s, t.user_id, t.text,
       (SELECT array_agg(random() - 0.5) FROM generate_series(1, %s + 0 * t.seq))::extensions.vector
FROM chat_turns AS t
"""
"""A random vector for every turn (the `0 * t.seq` makes Postgres draw one per turn, not one for all)."""

MEMORIES_FROM_TURNS = """
INSERT INTO memories (id, user_id, content, category, importance, embedding, embedding_model, source_chat_id)
SELECT gen_random_uuid(), t.user_id, 'User said: ' || left(t.text, 480),
       (ARRAY['identity', 'preference', 'relationship', 'project', 'context'])[1 + abs(hashtext(t.text)) %% 5],
       1 + abs(hashtext(t.text)) %% 10,
       (SELECT array_agg(random() - 0.5) FROM generate_series(1, %s + 0 * t.seq))::extensions.vector, %s, t.chat_id
FROM (SELECT * FROM chat_turns WHERE seq = 3 ORDER BY chat_id LIMIT %s) AS t
"""
"""One memory per chat, from its fourth turn."""


def _copy_text(text: str) -> str:
    """`text` as a field of COPY's text format."""
    return text.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "\\r")


class AsTheUser:
    """One connection that runs procedures as PostgREST would for `user`, timed by Postgres."""

    def __init__(self, stack: SupabaseStack, cluster: PostgresCluster, user: TestUser) -> None:
        self._db = psycopg.connect(
            cluster.conninfo("parley", user="authenticator"),
            autocommit=True,
            options="-c search_path=public,extensions",
        )
        self._claims = json.dumps({"sub": user.id, "role": "authenticated", "aud": "authenticated"})

    def execution_ms(self, call: str, parameters: Sequence[object]) -> float:
        """Postgres's execution time of `SELECT * FROM <call>` (rolled back: an append leaves no trace)."""
        with self._db.transaction(force_rollback=True):
            self._db.execute("SET LOCAL ROLE authenticated")
            self._db.execute("SELECT set_config('request.jwt.claims', %s, true)", (self._claims,))
            row = self._db.execute(
                f"EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM {call}".encode(), parameters
            ).fetchone()
        assert row is not None
        return float(row[0][0]["Execution Time"])

    def timings(self, call: str, each: Sequence[Sequence[object]]) -> tuple[list[float], float]:
        """Each call's execution time (ms), and the mean CPU time a call took in the server process (ms):
        the machine is shared, and CPU time does not count the waits for a core that wall time does."""
        before = self._cpu_s()
        spent = [self.execution_ms(call, parameters) for parameters in each]
        return spent, (self._cpu_s() - before) * 1000 / len(each)

    def _cpu_s(self) -> float:
        """User and system CPU seconds of this connection's server process so far (Linux /proc)."""
        fields = Path(f"/proc/{self._db.info.backend_pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def close(self) -> None:
        self._db.close()


async def scale(
    stack: SupabaseStack, cluster: PostgresCluster, chats: int, corpus: list[locomo.Conversation]
) -> dict[str, Any]:
    rng = random.Random(11)
    texts = [t.text for c in corpus for s in c.sessions for t in s.turns]
    questions = [q.text for c in corpus for q in c.questions]
    user = stack.new_user("bench")
    started = time.perf_counter()
    ids = await asyncio.to_thread(build, stack, user, chats, corpus)
    build_s = time.perf_counter() - started
    connection = await SupabaseConnection.sign_in(stack.url, stack.anon_key, user.email, user.password)
    store, memories = await SupabaseChatStore.open(connection), await SupabaseMemoryStore.open(connection)
    picks = [rng.choice(ids) for _ in range(SAMPLES)]
    asked = [rng.choice(questions) for _ in range(SEARCHES)]
    queries = [SearchQuery(unit_vector(rng), MODEL, text) for text in asked]
    await store.count()  # the session and the connection pool are warm before timing
    client = {
        "append": await timed(
            [partial(store.append, c, [Turn(role="user", text=rng.choice(texts), id=uuid.uuid4())]) for c in picks]
        ),
        "load_assistant_history": await timed([partial(store.load_assistant_context, c) for c in picks]),
        "search_chats_semantic": await timed([partial(store.search, query) for query in queries]),
        "recall_candidates": await timed([partial(store.recall_candidates, recall(q)) for q in queries]),
        "search_memories": await timed(
            [partial(memories.search, MemoryQuery(q.vector, q.model, q.text, None)) for q in queries]
        ),
    }
    await connection.close()
    database = await asyncio.to_thread(_database_timings, stack, cluster, user, picks, queries)
    return {
        "chats": chats,
        "turns": chats * TURNS_PER_CHAT,
        "turn_vectors": chats * TURNS_PER_CHAT,
        "memories": chats,
        "build_s": round(build_s, 1),
        "load_average": round(os.getloadavg()[0], 2),
        "client": {name: summarise(ms) for name, ms in client.items()},
        "database": {name: summarise(ms) | {"cpu_mean_ms": round(cpu, 2)} for name, (ms, cpu) in database.items()},
    }


def recall(query: SearchQuery) -> RecallQuery:
    """The recall the assistant's tool would make of the same question (default limits)."""
    return RecallQuery(query.vector, query.model, query.text)


def _database_timings(
    stack: SupabaseStack,
    cluster: PostgresCluster,
    user: TestUser,
    picks: Sequence[uuid.UUID],
    queries: Sequence[SearchQuery],
) -> dict[str, tuple[list[float], float]]:
    as_user = AsTheUser(stack, cluster, user)
    try:
        turn = json.dumps([turn_json(uuid.uuid4(), "user", "one more thing about the trip")])
        return {
            "append": as_user.timings("append_chat_turns(%s, %s::jsonb)", [(c, turn) for c in picks]),
            "load_assistant_history": as_user.timings("load_chat_context(%s)", [(c,) for c in picks]),
            "search_chats_semantic": as_user.timings(
                "search_chats_semantic(%s::vector, 10, %s, %s::text[])",
                [(vector_text(q.vector), q.model, query_terms(q.text)) for q in queries],
            ),
            "recall_candidates": as_user.timings(
                "recall_candidates(%s::vector, %s, %s::text[], %s, %s)",
                [
                    (vector_text(r.vector), r.model, query_terms(r.text), r.limit, r.context)
                    for r in map(recall, queries)
                ],
            ),
            "search_memories": as_user.timings(
                f"search_memory_candidates(%s::vector, %s, %s::text[], {MEMORY_CANDIDATES})",
                [(vector_text(q.vector), q.model, memory_terms(q.text)) for q in queries],
            ),
        }
    finally:
        as_user.close()


async def sync_throughput(stack: SupabaseStack, folder: Path, corpus: list[locomo.Conversation]) -> dict[str, Any]:
    rng = random.Random(13)
    texts = [t.text for c in corpus for s in c.sessions for t in s.turns]
    path = folder / "sync.sqlite3"
    local = Stores(await SqliteChatStore.open(path, "local"), await SqliteMemoryStore.open(path, "local"))
    for _ in range(SYNC_CHATS):
        turns = [
            Turn(role="user" if j % 2 == 0 else "model", text=rng.choice(texts), id=uuid.uuid4())
            for j in range(SYNC_TURNS_PER_CHAT)
        ]
        await local.chats.create(turns=turns)
    user = stack.new_user("sync")
    clock = StampClock()
    connection = await SupabaseConnection.sign_in(stack.url, stack.anon_key, user.email, user.password)
    cloud = Stores(
        await SupabaseChatStore.open(connection, clock=clock), await SupabaseMemoryStore.open(connection, clock=clock)
    )
    first = await sync(local, cloud, clock)
    again = await sync(local, cloud, clock)
    await connection.close()
    await local.chats.close()
    await local.memories.close()
    return {
        "chats": SYNC_CHATS,
        "turns": first.turns_copied,
        "seconds": round(first.seconds, 2),
        "turns_per_s": round(first.turns_copied / first.seconds),
        "again_turns_copied": again.turns_copied,
        "again_seconds": round(again.seconds, 2),
    }


async def measure(chats: int) -> dict[str, Any]:
    corpus = locomo.load()
    folder = Path(tempfile.mkdtemp(prefix="parley-bench-"))
    cluster = PostgresCluster(folder / "data")
    try:
        stack = SupabaseStack(cluster, "parley")
        try:
            return {
                "how": (
                    "client: the store's call through the supabase client and the local PostgREST double; "
                    "database: EXPLAIN (ANALYZE) execution time of the same procedure run as the user under "
                    "row level security on one reused connection"
                ),
                "scale": await scale(stack, cluster, chats, corpus),
                "sync": await sync_throughput(stack, folder, corpus),
            }
        finally:
            stack.close()
    finally:
        cluster.stop()
        shutil.rmtree(folder, ignore_errors=True)


def report(results: dict[str, Any]) -> None:
    s, y = results["scale"], results["sync"]
    print(
        f"Supabase store, one user with {s['chats']:,} chats x {TURNS_PER_CHAT} turns (built in {s['build_s']} s;"
        f" load average {s['load_average']} on {os.cpu_count()} cores)"
    )
    print(f"  ({s['turn_vectors']:,} turn vectors for recall, {s['memories']:,} memories)")
    for name in ("append", "load_assistant_history", "search_chats_semantic", "recall_candidates", "search_memories"):
        c, d = s["client"][name], s["database"][name]
        print(
            f"  {name:24} client p95 {c['p95_ms']:7.2f} ms   database p50 {d['p50_ms']:7.2f} ms"
            f"  p95 {d['p95_ms']:7.2f} ms  CPU {d['cpu_mean_ms']:6.2f} ms a call"
        )
    print(
        f"Sync of {y['turns']:,} turns in {y['chats']} chats: {y['seconds']} s ({y['turns_per_s']:,} turns/s); "
        f"again: {y['again_turns_copied']} turns copied in {y['again_seconds']} s"
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--chats", type=int, default=10_000)
    parser.add_argument("--out", type=Path, default=RESULTS / "supabase.json")
    arguments = parser.parse_args()
    figures = asyncio.run(measure(arguments.chats))
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    report(figures)
