"""A month of use, compressed: `python -m bench.month [--seed N] [--quick] [--out FILE]`.

One user's 30 days (`bench.month_plan`, generated from the seed: 12 topics, about 200 conversations, 40
switches by description, 60 facts said with restatements and contradictions, 10 restarts, 2 kill -9 crashes,
one export/import cycle) played through Parley's real services on one data folder, in this process (the
long-running app), with the local embedder and offline text model in their child process as the window runs
them. The voice path (typed turns through the voice loop, google-genai against the fake Gemini Live server)
carries what the voice decides: switches, memories, the crashed conversations; the rest goes to the store and
the maintenance worker directly (`bench.month_talk`).

Per simulated week (days 1-7, 8-14, 15-21, 22-30):
- switching: hit@1 and hit@3 of the fused ranking the tool decides on (`ChatFinder`'s store search and
  `rank` at the simulated time, the chat the request is said in left out, as `decide(current=)` does), and
  what `switch_chat` itself answered (switched to a right chat, asked with a right option, wrong, none).
  A hit is any chat of the requested topic. Goal: week 4 no worse than week 1, hit@3 >= 0.85;
- turns lost or duplicated (every turn said or answered, held exactly once; goal 0), and the crash checks;
- duplicate memories kept, superseded facts still pre-loaded, pre-loaded block changes without a memory change
  (goals 0), and whether each voice session's system prompt carried the block;
- the store's size on disk, append p95 (a conversation's turns) and search p95 (store search alone, and with
  the query embedded), from the month's own calls and a probe of 3 requests per topic at each week's end;
- the resident set of this process after each week, and of the local models' child (goal: no growth beyond
  10 % after week 1).
The load average at each week's end is recorded beside the timings: the machine is shared.

Limits: each week has 10 switches, so one switch moves hit@k by 0.1 (the probe adds 3 requests per topic
for search figures). The voice loop has no clock to inject: the tools read the wall clock, so the month is
played as the 30 days ending when the run starts (recency in the tool's decision stays sensible), while
hit@k ranks at the simulated time. In a choice the user names the right option back even when two options
carry the same title (the fake model passes the right chat's id). The resident set includes the fake server
and the bench's own ledgers, which are cleared or small (a counter of turn texts).
`--keep DIR` plays in DIR and leaves the data folder there for inspection; `--days N` stops after day N.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import statistics
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from uuid import UUID, uuid4

import numpy as np

from bench import month_checks as checks
from bench.month_app import Clock, RunningApp, environment, rss_mb
from bench.month_crash import crash_conversation
from bench.month_plan import EXPORT_AFTER_DAY, Conversation, Plan, fill, make_plan, week_of
from bench.month_report import report, summary
from bench.month_talk import Exchange, Ledger, store_conversation, switch_conversation, voice_conversation
from bench.month_vocab import SWITCH_LINES
from chats.search import RankedChat, rank
from chats.store import SearchQuery
from tests.fakes.gemini_live_server import FakeGeminiLiveServer
from tests.fakes.live_tls import make_live_tls

RESULTS = Path(__file__).resolve().parent / "results"
ACK = "Got it, I'll remember that."


def p95(values: list[float]) -> float | None:
    return round(float(np.percentile(values, 95)), 2) if values else None


def timing(values: list[float]) -> dict[str, Any]:
    if not values:
        return {"samples": 0}
    return {"samples": len(values), "p50_ms": round(statistics.median(values), 2), "p95_ms": p95(values)}


class Month:
    """The month's state as it is played: the app, the chats by plan number, the ledgers and the figures."""

    def __init__(self, plan: Plan, server: FakeGeminiLiveServer, folder: Path, start: datetime) -> None:
        self.plan = plan
        self.server = server
        self.folder = folder
        self.data_dir = folder / "data"
        self.clock = Clock(start)
        self.start = start
        self.chats: list[UUID] = []
        self.current: UUID = uuid4()
        self.ledger = Ledger()
        self.memory = checks.MemoryLedger()
        self.app: RunningApp | None = None
        self.compactions = 0
        self.restarts = 0
        self.crashes: list[dict[str, Any]] = []
        self.switches: list[dict[str, Any]] = []
        self.rss_at_start = 0.0
        self.export_import: dict[str, Any] | None = None
        self.week: dict[str, Any] = {}
        self.weeks: list[dict[str, Any]] = []

    def new_week(self) -> None:
        self.week = {"switch": Counter(), "tool": Counter(), "append_ms": [], "search_ms": [], "find_ms": []}

    async def open(self) -> RunningApp:
        self.app = await RunningApp(self.clock, self.current).__aenter__()
        return self.app

    async def close(self) -> None:
        if self.app is not None:
            self.compactions += self.app.maintainer.compactions
            await self.app.__aexit__(None, None, None)
            self.app = None

    def exchanges(self, c: Conversation) -> list[Exchange]:
        turns = [Exchange(user, model) for user, model in c.exchanges]
        for index, fact in c.facts:
            args = {
                "content": fact.content,
                "category": fact.category,
                "reasoning": "The user said it about themselves.",
            }
            turns[index] = Exchange(fact.said, ACK, ("save_memory", args))
        return turns

    async def play(self, c: Conversation) -> None:
        self.clock.now = self.start + timedelta(days=c.day - 1, minutes=c.minute)
        app = self.app
        assert app is not None
        if c.how == "new":
            self.chats.append((await app.services.store.create()).id)
        chat_id = self.chats[c.chat]
        turns = self.exchanges(c)
        if c.crash:
            await self.crash(chat_id, turns)
        elif c.how == "switch":
            assert c.switch_words is not None
            wanted = {
                self.chats[n] for n, t in enumerate(self.plan.chat_topics) if t == c.topic and n < len(self.chats)
            }
            rank_of_right = await self.rank_switch(c.switch_words, wanted)
            outcome = await switch_conversation(
                app,
                self.server,
                words=c.switch_words,
                wanted=wanted,
                target=chat_id,
                exchanges=turns,
                ledger=self.ledger,
                append_ms=self.week["append_ms"],
                at=self.clock.now,
                current=self.current,
            )
            right = outcome.landed in wanted
            self.week["tool"][f"{outcome.tool}{'/right' if right else '/wrong' if outcome.landed else ''}"] += 1
            self.week["tool"]["predicted_differently"] += outcome.predicted != _decision(outcome.tool)
            chat_id = outcome.landed if outcome.landed is not None and right else chat_id
            self.switches.append(
                {
                    "day": c.day,
                    "words": c.switch_words,
                    "topic": self.plan.topics[c.topic].subjects[0],
                    "rank_of_first_right_chat": rank_of_right,
                    "tool": outcome.tool,
                    "landed_right": right,
                    "options_read_out": list(outcome.options),
                }
            )
        elif c.facts:
            results, prompt = await voice_conversation(app, self.server, chat_id, turns, self.ledger)
            self.memory.prompt(prompt, self.memory.last_text or "")
            answers = [r for r in results if "success" in r]
            for (_, fact), answer in zip(c.facts, answers + [{}] * (len(c.facts) - len(answers)), strict=True):
                self.memory.said(fact, answer)
        else:
            app.loop.continue_in(chat_id)
            await store_conversation(
                app, chat_id, turns, self.ledger, append_ms=self.week["append_ms"], at=self.clock.now
            )
        self.current = chat_id
        assert self.app is not None
        await self.memory.check_block(self.app.services.memory.store)
        self.server.connections.clear()  # the fake's records are the bench's, not the app's memory

    async def rank_switch(self, words: str, wanted: set[UUID]) -> int | None:
        """hit@1 and hit@3 of the ranking `switch_chat` decides on, at the simulated time; the rank of the
        first right chat (1-based), None when it is not a candidate."""
        ranked = [r.chat_id for r in await self._ranked(words) if r.chat_id != self.current]
        self.week["switch"]["asked"] += 1
        self.week["switch"]["hit@1"] += bool(ranked) and ranked[0] in wanted
        self.week["switch"]["hit@3"] += any(chat in wanted for chat in ranked[:3])
        return next((i + 1 for i, chat in enumerate(ranked) if chat in wanted), None)

    async def _ranked(self, words: str) -> list[RankedChat]:
        """The chats `words` finds, ranked at the simulated time as `switch_chat` ranks them; the embedding
        and the search timed into the week."""
        assert self.app is not None
        services = self.app.services
        started = time.perf_counter()
        [vector] = await services.embedder.embed([words])
        searched = time.perf_counter()
        candidates = await services.store.search(SearchQuery(vector, services.embedder.model_name, words))
        done = time.perf_counter()
        self.week["find_ms"].append((done - started) * 1000)
        self.week["search_ms"].append((done - searched) * 1000)
        return rank(candidates, self.clock.now, words)

    async def crash(self, chat_id: UUID, turns: list[Exchange]) -> None:
        await self.close()  # the app is the child process now: one voice loop per data folder
        crashed = await crash_conversation(self.server, self.folder, chat_id, self.clock.now, turns)
        for entry in crashed.journaled:
            self.ledger.add(entry.turn.role, entry.turn.text)
        journaled = {(e.turn.role, e.turn.text) for e in crashed.journaled}
        app = await self.open()  # the user starts Parley again: the journal is delivered first
        held: Counter[UUID | None] = Counter()
        for chat in {e.chat_id for e in crashed.journaled}:
            held.update(t.id for t in (await app.services.store.get(chat)).full_history)
        marks = dict(app.maintainer.started)
        app.worker.request(chat_id)
        await app.settle([chat_id], marks)
        self.crashes.append(
            {
                "day": (self.clock.now - self.start).days + 1,
                "turns_reported_before_the_kill": len(crashed.printed),
                "journaled_at_the_kill": len(crashed.journaled),
                "reported_but_not_journaled": sum(t not in journaled for t in crashed.printed),
                "delivered_once_after_restart": sum(held[e.turn.id] == 1 for e in crashed.journaled),
                "delivered_twice_or_more": sum(held[e.turn.id] > 1 for e in crashed.journaled),
                "missing_after_restart": sum(held[e.turn.id] == 0 for e in crashed.journaled),
                "journal_left_after_restart": len(await _journal_pending(self.data_dir)),
            }
        )

    async def probe(self, week: int) -> Counter[str]:
        """3 requests per topic begun, timed, and their hit@3 (not counted as switches)."""
        rng = random.Random(self.plan.seed * 100 + week)
        hits: Counter[str] = Counter()
        for n, topic in enumerate(self.plan.topics):
            chats = {self.chats[i] for i, t in enumerate(self.plan.chat_topics) if t == n and i < len(self.chats)}
            if not chats:
                continue
            for _ in range(3):
                words = fill(rng.choice(SWITCH_LINES), rng, topic)
                ranked = [r.chat_id for r in await self._ranked(words)]
                hits["asked"] += 1
                hits["hit@3"] += any(chat in chats for chat in ranked[:3])
        return hits

    async def end_week(self, week: int) -> None:
        assert self.app is not None
        services = self.app.services
        probe = await self.probe(week)
        switch, asked = self.week["switch"], max(self.week["switch"]["asked"], 1)
        children = checks.children_rss_mb()
        self.weeks.append(
            {
                "week": week,
                "day": (self.clock.now - self.start).days + 1,
                "chats": len(self.chats),
                "switches": {
                    "asked": switch["asked"],
                    "hit@1": round(switch["hit@1"] / asked, 3),
                    "hit@3": round(switch["hit@3"] / asked, 3),
                    "voice_landed_right": round(
                        sum(n for k, n in self.week["tool"].items() if k.endswith("/right")) / asked, 3
                    ),
                    "tool_answers": dict(self.week["tool"]),
                },
                "probe_hit@3": round(probe["hit@3"] / max(probe["asked"], 1), 3),
                "probe_requests": probe["asked"],
                "turns": await checks.turns_check(services.store, self.ledger),
                "memories": await self.memory.kept(services.memory.store)
                | {
                    "superseded_facts_preloaded": len(self.memory.stale_preloaded),
                    "unknown_memories_preloaded": len(self.memory.unknown_preloaded),
                    "block_changes_without_memory_change": self.memory.block_changed_alone,
                    "block_checks": self.memory.block_checks,
                    "prompts_without_the_block": self.memory.prompt_without_block,
                    "prompts_checked": self.memory.prompt_checks,
                    "tool_outcomes": dict(sorted(self.memory.outcomes.items())),
                    "expected_outcomes": dict(sorted(self.memory.expected_outcomes.items())),
                },
                "compactions_so_far": self.compactions + self.app.maintainer.compactions,
                "restarts_so_far": self.restarts,
                "crashes_so_far": len(self.crashes),
                "store_mb": checks.store_mb(self.data_dir),
                "append": timing(self.week["append_ms"]),
                "search_store_only": timing(self.week["search_ms"]),
                "search_with_query_embedding": timing(self.week["find_ms"]),
                "rss_mb": round(rss_mb(), 1),
                "child_rss_mb": sorted(children.values()),
                "load_average": [round(x, 2) for x in os.getloadavg()],
            }
        )


