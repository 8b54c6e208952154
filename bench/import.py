"""Import and store health figures: `python -m bench.import [--turns N] [--health-chats N] [--out FILE]`.

1. Import: `parley chats import` run as a user runs it, in a child process on a fresh data folder, with
   the local embedder and the offline text model (no key, no network), for
   - one chat of N turns (default 100,000), the issue's case;
   - an export in `parley chats export`'s shape of N/100 chats of 100 turns, each compacted as a store
     leaves it (a summary turn and the last 12 turns, the summary's text and vector).
   - an export of 5,000 chats of 4 turns with nothing the model saw (no title, topic or summary: they
     follow in the background, `app.chat_import.MAINTAINED_INLINE`), the issue's second case.
   Wall time and the child's peak resident set (`os.wait4`'s rusage). Goal: <= 60 s and <= 500 MB.
   Turn texts are kitchen-renovation sentences drawn with a fixed seed.
2. Health check: the cost of `PRAGMA quick_check` (what `chats.sqlite.health` runs when the file changed
   behind Parley's back) on a store of M chats (default 10,000) of 40 turns with their recall vectors,
   warm (the file in the page cache) and cold (after dropping the page cache, when run as root), and of
   an open that finds the file unchanged (two `stat` calls).

The load average before each part is recorded: on a shared machine it moves the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import sqlite3
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np

from chats.models import EmbeddedText, Turn
from chats.sqlite.health import ensure_healthy, quick_check, record_healthy
from chats.sqlite.store import SqliteChatStore
from chats.store import TurnVector

RESULTS = Path(__file__).resolve().parent / "results"
GOAL_SECONDS = 60.0
SMALL_CHATS = 5000
CASES = ["one chat", "export", "small chats"]
GOAL_MB = 500.0
WORDS = (
    "kitchen renovation oak walnut cabinets budget euros Marco suggests tiles counter sink window light"
    " delivery Tuesday plumber quote drawers handles paint white green floor boards island stools"
).split()


def sentence(rng: random.Random, number: int) -> str:
    return f"Step {number}: " + " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 24))) + "."


def turns_json(rng: random.Random, count: int, first: int = 0) -> list[dict[str, Any]]:
    return [
        {"role": "user" if i % 2 == 0 else "model", "parts": [{"text": sentence(rng, first + i)}]} for i in range(count)
    ]


def write_files(folder: Path, turns: int) -> dict[str, Path]:
    rng = random.Random(15)
    one_chat = folder / "one_chat.json"
    one_chat.write_text(json.dumps(turns_json(rng, turns)), encoding="utf-8")
    vector = [round(rng.uniform(-0.1, 0.1), 7) for _ in range(384)]
    chats = []
    for n in range(turns // 100):
        history = turns_json(rng, 100, n * 100)
        summary = f"The renovation plan, part {n}: " + sentence(rng, n)
        chats.append(
            {
                "id": f"00000000-0000-4000-8000-{n:012d}",
                "title": f"Renovation {n}",
                "project_id": None,
                "full_history": history,
                "assistant_history": [{"role": "model", "parts": [{"text": summary}], "summary": True}, *history[-12:]],
                "summary_text": summary,
                "summary_embedding": vector,
                "summary_embedding_model": "all-MiniLM-L6-v2",
            }
        )
    export = folder / "export.json"
    export.write_text(json.dumps({"format": "parley.chats/1", "chats": chats}), encoding="utf-8")
    return {"one chat": one_chat, "export": export, "small chats": small_chats(folder, SMALL_CHATS)}


def small_chats(folder: Path, count: int) -> Path:
    """The issue's other case: an export of `count` chats of 4 turns each, with ids and times but nothing
    the model saw (no summary, topic or title): 5,000 make a file of about 4 MB."""
    rng = random.Random(24)
    start = datetime(2025, 1, 1, tzinfo=UTC)
    chats = []
    for n in range(count):
        at = (start + timedelta(hours=n)).isoformat()
        history = [{**turn, "at": at} for turn in turns_json(rng, 4)]
        chats.append(
            {
                "id": f"00000000-0000-4000-9000-{n:012d}",
                "created_at": at,
                "last_activity_at": at,
                "full_history": history,
            }
        )
    path = folder / "small_chats.json"
    path.write_text(json.dumps({"format": "parley.chats/2", "chats": chats}), encoding="utf-8")
    return path


def run_import(folder: Path, name: str, source: Path) -> dict[str, Any]:
    """One `parley chats import` in a child process: its wall time and its own peak resident set."""
    data = folder / f"data-{name.replace(' ', '-')}"
    config = folder / "config.toml"
    config.write_text("", encoding="utf-8")
    env = {"PARLEY_CONFIG": str(config), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(folder)}
    command = [sys.executable, "-m", "app.cli.main", "--data-dir", str(data), "chats", "import", str(source), "--json"]
    load = os.getloadavg()[0]
    out_path, err_path = folder / "out.json", folder / "err.txt"
    started = time.perf_counter()
    with out_path.open("wb") as out, err_path.open("wb") as err:
        child = subprocess.Popen(command, env=env, stdout=out, stderr=err)
        # wait4, not wait: it gives this child's own rusage, whose ru_maxrss is its peak resident set.
        _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"the import of {source} failed: {err_path.read_text(errors='replace').strip()}")
    out_text = out_path.read_text(encoding="utf-8")
    peak_mb = usage.ru_maxrss / 1024  # kilobytes on Linux
    reports = json.loads(out_text)
    turns = sum(report["turns"] for report in reports)
    return {
        "case": name,
        "chats": len(reports),
        "turns": turns,
        "file_mb": round(source.stat().st_size / 1e6, 1),
        "seconds": round(seconds, 2),
        "turns_per_second": round(turns / seconds),
        "peak_rss_mb": round(peak_mb, 1),
        "load_average_before": round(load, 2),
        "met": seconds <= GOAL_SECONDS and peak_mb <= GOAL_MB,
    }


def build_store(path: Path, chats: int) -> None:
    """M chats of 40 turns with their recall vectors, written through the store."""
    asyncio.run(_build_store(path, chats))


async def _build_store(path: Path, chats: int) -> None:
    rng = random.Random(7)
    vectors = np.random.default_rng(7)
    store = await SqliteChatStore.open(path, "bench", clock=lambda: datetime(2026, 1, 1, tzinfo=UTC))
    try:
        for _ in range(chats):
            turns = tuple(Turn(role="user" if i % 2 == 0 else "model", text=sentence(rng, i)) for i in range(40))
            chat = await store.create(turns=turns)
            matrix = vectors.standard_normal((40, 384)).astype(np.float32)
            matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
            await store.set_turn_vectors(
                [TurnVector(chat.id, i, EmbeddedText(t.text, matrix[i], "bench")) for i, t in enumerate(turns)]
            )
    finally:
        await store.close()


def health(folder: Path, chats: int) -> dict[str, Any]:
    path = folder / "health.sqlite3"
    build_store(path, chats)
    load = os.getloadavg()[0]
    cold = None
    if os.geteuid() == 0:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n", encoding="utf-8")
        started = time.perf_counter()
        assert quick_check(path) is None
        cold = round(time.perf_counter() - started, 3)
    started = time.perf_counter()
    assert quick_check(path) is None
    warm = round(time.perf_counter() - started, 3)
    record_healthy(path)
    started = time.perf_counter()
    ensure_healthy(path)
    unchanged_ms = round((time.perf_counter() - started) * 1000, 3)
    with sqlite3.connect(path) as db:
        pages = db.execute("PRAGMA page_count").fetchone()[0]
    return {
        "chats": chats,
        "file_mb": round(path.stat().st_size / 1e6, 1),
        "pages": pages,
        "quick_check_cold_s": cold,
        "quick_check_warm_s": warm,
        "unchanged_open_check_ms": unchanged_ms,
        "load_average_before": round(load, 2),
    }


def report(results: dict[str, Any]) -> None:
    print(f"Import (goal <= {GOAL_SECONDS:.0f} s and <= {GOAL_MB:.0f} MB), {os.cpu_count()} CPUs:")
    for case in results["import"]:
        print(
            f"  {case['case']:11} {case['chats']:5d} chat(s) {case['turns']:7d} turns {case['file_mb']:5.1f} MB:"
            f" {case['seconds']:6.2f} s, {case['turns_per_second']} turns/s, peak {case['peak_rss_mb']:.0f} MB"
            f" (load {case['load_average_before']}) {'met' if case['met'] else 'MISSED'}"
        )
    if results.get("health"):
        h = results["health"]
        print(
            f"Health check at {h['chats']} chats ({h['file_mb']} MB): quick_check {h['quick_check_warm_s']} s warm,"
            f" {h['quick_check_cold_s']} s cold; an unchanged file: {h['unchanged_open_check_ms']} ms"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=100_000)
    parser.add_argument("--health-chats", type=int, default=10_000, help="0: skip the health check part")
    parser.add_argument("--cases", nargs="+", choices=CASES, default=CASES, help="the import cases to run")
    parser.add_argument("--out", type=Path, default=RESULTS / "import.json")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        files = write_files(folder, args.turns)
        cases = [(name, path) for name, path in files.items() if name in args.cases]
        results: dict[str, Any] = {"import": [run_import(folder, name, path) for name, path in cases]}
        if args.health_chats:
            results["health"] = health(folder, args.health_chats)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    report(results)


if __name__ == "__main__":
    main()
