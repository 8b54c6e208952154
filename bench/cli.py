"""How long `parley` commands take, as a user feels it: `python -m bench.cli [--runs N] [--out FILE] [--only NAME]`.

Each command runs as a user runs it: the `parley` entry point of this interpreter's environment, in a child
process, on a fresh data folder with an empty config file and no API key (so offline), the model cache
kept (a second start, not a first). Cases:
- `parley --help`; `parley chats list` with 1,000 chats in the store (p50 of N runs; goal <= 0.5 s);
- `parley chats search` and `parley memories search` (200 memories), no Parley running: the store and the
  models in the page cache and the model cache prepared (p50 of the runs after the first; goal <= 0.5 s);
- `parley doctor` (goal <= 3 s);
- `parley listen` with no microphone: until its one line (goal <= 1 s); this machine has no sound card;
- `parley ask` offline, no Parley running: from its start to its answer printed (goal <= 3 s), and from its
  conversation's end (the turns saved) to the process's exit, through the chat titled (goal: the exit follows
  at once, <= 1 s);
- the searches and `parley ask` again while Parley runs on the same chats (its window, offscreen, started once
  and left asleep): they reach it over its socket (goals: searches <= 0.5 s, ask <= 1.5 s).

Every figure is given in seconds and as a ratio to a bare `python -c pass` measured in the same run, so
that the load of a shared machine is factored out as far as it can be; the load average is recorded
before each case (`os.getloadavg()`). The CPU seconds each command used (user and system, its children
included) are given too: on a machine where other work queues for the cores, they are what the command
would take on a quiet one, less its waits for the disk.
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
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import IO, Any

RESULTS = Path(__file__).resolve().parent / "results"
PARLEY = [str(Path(sys.executable).parent / "parley")]
"""How `parley` is run: the entry point (`--module`: `python -m ui.launcher` from the current folder, to
measure another checkout, such as a commit before a change, with this environment)."""
STORE_CHATS = 1000
STORE_MEMORIES = 200
WINDOW_START_S = 180.0
"""How long the window may take to open and serve its socket (seconds, at most: its models load first)."""
WINDOW_SETTLE_S = 600.0
"""How long the window may take to finish its first start's work (the chats' recall vectors) before it is measured
as it runs all day: asleep, its backfill done."""
QUIET_CPU_SHARE = 0.1
"""Asleep: its processes use less than this share of a core over `QUIET_INTERVAL_S`."""
QUIET_INTERVAL_S = 3.0
GOALS = {
    "--help": 0.5,
    "chats list": 0.5,
    "chats search": 0.5,
    "memories search": 0.5,
    "doctor": 3.0,
    "listen, no microphone": 1.0,
    "ask, to the answer": 3.0,
    "ask, saved to exit": 1.0,
    "chats search, Parley running": 0.5,
    "memories search, Parley running": 0.5,
    "ask, Parley running": 1.5,
}
SEARCH_CHATS = ["chats", "search", "the kitchen tiles"]
SEARCH_MEMORIES = ["memories", "search", "my daughter's horses"]
WORDS = (
    "kitchen renovation oak walnut cabinets budget euros Marco suggests tiles counter sink window light"
    " delivery Tuesday plumber quote drawers handles paint white green floor boards island stools garden"
    " holiday Lisbon flights hotel museum train tickets birthday cake candles guitar lesson chords"
).split()


def child_env(folder: Path) -> dict[str, str]:
    """An environment with no key and an empty config: offline, as a new user starts."""
    config = folder / "config.toml"
    config.write_text("", encoding="utf-8")
    keep = {name: value for name, value in os.environ.items() if not name.endswith("_API_KEY")}
    return {**keep, "PARLEY_CONFIG": str(config), "PARLEY_DATA_DIR": str(folder / "data")}


def cpu_of_children() -> float:
    """CPU seconds (user and system) of every child process waited for so far."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def timed(command: Sequence[str], env: dict[str, str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall seconds, CPU seconds and the outcome of one run of `command`."""
    cpu, started = cpu_of_children(), time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    return time.perf_counter() - started, cpu_of_children() - cpu, done


