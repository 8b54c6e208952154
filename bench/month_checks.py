"""What `bench.month` checks as the month goes: the turns the store holds, the memory contracts, the
export/import round trip, sizes and resident memory.

- Turns: every turn the ledger says was said (`bench.month_talk.Ledger`) must be in the store exactly once,
  in any chat (a switch request goes with the switch): lost = said but missing, duplicated = held more often.
- Memories: each fact said has a key (an attribute, or an attribute and a value for many-valued ones) and
  the ledger knows its latest value. A memory the tools saved is tied to its fact by the id they answered.
  Duplicates kept: current memories beyond the first for one fact (a restatement that was not recognised).
  Superseded facts pre-loaded: memories in the pre-loaded block whose value is no longer the fact's latest.
  Block changes without a memory change: the block's text differs from the one before while no memory was
  added, edited, superseded or deleted since.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from uuid import UUID

from bench.month_app import rss_mb
from bench.month_plan import Fact
from bench.month_talk import Ledger, said
from chats.memory.models import Memory
from chats.memory.store import MemoryStore
from chats.store import ChatStore


async def all_turns(store: ChatStore) -> Counter[tuple[str, str]]:
    held: Counter[tuple[str, str]] = Counter()
    offset = 0
    while page := await store.list_chats(limit=100, offset=offset):
        for info in page:
            for turn in (await store.get(info.id)).full_history:
                held[(turn.role, said(turn.text))] += 1
        offset += len(page)
    return held


async def turns_check(store: ChatStore, ledger: Ledger) -> dict[str, int]:
    held = await all_turns(store)
    return {
        "expected": sum(ledger.expected.values()),
        "held": sum(held.values()),
        "lost": sum((ledger.expected - held).values()),
        "duplicated": sum((held - ledger.expected).values()),
    }


def snapshot(memories: Sequence[Memory]) -> tuple[tuple[Any, ...], ...]:
    return tuple(
        (m.id, m.content, m.category, m.importance, m.superseded_by, m.updated_at, m.title, m.tags) for m in memories
    )


@dataclass
class MemoryLedger:
    """The facts said, what the tools did with them, and what the store shows."""

    latest: dict[str, str] = field(default_factory=dict)
    """The latest value said for each fact key."""
    of_memory: dict[UUID, tuple[str, str]] = field(default_factory=dict)
    """Memory id -> (fact key, value), from the tools' answers."""
    outcomes: Counter[str] = field(default_factory=Counter)
    """"first/saved", "restate/duplicate", "contradict/saved+replaced", "first/refused", ..."""
    expected_outcomes: Counter[str] = field(default_factory=Counter)
    """What each statement should have done, given what the store kept of its fact before it."""
    stored: dict[str, set[str]] = field(default_factory=dict)
    """The values of each fact key that the tools saved and nothing replaced since."""
    record: list[dict[str, Any]] = field(default_factory=list)
    """Each fact said that did not end as it should (new: saved; said again: found a duplicate; another
    value: saved, replacing the older value): what was said, saved, and answered."""
    last_text: str | None = None
    last_snapshot: tuple[tuple[Any, ...], ...] | None = None
    stale_preloaded: set[UUID] = field(default_factory=set)
    unknown_preloaded: set[UUID] = field(default_factory=set)
    block_changed_alone: int = 0
    block_checks: int = 0
    prompt_checks: int = 0
    prompt_without_block: int = 0

    def said(self, fact: Fact, answer: dict[str, Any]) -> None:
        stored = self.stored.setdefault(fact.key, set())
        if fact.kind == "first" or not stored:
            expected = "saved"  # a contradiction or restatement of a fact that was never kept is new
        elif fact.value in stored:
            expected = "duplicate"
        else:
            expected = "saved+replaced"
        self.latest[fact.key] = fact.value
        if answer.get("success") and answer.get("memoryId"):
            self.of_memory[UUID(str(answer["memoryId"]))] = (fact.key, fact.value)
            outcome = "saved+replaced" if answer.get("replaced") else "saved"
            if outcome == "saved+replaced":
                stored.clear()
            stored.add(fact.value)
        elif answer.get("duplicate"):
            outcome = "duplicate"
        else:
            outcome = "refused"
        self.outcomes[f"{fact.kind}/{outcome}"] += 1
        self.expected_outcomes[f"{fact.kind}/{expected}"] += 1
        if outcome != expected:
            shown = {k: v for k, v in answer.items() if k in ("error", "message", "existingContent", "replaced")}
            self.record.append(
                {
                    "kind": fact.kind,
                    "said": fact.said,
                    "content": fact.content,
                    "expected": expected,
                    "outcome": outcome,
                }
                | shown
            )

    def prompt(self, system_text: str, block: str) -> None:
        """The system prompt a voice session was given holds the block the store pre-loaded before it."""
        if block:
            self.prompt_checks += 1
            self.prompt_without_block += block not in system_text

    async def check_block(self, memories: MemoryStore) -> str:
        """After a conversation: the block against the facts, and against the memories' own changes."""
        preload = await memories.preload()
        state = snapshot(await memories.export())
        self.block_checks += 1
        if self.last_text is not None and preload.text != self.last_text and state == self.last_snapshot:
            self.block_changed_alone += 1
        self.last_text, self.last_snapshot = preload.text, state
        for memory in preload.memories:
            known = self.of_memory.get(memory.id)
            if known is None:
                self.unknown_preloaded.add(memory.id)
            elif self.latest.get(known[0]) != known[1]:
                self.stale_preloaded.add(memory.id)
        return preload.text

    async def kept(self, memories: MemoryStore) -> dict[str, int]:
        """Duplicates and outdated values among the current memories."""
        current = [m for m in await memories.export() if m.superseded_by is None]
        facts = Counter(self.of_memory.get(m.id) for m in current if m.id in self.of_memory)
        return {
            "current_memories": len(current),
            "duplicates_kept": sum(n - 1 for n in facts.values()),
            "outdated_still_current": sum(
                n
                for (key, value), n in ((f, n) for f, n in facts.items() if f is not None)
                if self.latest[key] != value
            ),
        }


