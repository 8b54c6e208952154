"""Barge-in in a room: `python -m bench.voice --only barge_in`.

Parley's microphone chain (the product's echo canceller and barge-in detector) on a laptop in the simulated
rooms of tests/voice/rooms.py, run in lockstep (tests/voice/laptop_room.py), with fixed seeds:

1. Self-interruptions and self-wakes: ten minutes of Parley's answers (the speech fixtures, its own wake
   word among them) played through the laptop's speaker in each room, from a new echo canceller; what it
   leaves goes to the barge-in detector and to the wake word detector as they run in a conversation (goal:
   0 and 0). Then `FIRST_ANSWERS` first answers of `FIRST_ANSWER_S` each, each from a new canceller: the
   moments where the echo cancellers are still learning the echo path, and where the linear one starts
   to be trusted (`voice.linear_echo`).
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
"""

from __future__ import annotations

import time
from dataclasses import asdict
from typing import Any

import numpy as np

from tests.voice.fixtures import read_pcm, stream, utterances
from tests.voice.laptop_room import (
    BLOCK_MS,
    OUTPUT_LATENCY_MS,
    hear,
    parley_voice,
    sounds_at,
    speech_onset_ms,
    talker_says,
    warmed_canceller,
)
from tests.voice.rooms import GOAL_CONDITION, RoomCondition, SimulatedRoom, condition, cough, door
from voice.barge_in import BargeInConfig, SpeechOverPlaybackFactory, speech_over_playback
from voice.wake import OpenWakeWordDetector

SELF_MINUTES = 10.0
FIRST_ANSWERS = 10
"""First answers in the goal room (a third of that in the others)."""
FIRST_ANSWER_S = 30.0
WARM_S = 30.0
"""Parley's voice the canceller has heard in the room before an answer that is not the first (seconds)."""
MOMENTS = 50
"""User barge-ins in the goal room."""
OTHER_MOMENTS = 10
"""User barge-ins in each of the other rooms."""
BANGS = 20
"""Coughs and doors (half each) per room."""
ROOMS: tuple[RoomCondition, ...] = (
    GOAL_CONDITION,
    condition(1.0, 0.3, "pink", 20.0),
    condition(3.0, 0.45, "pink", 15.0),
    condition(2.0, 0.7, "pink", 15.0),
    condition(2.0, 0.45, "pink", 5.0),
)
"""Talker distance, reverberation and noise around the goal; babble is left out, being other people's speech,
which a barge-in detector is right to hear."""
USER_SAYS = ("speech_hello", "speech_hey_travis", "wake_weather", "wake_goodbye", "wake_remember", "wake_recall")
SPEAKER_BLOCK_MS = float(BLOCK_MS)
DETECTED_GOAL = 0.95
DELAY_P95_GOAL_MS = 300.0


async def self_heard(
    room: SimulatedRoom, barge_in: SpeechOverPlaybackFactory, minutes: float, first_answers: int
) -> dict[str, Any]:
    heard = await hear(room, parley_voice(60.0 * minutes, seed=room.seed), [], barge_in)
    async with OpenWakeWordDetector() as wake:
        await wake.warm_up()
        wakes = [event async for event in wake.detections(stream(heard.cleaned))]
    first = 0
    for answer in range(first_answers):
        voice = parley_voice(FIRST_ANSWER_S, seed=4000 * room.seed + answer)
        first += len((await hear(room, voice, [], barge_in)).barge_ins_ms)
    return {
        "minutes": minutes,
        "self_interruptions": len(heard.barge_ins_ms),
        "self_wakes": len(wakes),
        "first_answers": first_answers,
        "first_answer_s": FIRST_ANSWER_S,
        "first_answer_self_interruptions": first,
    }


