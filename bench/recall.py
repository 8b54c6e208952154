"""Recall over past messages: `python -m bench.recall [--chats N] [--keep DIR] [--out FILE]`.

1. Quality: LoCoMo's 10 conversations as 10 users, each with a store of their own (as on a desktop:
   BM25's word statistics are the user's own; ten users in one file scored 0.60 instead of 0.63, as a
   speaker's name, common in their own chats, is rare in the shared index), one chat per session,
   turns in order, each turn's text the speaker's name and words as the data has them ("Caroline: I
   went to a LGBTQ support group yesterday..."). Turn vectors come from the real background path
   (`TurnIndexer.backfill`); `--keep DIR` keeps the stores (and the question vectors) for a rerun.
   Every non-adversarial question with evidence is asked from a new chat; recall@5 is the share of
   its `evidence` turns found, averaged over questions:
   - strict: among the 5 best-ranked turns;
   - with neighbours: among every turn shown by 5 hits with 2 neighbours each (windows never overlap);
   per ranking variant, plus the shipped `Recaller` itself (its relevance floor included) at 5 and at
   spec 003's 3 hits. The shipped weights are also scored on each half of the conversations.
2. Latency of `Recaller.recall` given the query's vector (everything but embedding the query): p50/p95 at the LoCoMo
   scale, and for one user with N chats (default 10,000) x 40 turns: texts drawn from LoCoMo, vectors
   random (the cost does not depend on what they mean); the first recall, which reads every vector
   into memory, is reported apart, with the memory it took (the growth of the process's resident
   set; the vectors are int8, `chats.sqlite.int8_rows`: as float32 they took 614 MB at 10,000 chats),
   and the time to list the chats that still need vectors (what the voice loop asks when it starts).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID

import numpy as np

from bench import locomo
from chats.embedders.embedding import Matrix
from chats.embedders.minilm import MiniLMEmbedder
from chats.maintenance import TurnIndexer
from chats.models import EmbeddedText, Turn
from chats.recall import (
    CANDIDATES_PER_SIGNAL,
    NEIGHBOUR_WEIGHTS,
    VECTOR_WEIGHT,
    RankedTurn,
    Recaller,
    RecallHit,
    plan_hits,
    rank_turns,
)
from chats.search import query_terms
from chats.sqlite.store import SqliteChatStore
from chats.store import RecallQuery, TurnCandidate, TurnVector

RESULTS = Path(__file__).resolve().parent / "results"
K = 5
NEIGHBOURS = 2
TURNS_PER_CHAT = 40
LATENCY_SAMPLES = 200
RRF_K = 60
"""The usual reciprocal-rank-fusion constant."""

TurnKey = tuple[UUID, int]
Ranker = Callable[[Sequence[TurnCandidate]], list[TurnKey]]


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def summarise(ms: Sequence[float]) -> dict[str, float]:
    return {
        "p50_ms": round(statistics.median(ms), 2),
        "p95_ms": round(float(np.percentile(ms, 95)), 2),
        "max_ms": round(max(ms), 2),
    }


def by_similarity(candidates: Sequence[TurnCandidate]) -> list[TurnKey]:
    ordered = sorted(candidates, key=lambda c: (-(c.similarity if c.similarity is not None else -1.0), c.index))
    return [(c.chat_id, c.index) for c in ordered]


def by_lexical(candidates: Sequence[TurnCandidate]) -> list[TurnKey]:
    return [(c.chat_id, c.index) for c in sorted(candidates, key=lambda c: (-c.lexical, c.index)) if c.lexical > 0]


def by_reciprocal_rank(candidates: Sequence[TurnCandidate]) -> list[TurnKey]:
    score: dict[TurnKey, float] = {}
    for ranking in (by_similarity(candidates), by_lexical(candidates)):
        for rank, key in enumerate(ranking):
            score[key] = score.get(key, 0.0) + 1 / (RRF_K + rank)
    return sorted(score, key=lambda key: -score[key])


def fused(vector_weight: float, neighbour_weights: Sequence[float]) -> Ranker:
    def ranker(candidates: Sequence[TurnCandidate]) -> list[TurnKey]:
        ranked = rank_turns(candidates, vector_weight=vector_weight, neighbour_weights=neighbour_weights)
        return [(r.chat_id, r.index) for r in ranked]

    return ranker


VARIANTS: dict[str, Ranker] = {
    "vector": by_similarity,
    "bm25": by_lexical,
    "reciprocal_rank_fusion": by_reciprocal_rank,
    "score_fusion": fused(VECTOR_WEIGHT, ()),
    "score_fusion+neighbours (shipped)": fused(VECTOR_WEIGHT, NEIGHBOUR_WEIGHTS),
}
REWRITTEN = "score_fusion+neighbours, query words only embedded"
"""The query with its question and function words stripped (`query_terms`) before embedding."""


@dataclass
class Recall:
    strict: list[float] = field(default_factory=list)
    with_neighbours: list[float] = field(default_factory=list)

    def rates(self, questions: slice | None = None) -> dict[str, float]:
        part = questions or slice(None)
        return {
            "strict": round(float(np.mean(self.strict[part])), 3),
            "with_neighbours": round(float(np.mean(self.with_neighbours[part])), 3),
        }


def windows(ranking: Sequence[TurnKey]) -> set[TurnKey]:
    """Every turn shown by the best `K` hits of `ranking` with their neighbours (the shipped planner)."""
    ranked = [RankedTurn(chat, index, -float(i), None, 0.0) for i, (chat, index) in enumerate(ranking)]
    shown: set[TurnKey] = set()
    for hit in plan_hits(ranked, limit=K, neighbours=NEIGHBOURS):
        shown.update((hit.span.chat_id, i) for i in range(hit.span.first, hit.span.last + 1))
    return shown


def evidence_turns(question: locomo.Question, chat_of: dict[int, UUID]) -> set[TurnKey]:
    """The question's evidence as (chat, position): "D3:11" is turn 11 of session 3 ("D30:05" occurs)."""
    found = set()
    for name in question.evidence:
        match = re.fullmatch(r"D(\d+):(\d+)", name)
        if match and int(match.group(1)) in chat_of:
            found.add((chat_of[int(match.group(1))], int(match.group(2)) - 1))
    return found