def _decision(tool: str) -> str:
    return {"switched": "switch", "ask": "ask", "none": "none", "already_here": "here"}.get(tool, tool)


async def _journal_pending(data_dir: Path) -> list[Any]:
    from chats.journal import JOURNAL_FILE, TurnJournal

    return await TurnJournal(data_dir / JOURNAL_FILE).pending()


async def run(seed: int, last_day: int, keep: Path | None = None) -> dict[str, Any]:
    """The month until `last_day`; `keep`: a folder to play it in and leave behind (else a temporary one)."""
    plan = make_plan(seed)
    conversations = [c for c in plan.conversations if c.day <= last_day]
    export_day = min(EXPORT_AFTER_DAY, last_day // 2)
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as temporary:
        folder = keep or Path(temporary)
        async with FakeGeminiLiveServer(make_live_tls()) as server:
            (folder / "ca.pem").write_bytes(server.ca_pem)
            (folder / "config.toml").write_text("", encoding="utf-8")
            os.environ.update(
                environment(folder / "data", server.base_url, server.api_key, folder / "ca.pem", folder / "config.toml")
            )
            start = datetime.now(UTC).replace(microsecond=0) - timedelta(days=30)
            month = Month(plan, server, folder, start)
            month.new_week()
            await month.open()
            month.rss_at_start = round(rss_mb(), 1)
            try:
                for c in conversations:
                    if c.restart_before:
                        await month.close()
                        await month.open()
                        month.restarts += 1
                    await month.play(c)
                    following = next((n for n in conversations if n.number == c.number + 1), None)
                    if following is None or following.day != c.day:
                        print(f"day {c.day}: {time.perf_counter() - started:.0f} s", file=sys.stderr, flush=True)
                        if c.day == export_day:
                            month.export_import = await checks.export_import(folder / "transfer", month.data_dir)
                        if following is None or week_of(following.day) != week_of(c.day):
                            await month.end_week(week_of(c.day))
                            month.new_week()
            finally:
                await month.close()
    return summary(plan, month, conversations, time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--quick", action="store_true", help="the first 10 days only (while developing)")
    parser.add_argument("--days", type=int, default=None, help="play only the first DAYS days")
    parser.add_argument("--keep", type=Path, default=None, help="play in this (new) folder and keep it")
    parser.add_argument(
        "--out", type=Path, default=None, help="default: bench/results/month.json (--quick: a temporary file)"
    )
    args = parser.parse_args()
    results = asyncio.run(run(args.seed, args.days or (10 if args.quick else 30), args.keep))
    out = args.out or (
        RESULTS / "month.json"
        if args.days is None and not args.quick
        else Path(tempfile.gettempdir()) / "month-quick.json"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=2, default=str) + "\n", encoding="utf-8")
    report(results)


if __name__ == "__main__":
    main()