async def barge_ins(
    room: SimulatedRoom, barge_in: SpeechOverPlaybackFactory, moments: int, warm: bool
) -> dict[str, Any]:
    rng = np.random.default_rng([room.seed, 50])
    delays: list[float] = []
    missed = early = 0
    processing: list[float] = []
    for moment in range(moments):
        pcm = read_pcm(USER_SAYS[int(rng.integers(len(USER_SAYS)))])
        at_ms = float(rng.uniform(500.0, 6000.0))
        onset_ms = at_ms + speech_onset_ms(pcm)
        ends_ms = at_ms + utterances(pcm)[-1][1]
        canceller = await warmed_canceller(room, barge_in, WARM_S, 3000 * room.seed + moment) if warm else None
        started = time.process_time()
        heard = await hear(
            room,
            parley_voice(10.0, seed=1000 * room.seed + moment),
            [talker_says(room, at_ms, pcm)],
            barge_in,
            duration_ms=ends_ms + 200.0,
            stop_at_barge_in=True,
            canceller=canceller,
        )
        processing.append(1000.0 * (time.process_time() - started) / max(1, len(heard.cleaned)))
        if not heard.barge_ins_ms:
            missed += 1
        elif heard.barge_ins_ms[0] < onset_ms:
            early += 1  # fired before the user spoke: Parley's own voice or the noise
        else:
            delays.append(heard.barge_ins_ms[0] - onset_ms)
    chunk_ms = float(np.percentile(processing, 95))
    to_silence = [delay + chunk_ms + SPEAKER_BLOCK_MS + OUTPUT_LATENCY_MS for delay in delays]
    return {
        "moments": moments,
        "noticed": len(delays),
        "missed": missed,
        "before_the_user_spoke": early,
        "detected_share": round(len(delays) / moments, 3),
        "detection_ms": _spread(delays),
        "chunk_processing_ms_p95": round(chunk_ms, 2),
        "to_silence_ms": _spread(to_silence),
        "within_300_ms_to_silence": sum(1 for delay in to_silence if delay <= 300.0),
    }


async def bangs(room: SimulatedRoom, barge_in: SpeechOverPlaybackFactory, count: int) -> dict[str, Any]:
    fired = {"warm": 0, "first_answer": 0}
    for index in range(count):
        sound = cough(1000 * room.seed + index) if index % 2 else door(1000 * room.seed + index)
        voice = parley_voice(5.0, seed=2000 * room.seed + index)
        for kind in fired:
            canceller = (
                await warmed_canceller(room, barge_in, WARM_S, 5000 * room.seed + index) if kind == "warm" else None
            )
            heard = await hear(room, voice, [sounds_at(room, 1500.0, sound)], barge_in, canceller=canceller)
            fired[kind] += len(heard.barge_ins_ms)
    return {"coughs_and_doors": count, "barge_ins": fired["warm"], "barge_ins_first_answer": fired["first_answer"]}


def _spread(values: list[float]) -> dict[str, float]:
    if not values:
        return {}
    return {
        "p50_ms": round(float(np.percentile(values, 50))),
        "p95_ms": round(float(np.percentile(values, 95))),
        "max_ms": round(max(values)),
    }


async def measure() -> dict[str, Any]:
    config = BargeInConfig()
    barge_in = speech_over_playback(config)
    rooms: dict[str, Any] = {}
    for seed, room_condition in enumerate(ROOMS, start=1):
        room = SimulatedRoom(room_condition, seed=seed)
        goal_room = room_condition == GOAL_CONDITION
        moments = MOMENTS if goal_room else OTHER_MOMENTS
        rooms[room_condition.name] = {
            "self": await self_heard(
                room,
                barge_in,
                SELF_MINUTES if goal_room else SELF_MINUTES / 5,
                FIRST_ANSWERS if goal_room else FIRST_ANSWERS // 3,
            ),
            "barge_in": await barge_ins(room, barge_in, moments, warm=True),
            "barge_in_first_answer": await barge_ins(room, barge_in, moments, warm=False),
            "bangs": await bangs(room, barge_in, BANGS),
        }
    goal = rooms[GOAL_CONDITION.name]
    to_silence = goal["barge_in"]["to_silence_ms"]
    return {
        "config": asdict(config),
        "output_latency_ms_assumed": OUTPUT_LATENCY_MS,
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
        f"{config['over_echo_db']} dB against the echo predicted; {config['min_speech_ms']:.0f} ms of speech; "
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
        f"  goals: self-interruptions {goals['self_interruptions']} and self-wakes {goals['self_wakes']} "
        f"(goal 0 and 0); detected {goals['detected_share_goal_room']:.0%} in the goal room "
        f"({'met' if goals['detected_share_met'] else 'MISSED'}, goal >= 95 %); to silence p95 "
        f"{goals['to_silence_p95_ms_goal_room']} ms ({'met' if goals['to_silence_p95_met'] else 'MISSED'}, "
        f"goal <= 300 ms)"
    )