def share(found: set[TurnKey], wanted: set[TurnKey]) -> float:
    return len(found & wanted) / len(wanted)


def shown_by(hits: Sequence[RecallHit]) -> set[TurnKey]:
    return {(hit.chat_id, turn.index) for hit in hits for turn in (*hit.before, hit.turn, *hit.after)}


async def question_vectors(embedder: MiniLMEmbedder, texts: list[str], path: Path) -> Matrix:
    """The texts' vectors, kept at `path` for the next run."""
    kept = kept_vectors(path, len(texts))
    if kept is not None:
        return kept
    vectors = await embedder.embed(texts)
    np.save(path, vectors)
    return vectors


def kept_vectors(path: Path, rows: int) -> Matrix | None:
    if not path.exists():
        return None
    kept: Matrix = np.load(path)
    return kept if kept.shape[0] == rows else None


async def quality(folder: Path, embedder: MiniLMEmbedder, corpus: list[locomo.Conversation]) -> dict[str, Any]:
    results = {name: Recall() for name in [*VARIANTS, REWRITTEN]}
    api = {f"recaller_{limit}_hits": Recall() for limit in (K, 3)}
    latency: list[float] = []
    half: int | None = None
    embedded_turns, embedding_s = 0, 0.0
    for number, conversation in enumerate(corpus):
        if number == len(corpus) // 2:
            half = len(results["vector"].strict)
        name = conversation.sample_id
        store = await SqliteChatStore.open(folder / f"{name}.sqlite3", name, clock=Clock(conversation.sessions[0].at))
        kept = {info.title: info.id for info in await store.list_chats(limit=1000)}
        chat_of: dict[int, UUID] = {}
        for session in conversation.sessions:
            title = f"Session {session.number}"
            turns = [
                Turn(role=t.role, text=f"{speaker}: {t.text}", at=session.at)
                for t, speaker in zip(session.turns, session.speakers, strict=True)
            ]
            chat_of[session.number] = kept.get(title) or (await store.create(title=title, turns=turns)).id
        started = time.perf_counter()
        if embedded := await TurnIndexer(store, embedder).backfill():
            embedded_turns += embedded
            embedding_s += time.perf_counter() - started
        texts = [q.text for q in conversation.questions]
        vectors = await question_vectors(embedder, texts, folder / f"{name}.questions.npy")
        rewritten = await question_vectors(
            embedder, [" ".join(query_terms(text)) or text for text in texts], folder / f"{name}.rewritten.npy"
        )
        recaller = Recaller(store, embedder)
        for question, vector, plain in zip(conversation.questions, vectors, rewritten, strict=True):
            wanted = evidence_turns(question, chat_of)
            if not wanted:
                continue
            query = RecallQuery(
                vector, embedder.model_name, question.text, CANDIDATES_PER_SIGNAL, len(NEIGHBOUR_WEIGHTS)
            )
            candidates = await store.recall_candidates(query)
            for name, ranker in VARIANTS.items():
                ranking = ranker(candidates)
                results[name].strict.append(share(set(ranking[:K]), wanted))
                results[name].with_neighbours.append(share(windows(ranking), wanted))
            plain_candidates = await store.recall_candidates(
                RecallQuery(plain, embedder.model_name, question.text, CANDIDATES_PER_SIGNAL, len(NEIGHBOUR_WEIGHTS))
            )
            ranking = fused(VECTOR_WEIGHT, NEIGHBOUR_WEIGHTS)(plain_candidates)
            results[REWRITTEN].strict.append(share(set(ranking[:K]), wanted))
            results[REWRITTEN].with_neighbours.append(share(windows(ranking), wanted))
            for limit in (K, 3):
                started = time.perf_counter()
                hits = await recaller.recall(
                    question.text, vector=vector, current_chat=None, seen_turns=0, limit=limit, neighbours=NEIGHBOURS
                )
                if limit == K:
                    latency.append((time.perf_counter() - started) * 1000)
                api[f"recaller_{limit}_hits"].strict.append(share({(h.chat_id, h.turn.index) for h in hits}, wanted))
                api[f"recaller_{limit}_hits"].with_neighbours.append(share(shown_by(hits), wanted))
        await store.close()
    shipped = results["score_fusion+neighbours (shipped)"]
    return {
        "users": len(corpus),
        "chats": sum(len(c.sessions) for c in corpus),
        "turns": sum(len(s.turns) for c in corpus for s in c.sessions),
        "questions": len(shipped.strict),
        "recall_at_5": {name: recall.rates() for name, recall in results.items()},
        "recaller": {name: recall.rates() for name, recall in api.items()},
        "shipped_by_half": {
            "conversations_1_to_5": shipped.rates(slice(None, half)),
            "conversations_6_to_10": shipped.rates(slice(half, None)),
        },
        "turn_embedding": {
            "turns": embedded_turns,
            "ms_per_turn": round(embedding_s * 1000 / embedded_turns, 2) if embedded_turns else None,
        },
        "recall_latency_without_embedding": summarise(latency),
    }