def runs_of(command: Sequence[str], env: dict[str, str], runs: int, *, warm_up: int = 0) -> dict[str, Any]:
    """`runs` timings of `command` after `warm_up` untimed ones; each must succeed."""
    load = os.getloadavg()[0]
    for _ in range(warm_up):
        timed(command, env)
    seconds, cpu = [], []
    for _ in range(runs):
        elapsed, used, done = timed(command, env)
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.strip()[-400:]}")
        seconds.append(elapsed)
        cpu.append(used)
    return summary(seconds, cpu, load)


def summary(seconds: list[float], cpu: list[float], load: float) -> dict[str, Any]:
    return {
        "p50_s": statistics.median(seconds),
        "cpu_p50_s": round(statistics.median(cpu), 3),
        "runs_s": [round(s, 3) for s in seconds],
        "load_before": load,
    }


def build_store(folder: Path, chats: int, memories: int = 0) -> None:
    """`chats` chats of 4 turns, titled, with their topic vectors, and `memories` memories, written through the
    stores."""
    asyncio.run(_build_store(folder, chats, memories))


async def _build_store(folder: Path, chats: int, memories: int) -> None:
    import numpy as np

    from app.config.settings import load_settings
    from app.wiring import open_stores
    from chats.memory.category_names import CATEGORIES
    from chats.memory.store import NewMemory
    from chats.models import EmbeddedText, Turn

    settings = load_settings({"data_dir": str(folder / "data"), "config_file": str(folder / "config.toml")}, env={})
    rng, vectors = random.Random(24), np.random.default_rng(24)
    start = datetime(2026, 1, 1, tzinfo=UTC)
    from contextlib import AsyncExitStack

    async with AsyncExitStack() as closing:
        store, memory_store = await open_stores(settings, closing, clock=lambda: start)
        for n in range(memories):
            vector = vectors.standard_normal(384).astype(np.float32)
            vector /= np.linalg.norm(vector)
            fact = f"User's note {n}: " + " ".join(rng.choices(WORDS, k=8))
            category = CATEGORIES[n % len(CATEGORIES)]
            await memory_store.add(NewMemory(EmbeddedText(fact, vector, "all-MiniLM-L6-v2"), category, 3))
        for n in range(chats):
            turns = tuple(
                Turn(role="user" if i % 2 == 0 else "model", text=" ".join(rng.choices(WORDS, k=14)), at=start)
                for i in range(4)
            )
            chat = await store.create(title=f"Chat {n} " + " ".join(rng.choices(WORDS, k=3)), turns=turns)
            vector = vectors.standard_normal(384).astype(np.float32)
            vector /= np.linalg.norm(vector)
            topic = " ".join(turn.text for turn in turns)
            await store.set_embedding(chat.id, "topic", EmbeddedText(topic, vector, "all-MiniLM-L6-v2"))
            start += timedelta(minutes=1)


