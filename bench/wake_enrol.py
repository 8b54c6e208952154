"""Each voice's enrolment for bench/wake_rooms.py: three utterances said in the condition's room at the
laptop (1 m), put through Parley's own enrolment (app/wake_enrolment.py), so that the bench measures the
verifier a user gets and cannot drift from it."""

from __future__ import annotations

import asyncio

from app.wake_enrolment import enrolment_runs
from bench.wake_material import Voice, enrolment_utterances
from tests.voice.fixtures import silence
from tests.voice.rooms import RoomCondition, SimulatedRoom
from voice.wake.detector import OpenWakeWordDetector
from voice.wake.verifier import Run, WakeVerifier, enrolment_examples, train_verifier

ENROLMENT_SEED = 100
"""Talker spots and noise of the enrolment: never those of the positives it is tested on (seeds 0-2)."""


def enrolment_room(condition: RoomCondition) -> SimulatedRoom:
    """Where a user of `condition`'s room enrols: the same room and noise, at the laptop (1 m), elsewhere."""
    if condition.rt60_s <= 0:
        return SimulatedRoom(condition, ENROLMENT_SEED)
    near = RoomCondition(condition.name + "_enrol", condition.rt60_s, 1.0, condition.noise, condition.snr_db)
    return SimulatedRoom(near, ENROLMENT_SEED)


def enrolled_verifier(voice: Voice, condition: RoomCondition) -> WakeVerifier | None:
    """`voice`'s verifier, enrolled in `condition`'s room as `parley wake enrol` does it. A recording in
    which the model hears no wake word is refused there ("enrol again"); here it is left out, as if said
    again no better. None when no recording is left. (Call from a thread without a running event loop.)"""
    room = enrolment_room(condition)

    async def enrol() -> WakeVerifier | None:
        runs: list[Run] = []
        backwards: list[Run] = []
        async with OpenWakeWordDetector("hey_jarvis") as detector:
            for pcm in enrolment_utterances(voice):
                try:
                    found, reversed_ = await enrolment_runs(detector, room.microphone(silence(1000.0) + pcm))
                except ValueError:
                    continue
                runs += found
                backwards += reversed_
        return train_verifier(detector.model_name, *enrolment_examples(runs, backwards)) if runs else None

    return asyncio.run(enrol())
