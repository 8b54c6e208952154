"""What `bench.wake_rooms` measures in each room condition: every decision tried (thresholds, the VAD gate, each
voice's enrolled verifier under both rules) on the positives and negatives streamed through one lever, and
the false accepts over the hour of other speech and noise."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from functools import cache
from typing import Any

from bench.wake_enrol import enrolled_verifier as enrol
from bench.wake_material import OTHER_SENTENCES, VOICES, Voice
from bench.wake_scoring import LEVERS, Decision, available, count, false_accepts_by_kind, trace
from bench.wake_streams import Stream, condition_streams, hour_streams
from tests.voice.rooms import GOAL_CONDITION, ROOM_CONDITIONS, RoomCondition
from voice.audio.chunks import MIC_FORMAT
from voice.wake.verifier import WakeVerifier

enrolled_verifier = cache(enrol)
"""Each voice's enrolment in a room, made once: the room's positives and its hour use the same verifier."""
RATE = MIC_FORMAT.rate
SEEDS = (0, 1, 2)
SHIFTS_MS = (0.0, 40.0)
THRESHOLDS = (0.5, 0.3, 0.2, 0.15, 0.1, 0.05)
VAD_THRESHOLDS = (0.0, 0.5)
VERIFIER_ASK_AT = (0.05, 0.1)
"""openWakeWord's `custom_verifier_threshold` values tried (the verifier's own threshold stays 0.5)."""
LOW_ASK_AT = (0.02, 0.01)
"""Lower scores at which to ask the verifier: the room's wakes the model scores under 0.05 (the trace keeps
windows from `CANDIDATE_FLOOR`, 0.01, up)."""
VERIFIER_THRESHOLDS = (0.5, 0.6, 0.7)
"""The verifier's probability at which a frame wakes, when asked from lower scores."""


def decisions() -> dict[str, Decision]:
    return {f"t{t:g}_vad{v:g}": Decision(t, v) for t in THRESHOLDS for v in VAD_THRESHOLDS}


def verifier_decisions(verifier: WakeVerifier | None) -> dict[str, Decision]:
    """Parley's rule (the verifier's probability replaces the score) and the other one (the higher of the
    two counts), asked from `VERIFIER_ASK_AT`; and Parley's rule asked from lower scores
    (`LOW_ASK_AT`) with a higher bar for the verifier's probability (`VERIFIER_THRESHOLDS`)."""
    found = {
        f"verifier{'_overrides' if overrides else ''}_ask{ask:g}_vad{vad:g}": Decision(
            0.5, vad, verifier, ask, overrides
        )
        for ask in VERIFIER_ASK_AT
        for vad in VAD_THRESHOLDS
        for overrides in (False, True)
    }
    return found | {
        f"verifier_overrides_ask{ask:g}_t{threshold:g}": Decision(threshold, 0.0, verifier, ask, True)
        for ask in (*VERIFIER_ASK_AT, *LOW_ASK_AT)
        for threshold in VERIFIER_THRESHOLDS
    }


def tally(rows: list[tuple[int, int, int]]) -> dict[str, int]:
    return {
        "missed": sum(r[0] for r in rows),
        "positives": sum(r[1] for r in rows),
        "false_accepts": sum(r[2] for r in rows),
    }


def measure_condition(
    condition: RoomCondition,
    lever: str,
    seeds: Sequence[int],
    shifts: Sequence[float],
    verifier: bool,
    *,
    voices: Sequence[Voice] = VOICES,
) -> dict[str, Any]:
    """Misses and false accepts of every decision (and, with `verifier`, of each voice's enrolled
    verifier on its own positives and on all the negatives) in one condition through one lever."""
    positives, negatives = condition_streams(condition, voices, seeds, shifts)
    heard_pos, heard_neg = trace(bytes(positives.pcm), lever), trace(bytes(negatives.pcm), lever)
    results: dict[str, Any] = {
        name: tally([count(positives, heard_pos, d), count(negatives, heard_neg, d)]) for name, d in decisions().items()
    }
    if verifier:
        rows: dict[str, list[tuple[int, int, int]]] = {}
        for voice in voices:
            mine = Stream(positives.pcm, [s for s in positives.segments if s.label.startswith(voice.name + " seed")])
            for name, decision in verifier_decisions(enrolled_verifier(voice, condition)).items():
                rows.setdefault(name, []).extend(
                    [count(mine, heard_pos, decision), count(negatives, heard_neg, decision)]
                )
        results |= {name: tally(r) for name, r in rows.items()}
        results["verifier_note"] = f"negatives' false accepts summed over the {len(voices)} voices' verifiers"
    audio_s = (len(positives.pcm) + len(negatives.pcm)) / (2 * RATE)
    results["cpu_share_percent"] = round(100 * (heard_pos.cpu_s + heard_neg.cpu_s) / audio_s, 2)
    return results


