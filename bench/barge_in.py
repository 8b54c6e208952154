"""Barge-in in a room: `python -m bench.barge_in [--out FILE] [--traces FILE]` (also `python -m bench.voice
--only barge_in`).

Parley's microphone chain (the product's echo canceller and barge-in detector) on a laptop in the simulated
rooms of tests/voice/rooms.py, run in lockstep (tests/voice/laptop_room.py), with fixed seeds:

1. Self-interruptions and self-wakes: ten minutes of Parley's answers (the speech fixtures, its own wake
   word among them) played through the laptop's speaker in each room, from a new echo canceller; what it
   leaves goes to the barge-in detector and to the wake word detector as they run in a conversation (goal:
   0 and 0). Then `FIRST_ANSWERS` first answers of `FIRST_ANSWER_S` each, each from a new canceller: the
   moments where the echo cancellers are still learning the echo path, and where the linear one starts
   to be trusted (`voice.echo.linear_canceller`).
2. Barge-in: the user speaks over an answer at `MOMENTS` random moments (a random speech fixture, from the
   room's talker spot), the canceller having heard `WARM_S` of Parley's voice in the room before (it lives
   as long as the voice loop: this is every answer after Parley's first half minute); and again at the
   same moments of a first answer, from a new canceller (reported, not the goal). Share noticed before
   the utterance ends (goal >= 95 %), and the delay from the
   first sound of the user's speech at the microphone to the speaker's silence (goal p95 <= 300 ms): the
   detection (audio time, in 80 ms chunks) plus the processing of a chunk (p95, measured here) plus one
   speaker block (20 ms: the next callback plays silence) plus the sound card's output latency (30 ms
   assumed). Which side of `turnComplete` a moment falls does not change what the detector hears, so
   the moments are not split by it; the session's handling of both sides is tested in
   tests/voice/test_session.py.
3. Coughs and doors over an answer, from a warmed canceller and from a new one (goal: no barge-in).

Each run is recorded once (bench/barge_in_runs.py: what the product's detector heard, window by window),
and the product's decision replayed on it (`fired_ms`); bench/barge_in_sweep.py replays other settings on the
same runs. `--traces FILE` keeps the runs (about 10 minutes of recording on 2 loaded cores) for that.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from dataclasses import asdict
from pathlib import Path
from typing import Any

import numpy as np

from bench.barge_in_runs import (
    FIRST_ANSWER_S,
    WARM_S,
    Moment,
    RoomTraces,
    Trace,
    kept_or_recorded,
    load_average,
    record,
)
from tests.voice.laptop_room import BLOCK_MS, OUTPUT_LATENCY_MS
from tests.voice.rooms import GOAL_CONDITION
from voice.echo.barge_in import BargeInConfig, OverlapDetector

SPEAKER_BLOCK_MS = float(BLOCK_MS)
RESULTS = Path(__file__).resolve().parent / "results"
DETECTED_GOAL = 0.95
DELAY_P95_GOAL_MS = 300.0


def fired_ms(trace: Trace, config: BargeInConfig) -> list[float]:
    """The ends of the chunks in which a detector with `config` says the user spoke over the voice."""
    detector = OverlapDetector(config)
    fired = []
    for end_ms, windows in trace:
        if any([detector.push(window) for window in windows]):
            fired.append(end_ms)
    return fired


def score_self(traces: RoomTraces, config: BargeInConfig) -> dict[str, Any]:
    return {
        "minutes": traces.minutes,
        "self_interruptions": len(fired_ms(traces.own_voice, config)),
        "self_wakes": traces.self_wakes,
        "first_answers": len(traces.first_answers),
        "first_answer_s": FIRST_ANSWER_S,
        "first_answer_self_interruptions": sum(len(fired_ms(trace, config)) for trace in traces.first_answers),
    }


def score_moments(moments: list[Moment], config: BargeInConfig) -> dict[str, Any]:
    delays: list[float] = []
    missed = early = 0
    for moment in moments:
        fired = fired_ms(moment.trace, config)
        if not fired:
            missed += 1
        elif fired[0] < moment.onset_ms:
            early += 1  # fired before the user spoke: Parley's own voice or the noise
        else:
            delays.append(fired[0] - moment.onset_ms)
    chunk_ms = float(np.percentile([moment.processing_ms for moment in moments], 95))
    to_silence = [delay + chunk_ms + SPEAKER_BLOCK_MS + OUTPUT_LATENCY_MS for delay in delays]
    return {
        "moments": len(moments),
        "noticed": len(delays),
        "missed": missed,
        "before_the_user_spoke": early,
        "detected_share": round(len(delays) / len(moments), 3),
        "detection_ms": _spread(delays),
        "chunk_processing_ms_p95": round(chunk_ms, 2),
        "to_silence_ms": _spread(to_silence),
        "within_300_ms_to_silence": sum(1 for delay in to_silence if delay <= 300.0),
    }


def score_bangs(traces: RoomTraces, config: BargeInConfig) -> dict[str, Any]:
    return {
        "coughs_and_doors": len(traces.bangs),
        "barge_ins": sum(len(fired_ms(trace, config)) for trace in traces.bangs),
        "barge_ins_first_answer": sum(len(fired_ms(trace, config)) for trace in traces.first_answer_bangs),
    }


def score_room(traces: RoomTraces, config: BargeInConfig) -> dict[str, Any]:
    return {
        "self": score_self(traces, config),
        "barge_in": score_moments(traces.moments, config),
        "barge_in_first_answer": score_moments(traces.first_answer_moments, config),
        "bangs": score_bangs(traces, config),
    }


async def measure(config: BargeInConfig | None = None, traces: dict[str, RoomTraces] | None = None) -> dict[str, Any]:
    """The product's figures (`config`: its defaults), from `traces` or runs recorded now."""
    config = config or BargeInConfig()
    traces = traces or await record()
    return summary(config, {name: score_room(room, config) for name, room in traces.items()})


