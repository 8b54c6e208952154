"""The wake word across the room: `python -m bench.wake_rooms [--quick]` -> bench/results/wake_rooms.json.

hey_jarvis (openWakeWord 0.5.1, ONNX) on the fixtures put into the simulated rooms of tests/voice/rooms.py,
with and without each lever of issue 13 part 3. Everything is made in memory from the committed dry
fixtures and from espeak-ng (Debian), with fixed seeds.

What is measured, per room condition:
- False rejects: each positive (a "hey jarvis" voice, `VOICES`) is put into the room at `SEEDS`
  talker positions and `SHIFTS_MS` offsets within the 80 ms frame grid (bench/voice.py sweeps the grid the
  same way); a run is a hit when the detector fires between the wake phrase's start and 1 s after its end.
- False accepts: the negative fixtures, the positives' speech after the wake phrase, coughs and doors in
  the same rooms (any detection counts), plus `hour_s` (an hour in the full run) of other speech and noise
  made from the fixtures: babble, pink noise, coughs, doors, sentences without the wake phrase, each in a
  room of the grid.

Every clip is preceded by 2 s of the room's noise and the clips of a condition are streamed back to back
through one model, as a microphone would hear them: 2 s flush openWakeWord's feature buffers (its
window is 1.28 s), and the noise suppressors adapt to the room's noise as they would in use.

Levers (the audio that reaches openWakeWord):
- `raw`: the microphone as it is.
- `aec`: Parley's microphone path today: voice.echo.canceller.EchoCanceller (WebRTC AEC3 + high-pass filter, noise
  suppression and gain control off), with nothing playing.
- `webrtc_ns`, `webrtc_agc`, `webrtc_all`: WebRTC's audio processing module with noise suppression, with
  automatic gain control, with both (high-pass on in all three, as in the echo canceller).
- `speex`: openWakeWord's own Speex noise suppression (`enable_speex_noise_suppression`, package
  speexdsp-ns).
On top of each, decided on the same scores: the threshold, the VAD gate (`vad_threshold`, Silero VAD as
openWakeWord runs it: the score counts only where speech was heard 320-560 ms earlier) and a per-user
verifier (openWakeWord's logistic regression on the model's audio embeddings, trained per voice on three
enrolment utterances of that voice said in the condition's room from 1 m, by Parley's own enrolment:
bench/wake_enrol.py), asked from a model score of 0.05 or 0.1, under openWakeWord's rule, which Parley
keeps (the verifier's probability replaces the score: `verifier_overrides_*`), and the other one tried
(the higher of score and verifier: `verifier_*`); and asked from 0.02 or 0.01 with the verifier's
probability needing 0.5, 0.6 or 0.7 (`verifier_overrides_ask*_t*`).

The parts: bench/wake_material.py (voices and other sounds), bench/wake_streams.py (clips in rooms, the
hour), bench/wake_scoring.py (levers, traces, decisions), bench/wake_enrol.py (each voice's enrolment).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from collections.abc import Callable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from bench.wake_enrol import enrolled_verifier as enrol
from bench.wake_material import OTHER_SENTENCES, TEST_SENTENCES, TEST_VOICES, VOICES, Voice
from bench.wake_scoring import LEVERS, Decision, available, count, false_accepts_by_kind, preprocessor, trace
from bench.wake_streams import Stream, condition_streams, hour_streams
from tests.voice.rooms import GOAL_CONDITION, ROOM_CONDITIONS, RoomCondition, to_pcm
from voice.audio.chunks import MIC_FORMAT
from voice.wake.frames import FRAME_MS, FRAME_SAMPLES
from voice.wake.verifier import WakeVerifier

RESULTS = Path(__file__).resolve().parent / "results"
enrolled_verifier = cache(enrol)
"""Each voice's enrolment in a room, made once: the room's positives and its hour use the same verifier."""
RATE = MIC_FORMAT.rate
SEEDS = (0, 1, 2)
SHIFTS_MS = (0.0, 40.0)


# Measuring.

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


# Sleeping CPU with the chosen levers.

QUIET_ROOM_DBFS = -70.0
"""A quiet room through a laptop microphone: its own noise, about -70 dBFS."""


async def sleeping_cpu(
    vad_threshold: float, quiet_gate: bool = True, seconds: float = 60.0, lever: str = "aec"
) -> dict[str, Any]:
    """CPU share (% of one core) of the wake detector, paced at the microphone's rate as it runs asleep:
    in a quiet room (noise at `QUIET_ROOM_DBFS`) and with speech around (the hour's streams), each
    `seconds` long, fed in 80 ms chunks through `lever` (the echo canceller's cost is counted too)."""
    from bench.wake_timing import TimedSource, run_stream
    from tests.voice.fixtures import split
    from voice.wake.detector import OpenWakeWordDetector

    rng = np.random.default_rng(0)
    quiet = to_pcm(rng.standard_normal(round(seconds * RATE)) * 10 ** (QUIET_ROOM_DBFS / 20))
    talk = b"".join(bytes(s.pcm) for s in hour_streams(seconds, seed=11))[: round(seconds * RATE) * 2]
    found: dict[str, Any] = {"vad_threshold": vad_threshold, "quiet_gate": quiet_gate, "lever": lever}
    for name, pcm in (("quiet_room", quiet), ("speech_around", talk)):
        clean = preprocessor(lever)
        started = time.process_time()
        heard = b"".join(clean(pcm[at : at + FRAME_SAMPLES * 2]) for at in range(0, len(pcm), FRAME_SAMPLES * 2))
        cleaning = time.process_time() - started
        async with OpenWakeWordDetector(vad_threshold=vad_threshold, quiet_gate=quiet_gate) as detector:
            events, cpu_s, wall_s = await run_stream(detector, TimedSource(split(heard, FRAME_MS), pace=True))
        found[name] = {
            "audio_s": round(len(pcm) / (2 * RATE), 1),
            "cpu_share_percent": round(100 * (cpu_s + cleaning) / wall_s, 2),
            "of_which_echo_canceller_percent": round(100 * cleaning / wall_s, 2),
            "wakes": len(events),
        }
    return found


def report(results: dict[str, Any]) -> None:
    """A summary: misses (of the positives) and false accepts per condition, at the default and the
    lowest thresholds and with an enrolled verifier; the hour; the CPU."""
    print(f"Wake word across the room: {results['model']}, {len(results['voices'])} voices")
    columns = ("t0.5_vad0", "t0.5_vad0.5", "t0.2_vad0.5", "t0.1_vad0.5", "verifier_overrides_ask0.1_vad0")
    print(f"  {'condition':22} {'lever':10} " + " ".join(f"{c:>24}" for c in columns) + "   (missed/positives, false)")
    for condition, by_lever in results["conditions"].items():
        for lever, row in by_lever.items():
            cells = [
                f"{row[c]['missed']}/{row[c]['positives']} ({100 * row[c]['missed'] / row[c]['positives']:.0f} %), "
                f"{row[c]['false_accepts']}"
                if c in row
                else "-"
                for c in columns
            ]
            print(f"  {condition:22} {lever:10} " + " ".join(f"{cell:>24}" for cell in cells))
    hour = results.get("hour") or {}
    if hour:
        print(f"  hour of other speech and noise ({hour['seconds']} s, {hour['lever']}); false wakes by kind:")
        for name, kinds in hour.items():
            if isinstance(kinds, dict):
                print(f"    {name:26} " + ", ".join(f"{kind} {n}" for kind, n in sorted(kinds.items())))
    for row in results.get("sleeping_cpu", []):
        print(
            f"  sleeping CPU (vad {row['vad_threshold']}, quiet gate {row['quiet_gate']}): quiet room "
            f"{row['quiet_room']['cpu_share_percent']} %, speech around {row['speech_around']['cpu_share_percent']} %"
        )


async def measure_all(quick: bool = False) -> dict[str, Any]:
    """`measure` (the goal room only, one seed and 5 minutes of other speech when `quick`), then the
    sleeping CPU share with and without the quiet gate and the VAD gate."""
    if quick:
        found = await measure(conditions=(GOAL_CONDITION,), levers=("raw", "aec"), seeds=(0,), hour_s=300.0)
    else:
        found = await measure()
    found["sleeping_cpu"] = [await sleeping_cpu(vad, gate) for vad in (0.0, 0.5) for gate in (False, True)]
    return found


# The goal room, tuning part and test part (issue 23 part 7).

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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="the goal room only, one seed, 5 minutes of other speech")
    parser.add_argument(
        "--goal", action="store_true", help="the goal room only (aec, three seeds, the hour), tuning and test parts"
    )
    parser.add_argument("--hour-s", type=float, default=3600.0, help="seconds of other speech per part (--goal)")
    parser.add_argument("--seeds", type=int, nargs="+", default=list(SEEDS), help="talker positions (--goal)")
    parser.add_argument("--part", choices=sorted(PARTS), help="with --goal: measure one part only (its JSON)")
    parser.add_argument("--combine", type=Path, nargs=2, metavar="PART_JSON", help="with --goal: two --part JSONs")
    parser.add_argument("--out", type=Path)
    arguments = parser.parse_args()
    if arguments.goal and arguments.part:
        part = measure_part(arguments.part, "aec", arguments.seeds, arguments.hour_s, print)
        out = arguments.out or RESULTS / f"wake_rooms_goal_{arguments.part}.json"
        out.write_text(json.dumps({arguments.part: part}, indent=1) + "\n", encoding="utf-8")
        return
    if arguments.goal and arguments.combine:
        parts = {k: v for path in arguments.combine for k, v in json.loads(path.read_text(encoding="utf-8")).items()}
        results = goal_results(parts, "aec", arguments.seeds, arguments.hour_s)
    elif arguments.goal:
        results = asyncio.run(measure_goal(seeds=arguments.seeds, hour_s=arguments.hour_s))
    else:
        results = asyncio.run(measure_all(quick=arguments.quick))
    out = arguments.out or RESULTS / ("wake_rooms_goal.json" if arguments.goal else "wake_rooms.json")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (report_goal if arguments.goal else report)(results)


if __name__ == "__main__":
    main()
