"""`bench.memory`'s `facts` section: recall@5 of LoCoMo's evidence turns by the facts that memory search finds,
for each ranking variant tried, with the ceiling a perfect ranking of the store's candidates could reach."""

from __future__ import annotations

import re
import statistics
import time
import uuid
from collections.abc import Sequence
from datetime import datetime
from pathlib import Path
from typing import Any

from bench.memory_common import TOP, Bench, p95
from chats.embedders.embedding import Matrix
from chats.embedders.minilm import MODEL_NAME as MINILM_MODEL_NAME
from chats.memory.ranking import FUSED, VECTOR_ONLY, Ranking, memory_ranking_for
from chats.memory.store import MemoryQuery, NewMemory
from chats.models import EmbeddedText
from chats.sqlite.memories import SqliteMemoryStore

PARLEY = memory_ranking_for(MINILM_MODEL_NAME)
"""What memory search weighs MiniLM's vectors by: the store's default ranking with MiniLM's floor, which the
service gives each query (`chats.memory.service.MemoryService.search`); "store default" below."""
VARIANTS: dict[str, Ranking] = {
    "vector_only": VECTOR_ONLY,
    "bm25_heavy": Ranking(lexical_weight=5.0, chat_weight=0.0, date_weight=0.0, diversity=0.0),
    "fused": FUSED,
    "fused+same_chat": Ranking(date_weight=0.0, diversity=0.0),
    "fused+same_chat+dates": Ranking(diversity=0.0),
    "fused+same_chat+dates+diversity (store default)": PARLEY,
}


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


def evidence_recall(evidence: frozenset[str], found: Sequence[frozenset[str]]) -> float:
    """Share of the evidence turns that the found facts were drawn from."""
    covered = frozenset().union(*found) if found else frozenset()
    return len(evidence & covered) / len(evidence)


_QUESTION_WORDS = re.compile(
    r"^\s*(?:what|when|where|who|whom|whose|which|why|how)(?:\s+(?:many|much|long|often|old|far))?"
    r"(?:\s+(?:times|kinds? of|types? of|sorts? of))?"
    r"\s+(?:is|are|was|were|did|does|do|has|have|had|can|could|would|will|might|should)?\b\s*",
    re.IGNORECASE,
)


def rewrite(question: str) -> str:
    """The tried query rewrite: the question without its question words ("When did X go" -> "X go")."""
    rewritten = _QUESTION_WORDS.sub("", question).rstrip("?").strip()
    return rewritten if len(rewritten) > 3 else question


async def load_facts(bench: Bench, path: Path) -> dict[str, frozenset[str]]:
    """Every conversation's facts as its user's memories; the sources of each memory by id."""
    sources: dict[str, frozenset[str]] = {}
    vectors = iter(bench.fact_vectors())
    for conversation in bench.corpus:
        dates = {s.number: s.at for s in conversation.sessions}
        clock = Clock(conversation.sessions[0].at)
        store = await SqliteMemoryStore.open(path, conversation.sample_id, clock=clock)
        for observation in conversation.observations:
            clock.now = dates.get(observation.session, clock.now)
            memory = await store.add(
                NewMemory(
                    content=EmbeddedText(observation.text.strip(), next(vectors), bench.embedder.model_name),
                    category="context",
                    importance=5,
                    source_chat_id=uuid.uuid5(uuid.NAMESPACE_URL, f"{conversation.sample_id}/{observation.session}"),
                )
            )
            sources[str(memory.id)] = observation.sources
        await store.close()
    return sources


async def recall_at_5(
    bench: Bench,
    path: Path,
    sources: dict[str, frozenset[str]],
    ranking: Ranking,
    vectors: Matrix,
    *,
    top: int = TOP,
) -> dict[str, Any]:
    scores: list[float] = []
    first_half = 0
    answerable: list[float] = []
    spent: list[float] = []
    vector_rows = iter(vectors)
    for number, conversation in enumerate(bench.corpus):
        if number == len(bench.corpus) // 2:
            first_half = len(scores)
        store = await SqliteMemoryStore.open(path, conversation.sample_id, ranking=ranking)
        reachable = frozenset().union(*(o.sources for o in conversation.observations))
        for question in conversation.questions:
            query = MemoryQuery(next(vector_rows), bench.embedder.model_name, question.text, scope=None, limit=top)
            started = time.perf_counter()
            hits = await store.search(query)
            spent.append((time.perf_counter() - started) * 1000)
            score = evidence_recall(question.evidence, [sources[str(hit.memory.id)] for hit in hits])
            scores.append(score)
            if question.evidence & reachable:
                answerable.append(score)
        await store.close()
    return {
        f"recall@{top}": round(statistics.fmean(scores), 4),
        f"recall@{top}_answerable": round(statistics.fmean(answerable), 4),
        f"recall@{top}_conversations_1_to_5": round(statistics.fmean(scores[:first_half]), 4),
        f"recall@{top}_conversations_6_to_10": round(statistics.fmean(scores[first_half:]), 4),
        "search_p95_ms": round(p95(spent), 3),
    }


def ceiling(bench: Bench) -> float:
    """The best recall@5 any 5 facts could reach (greedy cover of each question's evidence)."""
    scores = []
    for conversation in bench.corpus:
        for question in conversation.questions:
            covered: set[str] = set()
            for _ in range(TOP):
                best = max(conversation.observations, key=lambda o: len((o.sources & question.evidence) - covered))
                covered |= best.sources & question.evidence
            scores.append(len(covered) / len(question.evidence))
    return round(statistics.fmean(scores), 4)


async def facts(bench: Bench) -> dict[str, Any]:
    path = bench.folder / "facts.sqlite3"
    sources = await load_facts(bench, path)
    questions = bench.question_vectors()
    variants = {name: await recall_at_5(bench, path, sources, ranking, questions) for name, ranking in VARIANTS.items()}
    rewritten = bench.embed("rewritten", [rewrite(q.text) for q in bench.questions()])
    variants["store default + question words stripped"] = await recall_at_5(bench, path, sources, PARLEY, rewritten)
    return {
        "users": len(bench.corpus),
        "memories": len(sources),
        "questions": len(bench.questions()),
        "ceiling_recall@5": ceiling(bench),
        "variants": variants,
        "store_default_at_10": await recall_at_5(bench, path, sources, PARLEY, questions, top=10),
    }