def _spread(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "p50_ms": round(float(np.percentile(values, 50))),
        "p95_ms": round(float(np.percentile(values, 95))),
        "max_ms": round(max(values)),
    }


def summary(config: BargeInConfig, rooms: dict[str, Any]) -> dict[str, Any]:
    goal = rooms[GOAL_CONDITION.name]
    to_silence = goal["barge_in"]["to_silence_ms"]
    return {
        "config": asdict(config),
        "output_latency_ms_assumed": OUTPUT_LATENCY_MS,
        "load_average": load_average(),
        "warm_s": WARM_S,
        "rooms": rooms,
        "goals": {
            "self_interruptions": sum(
                r["self"]["self_interruptions"] + r["self"]["first_answer_self_interruptions"] for r in rooms.values()
            ),
            "self_wakes": sum(r["self"]["self_wakes"] for r in rooms.values()),
            "bang_barge_ins": sum(
                r["bangs"]["barge_ins"] + r["bangs"]["barge_ins_first_answer"] for r in rooms.values()
            ),
            "detected_share_goal_room": goal["barge_in"]["detected_share"],
            "detected_share_met": goal["barge_in"]["detected_share"] >= DETECTED_GOAL,
            "to_silence_p95_ms_goal_room": to_silence.get("p95_ms"),
            "to_silence_p95_met": bool(to_silence) and to_silence["p95_ms"] <= DELAY_P95_GOAL_MS,
        },
    }


def report(results: dict[str, Any]) -> None:
    config = results["config"]
    print(
        f"Barge-in (AEC3's output: threshold {config['threshold']}, floor {config['min_level_dbfs']} dBFS; the "
        f"linear canceller's: {config['linear_threshold']}, {config['linear_min_level_dbfs']} dBFS and "
        f"{config['over_echo_db']} dB against the echo predicted; {config['min_speech_ms']:.0f} ms of speech, "
        f"voiced to {config['min_voicing']}; armed after {config['armed_after_ms']:.0f} ms of Parley's voice; "
        f"answers after {results['warm_s']:g} s of Parley's voice, and first answers):"
    )
    for name, room in results["rooms"].items():
        own, bang = room["self"], room["bangs"]
        print(
            f"  {name}: {own['minutes']:g} min of Parley's voice: {own['self_interruptions']} self-interruptions, "
            f"{own['self_wakes']} self-wakes; {own['first_answers']} first answers: "
            f"{own['first_answer_self_interruptions']} self-interruptions; coughs and doors: "
            f"{bang['barge_ins']}/{bang['coughs_and_doors']} stopped the voice "
            f"({bang['barge_ins_first_answer']} in a first answer)"
        )
        for label, user in (("later answers", room["barge_in"]), ("first answer", room["barge_in_first_answer"])):
            silence = user["to_silence_ms"]
            print(
                f"    user over the voice, {label}: {user['noticed']}/{user['moments']} noticed "
                f"({user['before_the_user_spoke']} too early), to silence p50 {silence.get('p50_ms')} ms "
                f"p95 {silence.get('p95_ms')} ms ({user['within_300_ms_to_silence']} within 300 ms)"
            )
    goals = results["goals"]
    print(
        f"  load average {results['load_average']} (the room runs in lockstep: load moves only the chunk's "
        "processing time)"
    )
    print(
        f"  goals: self-interruptions {goals['self_interruptions']} and self-wakes {goals['self_wakes']} "
        f"(goal 0 and 0); detected {goals['detected_share_goal_room']:.0%} in the goal room "
        f"({'met' if goals['detected_share_met'] else 'MISSED'}, goal >= 95 %); to silence p95 "
        f"{goals['to_silence_p95_ms_goal_room']} ms ({'met' if goals['to_silence_p95_met'] else 'MISSED'}, "
        f"goal <= 300 ms)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=RESULTS / "barge_in.json")
    parser.add_argument("--traces", type=Path, help="keep the runs here, or take them from here when it exists")
    arguments = parser.parse_args()
    results = asyncio.run(measure(traces=kept_or_recorded(arguments.traces)))
    arguments.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    report(results)


if __name__ == "__main__":
    main()
