"""Each voice's enrolment for bench/wake_rooms.py: three utterances said in the condition's room at the
laptop (1 m), recorded and trained by the first-start guide's own enrolment (app/wake_enrolment.py), so
that the bench measures the verifier a user gets and cannot drift from it."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

from app.config.settings import Settings
from app.wake_enrolment import RECORD_SECONDS, enrol, load_verifier, record_enrolment
from bench.wake_material import Voice, enrolment_utterances
from tests.voice.fixtures import silence, split
from tests.voice.rooms import RoomCondition, SimulatedRoom
from voice.audio.chunks import AudioSource
from voice.audio.synthetic import SyntheticSource
from voice.errors import WakeModelError
from voice.wake.verifier import WakeVerifier

ENROLMENT_SEED = 100
"""Talker spots and noise of the enrolment: never those of the positives it is tested on (seeds 0-2)."""


def enrolment_room(condition: RoomCondition) -> SimulatedRoom:
    """Where a user of `condition`'s room enrols: the same room and noise, at the laptop (1 m), elsewhere."""
    if condition.rt60_s <= 0:
        return SimulatedRoom(condition, ENROLMENT_SEED)
    near = RoomCondition(condition.name + "_enrol", condition.rt60_s, 1.0, condition.noise, condition.snr_db)
    return SimulatedRoom(near, ENROLMENT_SEED)


def enrolled_verifier(voice: Voice, condition: RoomCondition) -> WakeVerifier | None:
    """`voice`'s verifier, enrolled in `condition`'s room as the first-start guide (and `parley wake enrol`)
    does it: three recordings of `RECORD_SECONDS` from a microphone, each said a second after its prompt
    (`record_enrolment`), trained and saved (`enrol`), and read back as the next wake detector reads it
    (`load_verifier`). None when the enrolment is refused (a recording in which the model hears no wake word:
    the guide asks to enrol again). (Call from a thread without a running event loop.)"""
    room = enrolment_room(condition)
    takes = iter(enrolment_utterances(voice))

    def microphone() -> AudioSource:
        # The room goes on after the words: the recording stops at RECORD_SECONDS, as the guide's does.
        heard = room.microphone(silence(300.0) + next(takes) + silence(RECORD_SECONDS * 1000.0))
        return SyntheticSource(split(heard))

    async def enrol_as_the_guide_does() -> WakeVerifier | None:
        with tempfile.TemporaryDirectory() as folder:
            settings = Settings(data_dir=Path(folder), config_file=Path(folder) / "config.toml")
            recordings = await record_enrolment(microphone, settings.wake_word, lambda _prompt: None)
            try:
                await enrol(settings, recordings)
            except WakeModelError:
                return None
            return load_verifier(settings)

    return asyncio.run(enrol_as_the_guide_does())