def measure_hour(
    lever: str,
    seconds: float,
    verifier_condition: RoomCondition | None,
    *,
    voices: Sequence[Voice] = VOICES,
    texts: Sequence[str] = OTHER_SENTENCES,
    seed: int = 7,
) -> dict[str, Any]:
    """False accepts of every decision over `seconds` of other speech and noise (`texts` said by `voices`), by
    kind; with `verifier_condition`, also of each voice's verifier enrolled in that condition's room (summed)."""
    verifiers = {v.name: enrolled_verifier(v, verifier_condition) for v in voices} if verifier_condition else {}
    found: dict[str, dict[str, int]] = {}
    heard_s = 0.0
    for stream in hour_streams(seconds, seed, voices, texts):
        heard = trace(bytes(stream.pcm), lever)
        heard_s += len(stream.pcm) / (2 * RATE)
        chosen = dict(decisions())
        for voice, verifier in verifiers.items():
            chosen |= {f"{name}[{voice}]": d for name, d in verifier_decisions(verifier).items()}
        for name, decision in chosen.items():
            key = name.split("[")[0]
            for kind, hits in false_accepts_by_kind(stream, heard, decision).items():
                found.setdefault(key, {}).setdefault(kind, 0)
                found[key][kind] += hits
    return {"lever": lever, "seconds": round(heard_s)} | found


async def measure(
    *,
    conditions: Sequence[RoomCondition] = ROOM_CONDITIONS,
    lever_conditions: Sequence[RoomCondition] = (GOAL_CONDITION,),
    levers: Sequence[str] = LEVERS,
    main_lever: str = "aec",
    seeds: Sequence[int] = SEEDS,
    shifts: Sequence[float] = SHIFTS_MS,
    hour_s: float = 3600.0,
    log: Callable[[str], None] = print,
) -> dict[str, Any]:
    """False rejects and false accepts (JSON-able): every condition through `main_lever` (Parley's
    microphone path) with every decision and the verifier; `lever_conditions` through every lever; the
    hour of other speech through `main_lever`. Scoring runs on a worker thread."""

    def run() -> dict[str, Any]:
        started = time.perf_counter()
        per_condition: dict[str, Any] = {}
        for condition in conditions:
            chosen = available(levers) if condition in lever_conditions else [main_lever]
            per_condition[condition.name] = {}
            for lever in chosen:
                result = measure_condition(condition, lever, seeds, shifts, verifier=lever == main_lever)
                per_condition[condition.name][lever] = result
                log(
                    f"{condition.name:20} {lever:10} missed at t0.5 {result['t0.5_vad0']['missed']}"
                    f"/{result['t0.5_vad0']['positives']}, t0.15 {result['t0.15_vad0']['missed']}, t0.1 "
                    f"{result['t0.1_vad0']['missed']}; {time.perf_counter() - started:.0f} s"
                )
        hour = measure_hour(main_lever, hour_s, GOAL_CONDITION) if hour_s > 0 else {}
        return {
            "model": "hey_jarvis (openWakeWord 0.5.1, onnx)",
            "voices": [v.name for v in VOICES],
            "seeds": list(seeds),
            "shifts_ms": list(shifts),
            "conditions": per_condition,
            "hour": hour,
        }

    return await asyncio.to_thread(run)
