"""The test part of memory recall and duplicate detection (issue 23, part 7): bench/memory_test_set.json,
written by hand apart from the tuning parts (LoCoMo's observations for recall, bench/memory_paraphrases.json
for duplicates) and never used to choose anything.

- Recall: three users whose memories are saved in three styles (as the assistant saves them, as the user
  said them, full of names and dates), each in its own SQLite store with the store's default ranking and
  MiniLM; every question through `MemoryService.search(limit=5)`, the path the tools take (with MiniLM's
  floor, `chats.memory.ranking.MINILM_MEMORY_MIN_SIMILARITY`). recall@1 is
  the share of questions whose first hit is one of the memories that answer it, recall@5 the share of
  those memories found in the first five.
- Duplicates: the store's rule (`judge_duplicate`) and the plain cosine rule on new pairs of the tuning
  pairs' kinds.
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from chats.embedders.embedding import Embedder, Matrix
from chats.memory.duplicates import CERTAIN_SIMILARITY, judge_duplicate
from chats.memory.service import MemoryService
from chats.memory.store import NewMemory
from chats.models import EmbeddedText
from chats.sqlite.memories import SqliteMemoryStore

DATA = Path(__file__).resolve().parent / "memory_test_set.json"
SAVED_AT = datetime(2026, 5, 4, 9, 0, tzinfo=UTC)


async def recall(embedder: Embedder, folder: Path) -> dict[str, Any]:
    users = json.loads(DATA.read_text(encoding="utf-8"))["users"]
    by_user: dict[str, dict[str, Any]] = {}
    for name, data in users.items():
        store = await SqliteMemoryStore.open(folder / "test_recall.sqlite3", name, clock=lambda: SAVED_AT)
        keys = list(data["memories"])
        vectors = await embedder.embed([data["memories"][key] for key in keys])
        key_of = {}
        for key, vector in zip(keys, vectors, strict=True):
            content = EmbeddedText(data["memories"][key], vector, embedder.model_name)
            memory = await store.add(NewMemory(content=content, category="context", importance=5))
            key_of[memory.id] = key
        service = MemoryService(store, embedder)
        first: list[float] = []
        top5: list[float] = []
        misses = []
        for question in data["questions"]:
            wanted = set(question["memories"])
            found = [key_of[hit.memory.id] for hit in await service.search(question["text"], scope=None, limit=5)]
            first.append(float(bool(found) and found[0] in wanted))
            top5.append(len(wanted & set(found)) / len(wanted))
            if not first[-1]:
                misses.append({"question": question["text"], "wanted": sorted(wanted), "found": found[:3]})
        await store.close()
        by_user[name] = {
            "memories": len(keys),
            "questions": len(first),
            "recall@1": round(statistics.fmean(first), 3),
            "recall@5": round(statistics.fmean(top5), 3),
            "first_wrong": misses,
        }
    questions = sum(u["questions"] for u in by_user.values())
    return {
        "users": len(by_user),
        "questions": questions,
        "recall@1": round(sum(u["recall@1"] * u["questions"] for u in by_user.values()) / questions, 3),
        "recall@5": round(sum(u["recall@5"] * u["questions"] for u in by_user.values()) / questions, 3),
        "by_user": by_user,
    }


def test_pairs() -> list[dict[str, Any]]:
    pairs: list[dict[str, Any]] = json.loads(DATA.read_text(encoding="utf-8"))["pairs"]
    return pairs


def judge_pairs(pairs: Sequence[dict[str, Any]], first: Matrix, second: Matrix) -> dict[str, Any]:
    """Precision, recall and mistakes by kind of the cosine rule and the store's rule on `pairs`."""
    similarity = np.sum(first * second, axis=1)
    rules: dict[str, Callable[[dict[str, Any], float], bool]] = {
        "spec_cosine_above_0.95": lambda pair, cosine: cosine > CERTAIN_SIMILARITY,
        "store_rule": lambda pair, cosine: judge_duplicate(pair["b"], pair["a"], cosine).duplicate,
    }
    results: dict[str, Any] = {"pairs": len(pairs), "duplicates": sum(p["duplicate"] for p in pairs)}
    for name, rule in rules.items():
        verdicts = [rule(pair, float(cosine)) for pair, cosine in zip(pairs, similarity, strict=True)]
        hits = sum(v and p["duplicate"] for v, p in zip(verdicts, pairs, strict=True))
        said = sum(verdicts)
        wrong_by_kind: dict[str, int] = {}
        for verdict, pair in zip(verdicts, pairs, strict=True):
            if verdict != pair["duplicate"]:
                wrong_by_kind[pair["kind"]] = wrong_by_kind.get(pair["kind"], 0) + 1
        results[name] = {
            "precision": round(hits / said, 3) if said else None,
            "recall": round(hits / results["duplicates"], 3),
            "mistakes_by_kind": wrong_by_kind,
        }
    return results


def report(results: dict[str, Any]) -> None:
    if "test_recall" in results:
        r = results["test_recall"]
        print(
            f"Test part recall ({DATA.name}, {r['questions']} questions of {r['users']} users, MemoryService.search):"
            f" recall@1 {r['recall@1']:.3f}  recall@5 {r['recall@5']:.3f}"
        )
        for name, user in r["by_user"].items():
            print(f"  {name:16} recall@1 {user['recall@1']:.3f}  recall@5 {user['recall@5']:.3f}")
            for miss in user["first_wrong"]:
                print(f"    first wrong: {miss['question']!r} wanted {miss['wanted']}, found {miss['found']}")
