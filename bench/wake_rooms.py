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

The parts: bench/wake_rooms_measure.py (decisions in a condition, the hour), bench/wake_rooms_goal.py
(`--goal`: the goal room's tuning and test parts), bench/wake_material.py (voices and other sounds),
bench/wake_streams.py (clips in rooms, the hour), bench/wake_scoring.py (levers, traces, decisions),
bench/wake_enrol.py (each voice's enrolment).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import time
from pathlib import Path
from typing import Any

import numpy as np

from bench.wake_rooms_goal import PARTS, goal_results, measure_goal, measure_part, report_goal
from bench.wake_rooms_measure import RATE, SEEDS, measure
from bench.wake_scoring import preprocessor
from bench.wake_streams import hour_streams
from tests.voice.room_sounds import to_pcm
from tests.voice.rooms import GOAL_CONDITION
from voice.wake.frames import FRAME_MS, FRAME_SAMPLES

RESULTS = Path(__file__).resolve().parent / "results"


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
