"""Settings of the barge-in decision weighed on the same runs:
`python -m bench.barge_in_sweep [--traces FILE] [--out FILE]`.

The runs of bench/barge_in.py are recorded once (what each detector heard, window by window; kept in
`--traces`, default under the system's temporary folder, and reused while it exists), then the decision
(`OverlapDetector`, pure) is replayed on them for each setting in `SETTINGS`. One line per setting: the
goal room's barge-ins, every room's self-interruptions, coughs and doors, and the first answers.
"""

from __future__ import annotations

import argparse
import json
import tempfile
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench.barge_in import score_room, summary
from bench.barge_in_runs import kept_or_recorded
from tests.voice.rooms import GOAL_CONDITION
from voice.echo.barge_in import BargeInConfig

BASE = BargeInConfig()
SETTINGS: dict[str, BargeInConfig] = {
    "no voicing check": replace(BASE, min_voicing=0.0),
    **{f"voicing >= {v}": replace(BASE, min_voicing=v) for v in (0.35, 0.4, 0.45, 0.5, 0.55, 0.6)},
    **{
        f"voicing >= {v}, armed after {ms:.0f} ms": replace(BASE, min_voicing=v, armed_after_ms=ms)
        for v in (0.0, 0.45)
        for ms in (0.0, 500.0, 1000.0, 1500.0, 2000.0, 2500.0)
    },
    **{
        f"voicing >= 0.45, armed after {ms:.0f} ms, AEC3 threshold {t} floor {f:.0f} dBFS": replace(
            BASE, min_voicing=0.45, armed_after_ms=ms, threshold=t, min_level_dbfs=f
        )
        for ms in (1000.0, 2000.0)
        for t in (0.2, 0.3)
        for f in (-45.0, -40.0)
    },
}


def line(name: str, rooms: dict[str, Any]) -> str:
    goal = rooms[GOAL_CONDITION.name]
    own = sum(r["self"]["self_interruptions"] + r["self"]["first_answer_self_interruptions"] for r in rooms.values())
    bangs = sum(r["bangs"]["barge_ins"] + r["bangs"]["barge_ins_first_answer"] for r in rooms.values())
    goal_bangs = goal["bangs"]["barge_ins"] + goal["bangs"]["barge_ins_first_answer"]
    first_bangs = sum(r["bangs"]["barge_ins_first_answer"] for r in rooms.values())
    total = sum(2 * r["bangs"]["coughs_and_doors"] for r in rooms.values())

    def users(key: str) -> str:
        parts = []
        for room in rooms.values():
            user = room[key]
            parts.append(f"{user['noticed']}/{user['moments']} p95 {user['to_silence_ms'].get('p95_ms')}")
        return "; ".join(parts)

    silence = goal["barge_in"]["to_silence_ms"]
    first = goal["barge_in_first_answer"]
    return (
        f"{name}: goal room {goal['barge_in']['noticed']}/{goal['barge_in']['moments']} "
        f"p50 {silence.get('p50_ms')} p95 {silence.get('p95_ms')} ms; first answer "
        f"{first['noticed']}/{first['moments']} p50 {first['to_silence_ms'].get('p50_ms')} "
        f"p95 {first['to_silence_ms'].get('p95_ms')} ms; self-interruptions {own}; coughs and doors "
        f"{bangs}/{total} (goal room {goal_bangs}; in a first answer {first_bangs})"
        f"\n    later answers by room: {users('barge_in')}"
        f"\n    first answers by room: {users('barge_in_first_answer')}"
    )


def compact(figures: dict[str, Any]) -> dict[str, Any]:
    """The figures of one setting, without what every setting shares."""

    def users(user: dict[str, Any]) -> dict[str, Any]:
        return {"noticed": user["noticed"], "moments": user["moments"], **user["to_silence_ms"]}

    return {
        "changed": {key: value for key, value in figures["config"].items() if getattr(BASE, key) != value},
        "goals": figures["goals"],
        "rooms": {
            name: {
                "self_interruptions": room["self"]["self_interruptions"],
                "first_answer_self_interruptions": room["self"]["first_answer_self_interruptions"],
                "coughs_and_doors": room["bangs"],
                "later_answers_to_silence": users(room["barge_in"]),
                "first_answer_to_silence": users(room["barge_in_first_answer"]),
            }
            for name, room in figures["rooms"].items()
        },
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--traces", type=Path, default=Path(tempfile.gettempdir()) / "parley_barge_in_traces.pickle")
    parser.add_argument("--out", type=Path, help="the figures of every setting, as JSON")
    arguments = parser.parse_args()
    traces = kept_or_recorded(arguments.traces)
    results = {}
    for name, config in SETTINGS.items():
        rooms = {room: score_room(kept, config) for room, kept in traces.items()}
        print(line(name, rooms), flush=True)
        results[name] = compact(summary(config, rooms))
    if arguments.out is not None:
        arguments.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
