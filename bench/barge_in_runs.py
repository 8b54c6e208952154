"""The runs of bench/barge_in.py, recorded once: Parley's microphone chain (the product's echo canceller
and barge-in detector) on a laptop in the simulated rooms of tests/voice/rooms.py, in lockstep
(tests/voice/laptop_room.py), with fixed seeds. What each detector heard is kept window by window
(`Recorder`), and decided nothing; bench/barge_in.py replays the product's decision on it, and
bench/barge_in_sweep.py other settings. The runs can be kept in a file (`kept_or_recorded`).
"""

from __future__ import annotations

import asyncio
import pickle
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import onnxruntime

from tests.voice.fixtures import read_pcm, stream, utterances
from tests.voice.laptop_room import hear, parley_voice, sounds_at, speech_onset_ms, talker_says, warmed_canceller
from tests.voice.room_sounds import cough, door
from tests.voice.rooms import GOAL_CONDITION, RoomCondition, SimulatedRoom, condition
from voice.audio.chunks import AudioChunk
from voice.echo.barge_in import HeardWindow, SpeechOverPlayback
from voice.echo.vad import load_session
from voice.wake.detector import OpenWakeWordDetector

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


class Recorder:
    """A factory of the product's detectors (`SpeechOverPlayback`) that keep, chunk by chunk, what they
    heard (`SpeechOverPlayback.windows`) and decide nothing: the decision (`OverlapDetector`, pure) is
    replayed on what they kept, for the product's settings (`score_*`) and for others
    (bench/barge_in_sweep.py). Neither the cancellers nor the voice detectors depend on the decision, so
    the replay gives what the product would have done, chunk for chunk."""

    def __init__(self) -> None:
        self._session = load_session()
        self.last: RecordingDetector | None = None

    def __call__(self) -> SpeechOverPlayback:
        self.last = RecordingDetector(self._session)
        return self.last

    def take(self) -> Trace:
        assert self.last is not None
        trace, self.last = self.last.trace, None
        return trace


class RecordingDetector(SpeechOverPlayback):
    def __init__(self, session: onnxruntime.InferenceSession) -> None:
        super().__init__(session)
        self.trace: Trace = []

    async def heard(self, chunk: AudioChunk, playing: bool) -> bool:
        self.trace.append((chunk.end_ms, await self.windows(chunk, playing)))
        return False


Trace = list[tuple[float, list[HeardWindow]]]
"""What a detector heard: each microphone chunk's end (milliseconds) and its windows."""


@dataclass(frozen=True, slots=True)
class Moment:
    """The user speaking over the voice once."""

    trace: Trace
    onset_ms: float
    """The first sound of the user's speech at the microphone (run time, milliseconds)."""
    processing_ms: float
    """CPU time per microphone chunk of the whole chain in this run (milliseconds)."""


@dataclass(frozen=True, slots=True)
class RoomTraces:
    minutes: float
    own_voice: Trace
    self_wakes: int
    """Wakes on what AEC3 left of `own_voice`."""
    first_answers: list[Trace]
    moments: list[Moment]
    first_answer_moments: list[Moment]
    bangs: list[Trace]
    first_answer_bangs: list[Trace]


async def record_room(
    room: SimulatedRoom, recorder: Recorder, minutes: float, first_answers: int, moments: int
) -> RoomTraces:
    """Every run of the room, kept."""
    heard = await hear(room, parley_voice(60.0 * minutes, seed=room.seed), [], recorder)
    own_voice = recorder.take()
    async with OpenWakeWordDetector() as wake:
        await wake.warm_up()
        wakes = len([event async for event in wake.detections(stream(heard.cleaned))])
    firsts = []
    for answer in range(first_answers):
        await hear(room, parley_voice(FIRST_ANSWER_S, seed=4000 * room.seed + answer), [], recorder)
        firsts.append(recorder.take())
    return RoomTraces(
        minutes,
        own_voice,
        wakes,
        firsts,
        await _moments(room, recorder, moments, warm=True),
        await _moments(room, recorder, moments, warm=False),
        await _bangs(room, recorder, warm=True),
        await _bangs(room, recorder, warm=False),
    )


async def _moments(room: SimulatedRoom, recorder: Recorder, moments: int, warm: bool) -> list[Moment]:
    rng = np.random.default_rng([room.seed, 50])
    kept = []
    for moment in range(moments):
        pcm = read_pcm(USER_SAYS[int(rng.integers(len(USER_SAYS)))])
        at_ms = float(rng.uniform(500.0, 6000.0))
        ends_ms = at_ms + utterances(pcm)[-1][1]
        canceller = await warmed_canceller(room, recorder, WARM_S, 3000 * room.seed + moment) if warm else None
        started = time.process_time()
        await hear(
            room,
            parley_voice(10.0, seed=1000 * room.seed + moment),
            [talker_says(room, at_ms, pcm)],
            recorder,
            duration_ms=ends_ms + 200.0,
            canceller=canceller,
        )
        trace = recorder.take()
        processing_ms = 1000.0 * (time.process_time() - started) / max(1, len(trace))
        kept.append(Moment(trace, at_ms + speech_onset_ms(pcm), processing_ms))
    return kept


async def _bangs(room: SimulatedRoom, recorder: Recorder, warm: bool) -> list[Trace]:
    kept = []
    for index in range(BANGS):
        sound = cough(1000 * room.seed + index) if index % 2 else door(1000 * room.seed + index)
        voice = parley_voice(5.0, seed=2000 * room.seed + index)
        canceller = await warmed_canceller(room, recorder, WARM_S, 5000 * room.seed + index) if warm else None
        await hear(room, voice, [sounds_at(room, 1500.0, sound)], recorder, canceller=canceller)
        kept.append(recorder.take())
    return kept


async def record() -> dict[str, RoomTraces]:
    """Every room's runs (about N minutes on 2 cores)."""
    recorder = Recorder()
    rooms = {}
    for seed, room_condition in enumerate(ROOMS, start=1):
        room = SimulatedRoom(room_condition, seed=seed)
        goal_room = room_condition == GOAL_CONDITION
        rooms[room_condition.name] = await record_room(
            room,
            recorder,
            SELF_MINUTES if goal_room else SELF_MINUTES / 5,
            FIRST_ANSWERS if goal_room else FIRST_ANSWERS // 3,
            MOMENTS if goal_room else OTHER_MOMENTS,
        )
    return rooms


def kept_or_recorded(traces_file: Path | None) -> dict[str, RoomTraces]:
    """The runs kept in `traces_file` when it exists (written there by this module on this machine: never
    load one from elsewhere), else recorded now, and kept there when given."""
    if traces_file is not None and traces_file.exists():
        kept: dict[str, RoomTraces] = pickle.loads(traces_file.read_bytes())
        return kept
    started = time.perf_counter()
    traces = asyncio.run(record())
    print(f"(recorded in {time.perf_counter() - started:.0f} s, load average {load_average()})", flush=True)
    if traces_file is not None:
        traces_file.write_bytes(pickle.dumps(traces))
    return traces


def load_average() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text(encoding="utf-8").split()[:3])
    except OSError:
        return "unknown"