def store_mb(data_dir: Path) -> dict[str, float]:
    """The SQLite file and its write-ahead log (emptied into the file when the app closes it), in MB."""
    sizes = {f.name: f.stat().st_size / 1e6 for f in data_dir.iterdir() if f.name.startswith("chats.sqlite3")}
    return {"file": round(sizes.get("chats.sqlite3", 0.0), 2), "wal": round(sizes.get("chats.sqlite3-wal", 0.0), 2)}


def children_rss_mb() -> dict[int, float]:
    """This process's child processes (the local models' process) and their resident sets."""
    pids = []
    for task in Path("/proc/self/task").iterdir():
        pids += [int(p) for p in (task / "children").read_text(encoding="utf-8").split()]
    found = {}
    for pid in pids:
        try:
            found[pid] = round(rss_mb(pid), 1)
        except (OSError, StopIteration):
            continue
    return found


def parley(data_dir: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "app.cli.main", "--data-dir", str(data_dir), *args]
    environ = os.environ | {"PARLEY_DATA_DIR": ""}
    return subprocess.run(command, check=False, capture_output=True, text=True, env=environ)


def _step(name: str, done: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    return {"step": name, "exit_code": done.returncode, "error": done.stderr.strip().splitlines()[-1:] or None}


def _differences(first: Any, second: Any, key: str) -> list[str]:
    """Which fields differ between two exports' records, matched by position."""
    a, b = first.get(key, []), second.get(key, [])
    if len(a) != len(b):
        return [f"{len(a)} {key} exported, {len(b)} after the import"]
    fields: Counter[str] = Counter()
    for x, y in zip(a, b, strict=True):
        for name in sorted(set(x) | set(y)):
            if x.get(name) != y.get(name):
                fields[name] += 1
    return [f"{name} differs in {n} of {len(a)}" for name, n in fields.items()]


def _round_trip(folder: Path, data_dir: Path, kind: str) -> dict[str, Any]:
    folder.mkdir(parents=True, exist_ok=True)
    fresh = folder / "imported"
    first, second, again = folder / f"{kind}-1.json", folder / f"{kind}-2.json", folder / f"{kind}-3.json"
    steps = [_step("export", parley(data_dir, kind, "export", "--out", str(first)))]
    if steps[-1]["exit_code"] == 0:
        steps.append(_step("import", parley(fresh, kind, "import", str(first))))
    if steps[-1]["exit_code"] == 0:
        steps.append(_step("export the import", parley(fresh, kind, "export", "--out", str(second))))
        steps.append(_step("import again", parley(fresh, kind, "import", str(first))))
        steps.append(_step("export again", parley(fresh, kind, "export", "--out", str(again))))
    report: dict[str, Any] = {"steps": steps, "completed": all(s["exit_code"] == 0 for s in steps) and len(steps) == 5}
    if report["completed"]:
        exported, imported, twice = (json.loads(p.read_text(encoding="utf-8")) for p in (first, second, again))
        key = "chats" if kind == "chats" else "memories"
        if isinstance(exported, list):  # an export that is a bare list of records
            exported, imported, twice = ({key: e} for e in (exported, imported, twice))
        report["identical"] = exported == imported
        report["differences"] = _differences(exported, imported, key)
        report["second_import_changes_nothing"] = imported == twice
        report["records"] = len(exported.get(key, []))
    return report


async def export_import(folder: Path, data_dir: Path) -> dict[str, Any]:
    """`parley chats export` and `parley memories export`, imported into a fresh data folder, exported again,
    imported again: each command in a child process, as a user runs it."""
    return {kind: await asyncio.to_thread(_round_trip, folder, data_dir, kind) for kind in ("chats", "memories")}