async def scale(chats: int, path: Path, embedder: MiniLMEmbedder, corpus: list[locomo.Conversation]) -> dict[str, Any]:
    rng = random.Random(11)
    np_rng = np.random.default_rng(11)
    texts = [
        f"{speaker}: {t.text}"
        for c in corpus
        for s in c.sessions
        for t, speaker in zip(s.turns, s.speakers, strict=True)
    ]
    questions = [q.text for c in corpus for q in c.questions]
    clock = Clock(datetime(2025, 1, 1, tzinfo=UTC))
    store = await SqliteChatStore.open(path, "bench", clock=clock)
    started = time.perf_counter()
    for _ in range(chats):
        clock.now += timedelta(minutes=7)
        turns = [Turn(role="user" if j % 2 == 0 else "model", text=rng.choice(texts)) for j in range(TURNS_PER_CHAT)]
        chat = await store.create(turns=turns)
        matrix = np_rng.standard_normal((TURNS_PER_CHAT, embedder.dimensions)).astype(np.float32)
        matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
        await store.set_turn_vectors(
            [
                TurnVector(chat.id, i, EmbeddedText(turn.text, matrix[i], embedder.model_name))
                for i, turn in enumerate(turns)
            ]
        )
    build_s = time.perf_counter() - started
    asked = [rng.choice(questions) for _ in range(LATENCY_SAMPLES)]
    vectors = await embedder.embed(asked)
    recaller = Recaller(store, embedder)
    recent = (await store.list_chats(limit=1))[0].id
    backfill_ms = []
    for _ in range(5):
        started = time.perf_counter()
        await store.chats_without_turn_vectors(embedder.model_name)
        backfill_ms.append((time.perf_counter() - started) * 1000)
    resident_before = resident_mb()
    first_recall_mb = 0.0
    spent = []
    for text, vector in zip(asked, vectors, strict=True):
        started = time.perf_counter()
        await recaller.recall(text, vector=vector, current_chat=recent, seen_turns=12)
        spent.append((time.perf_counter() - started) * 1000)
        if len(spent) == 1:
            first_recall_mb = resident_mb() - resident_before
    await store.close()
    return {
        "chats": chats,
        "turns": chats * TURNS_PER_CHAT,
        "build_s": round(build_s, 1),
        "first_recall_ms": round(spent[0], 1),
        "first_recall_resident_growth_mb": round(first_recall_mb, 1),
        "turn_vectors_as_float32_mb": round(chats * TURNS_PER_CHAT * embedder.dimensions * 4 / 1e6, 1),
        "recall_without_embedding": summarise(spent[1:]),
        "chats_without_turn_vectors_ms": summarise(backfill_ms),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def resident_mb() -> float:
    """The process's resident set now, in MB (Linux)."""
    pages = int(Path("/proc/self/statm").read_text().split()[1])
    return pages * os.sysconf("SC_PAGE_SIZE") / 1e6


async def measure(chats: int, conversations: int, keep: Path | None) -> dict[str, Any]:
    embedder = MiniLMEmbedder()
    corpus = locomo.load()[:conversations]
    with tempfile.TemporaryDirectory() as folder:
        return {
            "quality": await quality(keep or Path(folder), embedder, corpus),
            "scale": await scale(chats, Path(folder) / "scale.sqlite3", embedder, corpus) if chats else {},
        }


def report(results: dict[str, Any]) -> None:
    q, s = results["quality"], results["scale"]
    print(
        f"LoCoMo recall: {q['questions']} questions over {q['turns']} turns in {q['chats']} chats of {q['users']} users"
    )
    print(f"  {'turns recall@5':52} {'strict':>7} {'+neighbours':>12}")
    for name, rates in (*q["recall_at_5"].items(), *q["recaller"].items()):
        print(f"  {name:52} {rates['strict']:7.3f} {rates['with_neighbours']:12.3f}")
    for name, rates in q["shipped_by_half"].items():
        print(f"  shipped, {name:43} {rates['strict']:7.3f} {rates['with_neighbours']:12.3f}")
    lat, emb = q["recall_latency_without_embedding"], q["turn_embedding"]
    print(f"  recall p50 {lat['p50_ms']:.2f} ms, p95 {lat['p95_ms']:.2f} ms")
    if emb["turns"]:
        print(f"  {emb['turns']} turns embedded in the background at {emb['ms_per_turn']} ms each")
    if not s:
        return
    print(f"One user, {s['chats']:,} chats x {TURNS_PER_CHAT} turns (built in {s['build_s']} s):")
    r, b = s["recall_without_embedding"], s["chats_without_turn_vectors_ms"]
    print(
        f"  first recall {s['first_recall_ms']} ms, resident set +{s['first_recall_resident_growth_mb']} MB"
        f" (the vectors as float32: {s['turn_vectors_as_float32_mb']} MB)"
    )
    print(f"  recall p50 {r['p50_ms']:.2f} ms, p95 {r['p95_ms']:.2f} ms (load average {s['load_average_1min']})")
    print(f"  chats needing vectors listed in p50 {b['p50_ms']:.2f} ms, max {b['max_ms']:.2f} ms")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chats", type=int, default=10_000, help="chats of the scale test (0: skip it)")
    parser.add_argument("--conversations", type=int, default=10, help="LoCoMo conversations to use (1-10)")
    parser.add_argument("--keep", type=Path, help="keep the LoCoMo stores here and reuse them when rerun")
    parser.add_argument("--out", type=Path, default=RESULTS / "recall.json")
    arguments = parser.parse_args()
    if arguments.keep is not None:
        arguments.keep.mkdir(parents=True, exist_ok=True)
    figures = asyncio.run(measure(arguments.chats, arguments.conversations, arguments.keep))
    arguments.out.parent.mkdir(parents=True, exist_ok=True)
    arguments.out.write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    report(figures)
