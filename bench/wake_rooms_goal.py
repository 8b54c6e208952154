"""`bench.wake_rooms --goal`: the goal room (issue 23 part 7), its tuning part and its test part; the decision
chosen on the tuning part and the shipped one, each judged on both parts."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.wake_material import OTHER_SENTENCES, TEST_SENTENCES, TEST_VOICES, VOICES
from bench.wake_rooms_measure import SEEDS, SHIFTS_MS, measure_condition, measure_hour
from tests.voice.rooms import GOAL_CONDITION

SHIPPED = "verifier_overrides_ask0.1_vad0"
"""Parley's rule as it ships: the verifier asked from a score of 0.1, its probability replacing the score,
waking at 0.5, no VAD gate (`OpenWakeWordDetector`'s defaults with an enrolment)."""
PARTS = {
    "tuning": (VOICES, OTHER_SENTENCES, 7),
    "test": (TEST_VOICES, TEST_SENTENCES, 8),
}
"""Each part: the voices that say the wake word (and enrol), the sentences of its hour, the hour's seed."""


def measure_part(
    part: str, lever: str, seeds: Sequence[int], hour_s: float, log: Callable[[str], None]
) -> dict[str, Any]:
    """One part in the goal room: every decision on its voices (each voice's verifier enrolled by the
    guide's path) and over its own hour of other speech."""
    voices, texts, hour_seed = PARTS[part]
    started = time.perf_counter()
    room = measure_condition(GOAL_CONDITION, lever, seeds, SHIFTS_MS, verifier=True, voices=voices)
    log(f"{part}: the room in {time.perf_counter() - started:.0f} s")
    hour = measure_hour(lever, hour_s, GOAL_CONDITION, voices=voices, texts=texts, seed=hour_seed) if hour_s > 0 else {}
    log(f"{part}: the hour in {time.perf_counter() - started:.0f} s")
    return {"voices": [v.name for v in voices], "hour_seed": hour_seed, "room": room, "hour": hour}


def per_user(part: dict[str, Any], decision: str, count: int) -> float:
    """False accepts per user: a verifier decision's are summed over every voice's own verifier."""
    return count / len(part["voices"]) if decision.startswith("verifier") else float(count)


def outcome(part: dict[str, Any], decision: str) -> dict[str, Any]:
    """A decision on one part: wakes missed of the positives, false accepts in the room and in the hour
    (summed over the voices' verifiers for a verifier decision, and per user)."""
    row, hour = part["room"][decision], part["hour"].get(decision, {})
    false = row["false_accepts"] + sum(hour.values())
    return {
        "missed": row["missed"],
        "positives": row["positives"],
        "false_rejects_percent": round(100 * row["missed"] / row["positives"], 1),
        "false_accepts_room": row["false_accepts"],
        "false_accepts_hour": sum(hour.values()),
        "false_accepts_per_user": round(per_user(part, decision, false), 2),
    }


def choose(part: dict[str, Any]) -> str:
    """The decision with the fewest false accepts per user (room and hour), then the fewest misses (ties: the
    first in `decisions`, then `verifier_decisions`, order). The goal wants none; when no decision has none,
    this is the one nearest to it."""
    names: list[str] = [name for name, row in part["room"].items() if isinstance(row, dict) and "missed" in row]
    return min(
        names,
        key=lambda name: (
            outcome(part, name)["false_accepts_per_user"],
            int(part["room"][name]["missed"]),
        ),
    )


async def measure_goal(
    lever: str = "aec", seeds: Sequence[int] = SEEDS, hour_s: float = 3600.0, log: Callable[[str], None] = print
) -> dict[str, Any]:
    """The goal room through `lever`: the tuning part, the decision chosen on it, and the test part beside it;
    the goal (issue 24): false rejects <= 15 % at 2 m with no false accept in the hour, on the test part."""

    def run() -> dict[str, Any]:
        return goal_results(
            {name: measure_part(name, lever, seeds, hour_s, log) for name in PARTS}, lever, seeds, hour_s
        )

    return await asyncio.to_thread(run)


def goal_results(parts: dict[str, Any], lever: str, seeds: Sequence[int], hour_s: float) -> dict[str, Any]:
    """The goal room's JSON from its parts (measured here, or by `--part` in two processes: `--combine`)."""
    chosen = choose(parts["tuning"])
    return {
        "model": "hey_jarvis (openWakeWord 0.5.1, onnx)",
        "condition": GOAL_CONDITION.name,
        "lever": lever,
        "seeds": list(seeds),
        "shifts_ms": list(SHIFTS_MS),
        "hour_s": hour_s,
        "enrolment": "the first-start guide's own (bench/wake_enrol.py), one per voice, at 1 m in the same room",
        "chosen_on_tuning": chosen,
        "decisions": {
            name: {part: outcome(parts[part], name) for part in PARTS} for name in dict.fromkeys((chosen, SHIPPED))
        },
        "parts": parts,
    }


def report_goal(results: dict[str, Any]) -> None:
    print(f"Wake word in the goal room ({results['condition']}, {results['lever']}), tuning and test parts:")
    print(f"  chosen on the tuning part: {results['chosen_on_tuning']}; shipped: {SHIPPED}")
    for name, by_part in results["decisions"].items():
        for part, row in by_part.items():
            print(
                f"  {name:32} {part:7} missed {row['missed']}/{row['positives']} ({row['false_rejects_percent']} %),"
                f" false accepts: room {row['false_accepts_room']}, hour {row['false_accepts_hour']}"
                f" ({row['false_accepts_per_user']} per user)"
            )
