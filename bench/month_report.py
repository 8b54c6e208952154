"""The figures of `bench.month` as JSON (`summary`, with the goals of issue 14 judged) and as a printed table
(`report`)."""

from __future__ import annotations

import os
from typing import Any, Protocol
from uuid import UUID

from bench.month_checks import MemoryLedger
from bench.month_plan import Conversation, Plan


class Month(Protocol):
    """What the report reads of the month played (`bench.month.Month`)."""

    chats: list[UUID]
    crashes: list[dict[str, Any]]
    export_import: dict[str, Any] | None
    memory: MemoryLedger
    restarts: int
    rss_at_start: float
    switches: list[dict[str, Any]]
    weeks: list[dict[str, Any]]


HIT3_GOAL = 0.85
RSS_GROWTH_GOAL = 0.10
"""The resident set after each later week may exceed the one after week 1 by this share at most."""


def summary(plan: Plan, month: Month, played: list[Conversation], seconds: float) -> dict[str, Any]:
    weeks = month.weeks
    first, last = weeks[0], weeks[-1]
    baseline = first["rss_mb"]
    return {
        "seed": plan.seed,
        "days": max(c.day for c in played),
        "conversations": len(played),
        "through_the_voice": sum(c.voice for c in played),
        "topics": [t.subjects[0] for t in plan.topics],
        "chats": len(month.chats),
        "switches": sum(c.how == "switch" for c in played),
        "facts_said": sum(len(c.facts) for c in played),
        "restarts": month.restarts,
        "crashes": month.crashes,
        "export_import": month.export_import,
        "weeks": weeks,
        "switch_requests": month.switches,
        "facts_not_handled_as_their_kind": month.memory.record,
        "goals": {
            "switch_week_last_no_worse_than_week_1": last["switches"]["hit@3"] >= first["switches"]["hit@3"]
            and last["switches"]["hit@1"] >= first["switches"]["hit@1"],
            "switch_hit3_at_least_0.85_every_week": all(w["switches"]["hit@3"] >= HIT3_GOAL for w in weeks),
            "no_turn_lost_or_duplicated": all(w["turns"]["lost"] == 0 and w["turns"]["duplicated"] == 0 for w in weeks)
            and all(c["missing_after_restart"] == 0 and c["delivered_twice_or_more"] == 0 for c in month.crashes),
            "no_duplicate_memory_kept": last["memories"]["duplicates_kept"] == 0,
            "no_superseded_fact_preloaded": last["memories"]["superseded_facts_preloaded"] == 0,
            "no_block_change_without_memory_change": last["memories"]["block_changes_without_memory_change"] == 0,
            "rss_growth_after_week_1_at_most_10_percent": all(
                w["rss_mb"] <= baseline * (1 + RSS_GROWTH_GOAL) for w in weeks[1:]
            ),
        },
        "rss_mb_at_start": month.rss_at_start,
        "wall_seconds": round(seconds, 1),
        "cpus": os.cpu_count(),
    }


COLUMNS = (
    ("week", 4, lambda w: w["week"]),
    ("hit@1", 5, lambda w: f"{w['switches']['hit@1']:.2f}"),
    ("hit@3", 5, lambda w: f"{w['switches']['hit@3']:.2f}"),
    ("voice", 5, lambda w: f"{w['switches']['voice_landed_right']:.2f}"),
    ("probe@3", 7, lambda w: f"{w['probe_hit@3']:.2f}"),
    ("lost", 4, lambda w: w["turns"]["lost"]),
    ("dup", 3, lambda w: w["turns"]["duplicated"]),
    ("dup-mem", 7, lambda w: w["memories"]["duplicates_kept"]),
    ("stale-pre", 9, lambda w: w["memories"]["superseded_facts_preloaded"]),
    ("block-alone", 11, lambda w: w["memories"]["block_changes_without_memory_change"]),
    ("db MB", 6, lambda w: w["store_mb"]["file"]),
    ("wal MB", 6, lambda w: w["store_mb"]["wal"]),
    ("append95", 8, lambda w: w["append"].get("p95_ms")),
    ("search95", 8, lambda w: w["search_store_only"].get("p95_ms")),
    ("+embed95", 8, lambda w: w["search_with_query_embedding"].get("p95_ms")),
    ("RSS MB", 6, lambda w: w["rss_mb"]),
    ("child MB", 8, lambda w: ",".join(str(x) for x in w["child_rss_mb"])),
    ("load", 5, lambda w: w["load_average"][0]),
)
"""The summary table: heading, width, value of a week. voice: share of switches where the voice landed in a
right chat; stale-pre: superseded facts seen in the pre-loaded block so far; times are p95 in ms."""


def report(results: dict[str, Any]) -> None:
    print(
        f"A month of use (seed {results['seed']}): {results['conversations']} conversations over {results['days']}"
        f" days, {results['through_the_voice']} through the voice; {results['chats']} chats; {results['switches']}"
        f" switches; {results['facts_said']} facts said; {results['restarts']} restarts;"
        f" {len(results['crashes'])} crashes; {results['wall_seconds']} s"
    )
    print("  ".join(f"{name:>{width}}" for name, width, _ in COLUMNS))
    for w in results["weeks"]:
        print("  ".join(f"{value(w)!s:>{width}}" for _, width, value in COLUMNS))
    for w in results["weeks"]:
        print(
            f"week {w['week']}: switch_chat answered {w['switches']['tool_answers']}; by its end"
            f" {w['compactions_so_far']} compactions, {w['restarts_so_far']} restarts, {w['crashes_so_far']} crashes"
        )
    print(f"memory tools: {results['weeks'][-1]['memories']['tool_outcomes']}")
    print(f"  expected:   {results['weeks'][-1]['memories']['expected_outcomes']}")
    for crash in results["crashes"]:
        print(f"crash: {crash}")
    for kind, trip in (results["export_import"] or {}).items():
        shown = {k: v for k, v in trip.items() if k != "steps"}
        failed = [s for s in trip["steps"] if s["exit_code"] != 0]
        print(f"export/import of {kind}: {shown}{f' failed at {failed}' if failed else ''}")
    for goal, met in results["goals"].items():
        print(f"  {goal}: {'met' if met else 'MISSED'}")