def ask_timings(env: dict[str, str], runs: int) -> tuple[dict[str, Any], dict[str, Any]]:
    """`parley ask` offline: seconds until the conversation is over (its turns saved: the state log line
    "-> stopped", read from `--log-level DEBUG`), until its answer is printed, and until it has exited; the
    case's figure is from the first to the last. Its CPU seconds are the whole run's (the answer included)."""
    load = os.getloadavg()[0]
    saved, printed, exited, cpu = [], [], [], []
    for _ in range(runs):
        used, started = cpu_of_children(), time.perf_counter()
        child = subprocess.Popen(
            [*PARLEY, "--log-level", "DEBUG", "ask", "What should we plan for the weekend?", "--new-chat"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert child.stdout is not None and child.stderr is not None
        stopped: list[float] = []
        errors: list[str] = []
        reader = threading.Thread(target=read_log, args=(child.stderr, started, stopped, errors))
        reader.start()
        answer = child.stdout.readline()
        printed.append(time.perf_counter() - started)
        child.stdout.read()
        child.wait()
        exited.append(time.perf_counter() - started)
        reader.join()
        cpu.append(cpu_of_children() - used)
        if child.returncode != 0 or not answer.strip() or not stopped:
            raise SystemExit(f"parley ask failed ({child.returncode}): {''.join(errors).strip()[-400:]}")
        saved.append(stopped[0])
    to_exit = {
        "saved_p50_s": statistics.median(saved),
        "answer_printed_p50_s": statistics.median(printed),
        "exited_p50_s": statistics.median(exited),
        "p50_s": statistics.median(e - s for s, e in zip(saved, exited, strict=True)),
        "cpu_p50_s": round(statistics.median(cpu), 3),
        "runs_s": [[round(s, 3), round(p, 3), round(e, 3)] for s, p, e in zip(saved, printed, exited, strict=True)],
        "load_before": load,
    }
    return summary(printed, cpu, load), to_exit


def read_log(log: IO[str], started: float, stopped: list[float], lines: list[str]) -> None:
    """Keep `log`'s lines, and note in `stopped` when the assistant stopped (seconds after `started`)."""
    for line in log:
        if "-> stopped" in line:
            stopped.append(time.perf_counter() - started)
        lines.append(line)


def listen_timing(env: dict[str, str], runs: int) -> dict[str, Any]:
    """`parley listen` with no microphone: it must say so (exit 1, one line) quickly."""
    load = os.getloadavg()[0]
    seconds, cpu = [], []
    for _ in range(runs):
        elapsed, used, done = timed([*PARLEY, "listen"], env)
        if done.returncode != 1 or "microphone" not in done.stderr:
            raise SystemExit(f"parley listen did not report the missing microphone: {done.stderr.strip()[-400:]}")
        seconds.append(elapsed)
        cpu.append(used)
    return summary(seconds, cpu, load)


ASK = ["ask", "What should we plan for the weekend?", "--new-chat"]
ASK_RUNNING = ASK[:2]
"""In the chat the running Parley is in: a new chat waits for the conversation under way to end (its idle time)."""


@contextmanager
def running_parley(env: dict[str, str]) -> Iterator[None]:
    """Parley's window, offscreen, on these chats, until it serves its socket; closed (SIGTERM) after the block."""
    from app.asks.client import running_parley as serves

    window = subprocess.Popen(
        PARLEY, env={**env, "QT_QPA_PLATFORM": "offscreen"}, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        started = time.perf_counter()
        data = Path(env["PARLEY_DATA_DIR"])
        while not asyncio.run(serves(data)):
            if window.poll() is not None or time.perf_counter() - started > WINDOW_START_S:
                raise SystemExit(f"Parley's window did not serve its socket (exit {window.returncode})")
            time.sleep(0.2)  # polling a child process's start, not timing a test
        settle(window.pid)
        yield
    finally:
        window.terminate()
        window.wait(timeout=60)


def settle(pid: int) -> None:
    """Wait until the process `pid` and its children are asleep (`QUIET_CPU_SHARE`), at most `WINDOW_SETTLE_S`."""
    started = time.perf_counter()
    used = cpu_of_tree(pid)
    while time.perf_counter() - started < WINDOW_SETTLE_S:
        time.sleep(QUIET_INTERVAL_S)  # sampling a process's CPU use, not timing a test
        now = cpu_of_tree(pid)
        if now - used < QUIET_CPU_SHARE * QUIET_INTERVAL_S:
            return
        used = now
    print(f"the window was still busy after {WINDOW_SETTLE_S:.0f} s: measured while it works", file=sys.stderr)


def cpu_of_tree(pid: int) -> float:
    """CPU seconds (user and system) of the process `pid` and of its living children so far (Linux's /proc)."""
    ticks = os.sysconf("SC_CLK_TCK")
    total = 0.0
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone meanwhile
            continue
        if int(stat.parent.name) == pid or int(fields[1]) == pid:  # fields[1]: the parent's pid
            total += (int(fields[11]) + int(fields[12])) / ticks  # utime, stime
    return total


def measure(runs: int, only: Sequence[str] = ()) -> dict[str, Any]:
    """Every case, or those whose names start with one of `only` (the figures of the others are not written)."""

    def wanted(name: str) -> bool:
        return not only or name.startswith(tuple(only))

    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        env = child_env(folder)
        build_store(folder, STORE_CHATS, STORE_MEMORIES)
        bare = runs_of([sys.executable, "-c", "pass"], env, runs * 2)["p50_s"]
        timed([*PARLEY, *ASK], env)  # the model cache prepared (the intents' vectors), as after a first start
        alone: dict[str, Callable[[], dict[str, Any]]] = {
            "--help": lambda: runs_of([*PARLEY, "--help"], env, runs),
            "chats list": lambda: runs_of([*PARLEY, "chats", "list"], env, runs),
            "chats search": lambda: runs_of([*PARLEY, *SEARCH_CHATS], env, runs, warm_up=1),
            "memories search": lambda: runs_of([*PARLEY, *SEARCH_MEMORIES], env, runs, warm_up=1),
            "doctor": lambda: runs_of([*PARLEY, "doctor"], env, max(1, runs // 2)),
            "listen, no microphone": lambda: listen_timing(env, max(1, runs // 2)),
        }
        cases = {name: measured() for name, measured in alone.items() if wanted(name)}
        if wanted("ask, to the answer") or wanted("ask, saved to exit"):
            cases["ask, to the answer"], cases["ask, saved to exit"] = ask_timings(env, max(1, runs // 2))
        beside: dict[str, Callable[[], dict[str, Any]]] = {
            "chats search, Parley running": lambda: runs_of([*PARLEY, *SEARCH_CHATS], env, runs, warm_up=1),
            "memories search, Parley running": lambda: runs_of([*PARLEY, *SEARCH_MEMORIES], env, runs, warm_up=1),
            "ask, Parley running": lambda: runs_of([*PARLEY, *ASK_RUNNING], env, max(1, runs // 2), warm_up=1),
        }
        if any(wanted(name) for name in beside):
            with running_parley(env):
                cases |= {name: measured() for name, measured in beside.items() if wanted(name)}
    for name, case in cases.items():
        case["ratio_to_bare_python"] = round(case["p50_s"] / bare, 1)
        case["goal_s"] = GOALS[name]
        case["met"] = case["p50_s"] <= GOALS[name]
        case["met_on_cpu"] = None if name.startswith("ask") or "running" in name else case["cpu_p50_s"] <= GOALS[name]
        case["p50_s"] = round(case["p50_s"], 3)
    return {
        "bare_python_s": round(bare, 4),
        "cpus": os.cpu_count(),
        "load_average_after": [round(value, 2) for value in os.getloadavg()],
        "store_chats": STORE_CHATS,
        "store_memories": STORE_MEMORIES,
        "cases": cases,
    }


def report(results: dict[str, Any]) -> None:
    print(
        f"parley commands, {results['cpus']} CPUs, bare python {results['bare_python_s'] * 1000:.0f} ms,"
        f" {results['store_chats']} chats and {results['store_memories']} memories in the store:"
    )
    for name, case in results["cases"].items():
        extra = ""
        if "exited_p50_s" in case:
            extra = (
                f" (saved at {case['saved_p50_s']:.2f} s, printed at {case['answer_printed_p50_s']:.2f} s,"
                f" exit at {case['exited_p50_s']:.2f} s)"
            )
        print(
            f"  {name:28} {case['p50_s']:6.2f} s  x{case['ratio_to_bare_python']:<6} cpu {case['cpu_p50_s']:5.2f} s"
            f"  goal <= {case['goal_s']} s {'met' if case['met'] else 'MISSED'}"
            f"{'' if case['met_on_cpu'] is None else ' (on CPU: ' + ('met' if case['met_on_cpu'] else 'MISSED') + ')'}"
            f" (load {case['load_before']:.2f}){extra}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--out", type=Path, default=RESULTS / "cli.json")
    parser.add_argument("--module", action="store_true", help="run `python -m ui.launcher` from the current folder")
    parser.add_argument("--note", help="kept in the JSON: what was measured, and the machine's load by others")
    parser.add_argument("--only", action="append", default=[], help="only the cases whose names start so (repeatable)")
    args = parser.parse_args()
    if args.module:
        PARLEY[:] = [sys.executable, "-m", "ui.launcher"]
    results = measure(args.runs, args.only) | ({"note": args.note} if args.note else {})
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(results, indent=2) + "\n", encoding="utf-8")
    report(results)


if __name__ == "__main__":
    main()
