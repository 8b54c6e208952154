"""A "stop" said over a ringing timer's own sound, for `bench.tools`: how often the spotter hears it, how
often the ring's own sound alone stops it, and how long after the end of "stop" the ring falls silent.

The room is tests/voice/laptop_room.py's (the laptop's speaker 5 cm from its microphone, a talker 2 m away,
the goal condition), one per seed; "stop" (espeak-ng) is said at a few moments of one round (the 140 ms
chime, then "Your pasta timer is up.", 1.76 s in all), with a fresh canceller (a ring soon after Parley
starts) and with one that has heard 15 s of Parley's voice (every later ring). The spotter hears the echo-
cancelled microphone as the ringer hands it over (`voice.offline.spotter`). False stops: the round heard
alone, and one saying "Your stop watch timer is up." (the worst case), listened to as the ringer does (for
the stop words that the ring does not say itself).

Two parts, each 4 rooms x 4 moments (16 "stop"s) and 8 rings alone per canceller:

- `tuning` (seeds 0-3; "stop" at 100, 700, 1300 and 1900 ms into the round: over the chime, the words'
  start, middle, and just after them): what `voice.offline.spotter`'s rules were chosen on
  (`MIN_LOG_PROBABILITY`, where speech is looked for and what is read); it also keeps the log probability
  of every stop word Whisper wrote, said or made up, which that threshold was placed between;
- `test` (seeds 4-7; at 400, 1000, 1600 and 2200 ms): run after the choice, not tuned on.

Stop latency, from the end of "stop" (its last sound at the talker) to:

- `decided`: the spotter saying it was heard, on a clock that runs as the microphone would (each chunk
  read no earlier than its end) plus the wall time Whisper took for each read (Silero's ~1 ms per chunk
  left out): Whisper base on one thread, on its 10 s window, so it grows with the machine's load;
- `silent`: the ring's sound ending for good: stopped mid-round, the round is withdrawn from the speaker
  (`app.timers.ringing`), so `decided` plus one speaker block and the sound card's latency; stopped after
  the round, `decided` (the next round never comes).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.voice_latency import summarise
from tests.voice.fixtures import utterances
from tests.voice.laptop_room import BLOCK_MS, OUTPUT_LATENCY_MS, hear, talker_says, warmed_canceller
from tests.voice.offline.said import said
from tests.voice.rooms import GOAL_CONDITION, SimulatedRoom
from voice.audio.chunks import MODEL_VOICE_FORMAT, AudioChunk
from voice.audio.earcon import earcon
from voice.echo.barge_in import SpeechOverPlaybackFactory, speech_over_playback
from voice.offline.heard import Heard
from voice.offline.phrases import matching
from voice.offline.speech import EspeakSynthesizer
from voice.offline.spotter import PhraseSpotter, Transcribe, spotters_whisper

STOP = ("stop", "enough", "quiet", "shut up")
LINES = ("Your pasta timer is up.", "Your stop watch timer is up.")
"""A round's words, and the worst case for false stops."""
TAIL_MS = 1_500.0
"""The microphone is read this long after the last sound of a run: the spotter's utterance ends there."""


@dataclass(frozen=True, slots=True)
class Part:
    seeds: tuple[int, ...]
    said_at_ms: tuple[float, ...]
    """When "stop" starts, into the round (milliseconds)."""


ROLES = {
    "tuning": "the spotter's rules were chosen on this part",
    "test": "run once the rules were chosen, not tuned on",
}
PARTS = {
    "tuning": Part(seeds=(0, 1, 2, 3), said_at_ms=(100.0, 700.0, 1_300.0, 1_900.0)),
    "test": Part(seeds=(4, 5, 6, 7), said_at_ms=(400.0, 1_000.0, 1_600.0, 2_200.0)),
}


@dataclass
class Timed:
    """The spotter's Whisper, timed, and what it wrote: the clock `decided` is read on."""

    transcribe: Transcribe
    now_ms: float = 0.0
    words: list[Heard] = field(default_factory=list)

    async def __call__(self, pcm: bytes, prompt: str, language: str) -> Heard:
        started = time.perf_counter()
        heard = await self.transcribe(pcm, prompt, language)
        self.now_ms += 1000.0 * (time.perf_counter() - started)
        self.words.append(heard)
        return heard

    async def read(self, chunks: Iterable[AudioChunk]) -> AsyncIterator[AudioChunk]:
        """`chunks` as a microphone hands them over: each once it has ended."""
        self.now_ms = 0.0
        for chunk in chunks:
            self.now_ms = max(self.now_ms, chunk.end_ms)
            yield chunk


@dataclass
class Tally:
    heard: int = 0
    said: int = 0
    false_stops: int = 0
    rings: int = 0
    decided_ms: list[float] = field(default_factory=list)
    silent_ms: list[float] = field(default_factory=list)
    said_log_probabilities: list[float] = field(default_factory=list)
    """Of every utterance in which Whisper wrote a stop word while one was said."""
    made_up_log_probabilities: list[float] = field(default_factory=list)
    """Of every utterance in which Whisper wrote a stop word over the ring alone."""

    def summary(self, log_probabilities: bool) -> dict[str, Any]:
        summary: dict[str, Any] = {
            "heard": self.heard,
            "said": self.said,
            "false_stops": self.false_stops,
            "rings": self.rings,
            "decided": summarise(self.decided_ms) if self.decided_ms else None,
            "silent": summarise(self.silent_ms) if self.silent_ms else None,
        }
        if log_probabilities:
            summary["said_log_probabilities"] = sorted(round(p, 3) for p in self.said_log_probabilities)
            summary["made_up_log_probabilities"] = sorted(round(p, 3) for p in self.made_up_log_probabilities)
        return summary


def silent_ms(decided_ms: float, round_ms: float) -> float:
    """When the ring's sound ends for good at the microphone, stopped at `decided_ms` (milliseconds into the
    round): the round under way is withdrawn from the speaker at once (`app.timers.ringing`), its next block
    of sound is silence, and what was in the sound card plays out; after the round, it had already ended."""
    sounding_until_ms = round_ms + OUTPUT_LATENCY_MS
    return decided_ms + BLOCK_MS + OUTPUT_LATENCY_MS if decided_ms < sounding_until_ms else decided_ms


def unsaid(words: Iterable[str], text: str) -> list[str]:
    return [w for w in words if matching(text, [w]) is None]


def _stop_words_written(timed: Timed, words: Sequence[str]) -> list[float]:
    return [heard.log_probability for heard in timed.words if matching(heard.text, words) is not None]


async def _part(
    part: Part, warmed: bool, spotter: PhraseSpotter, timed: Timed, barge_in: SpeechOverPlaybackFactory
) -> Tally:
    rounds = [earcon().pcm + await EspeakSynthesizer().synthesize(line) for line in LINES]
    round_ms = MODEL_VOICE_FORMAT.duration_ms(len(rounds[0]))
    speech = await said("stop")
    speech_ms = utterances(speech)[-1][1]
    tally = Tally()
    for seed in part.seeds:
        room = SimulatedRoom(GOAL_CONDITION, seed=seed)
        for at_ms in part.said_at_ms:
            canceller = await warmed_canceller(room, barge_in, 15.0, seed) if warmed else None
            end_ms = max(round_ms, at_ms + speech_ms) + TAIL_MS
            run = await hear(
                room, rounds[0], [talker_says(room, at_ms, speech)], barge_in, canceller=canceller, duration_ms=end_ms
            )
            timed.words.clear()
            spotted = await spotter.spot(timed.read(run.cleaned), STOP, "en")
            tally.said += 1
            tally.said_log_probabilities += _stop_words_written(timed, STOP)
            if spotted is not None and spotted.end_ms > at_ms:
                tally.heard += 1
                stop_end_ms = at_ms + speech_ms
                tally.decided_ms.append(timed.now_ms - stop_end_ms)
                tally.silent_ms.append(silent_ms(timed.now_ms, round_ms) - stop_end_ms)
        for sound, line in zip(rounds, LINES, strict=True):
            canceller = await warmed_canceller(room, barge_in, 15.0, seed) if warmed else None
            alone = await hear(room, sound, [], barge_in, canceller=canceller, duration_ms=round_ms + TAIL_MS)
            words = unsaid(STOP, line)
            timed.words.clear()
            tally.rings += 1
            tally.false_stops += await spotter.spot(timed.read(alone.cleaned), words, "en") is not None
            tally.made_up_log_probabilities += _stop_words_written(timed, words)
    return tally


async def timer_stop_over_the_ring(transcribe: Transcribe, parts: Sequence[str] = tuple(PARTS)) -> dict[str, Any]:
    """Each of `parts`, with a fresh and a warmed canceller, through the spotter on `transcribe`."""
    timed = Timed(transcribe)
    spotter = PhraseSpotter.sharing(timed)
    barge_in = speech_over_playback()
    results: dict[str, Any] = {}
    for name in parts:
        part = PARTS[name]
        results[name] = {"role": ROLES[name], "seeds": list(part.seeds), "said_at_ms": list(part.said_at_ms)}
        for warmed in (False, True):
            tally = await _part(part, warmed, spotter, timed, barge_in)
            results[name]["warmed_canceller" if warmed else "fresh_canceller"] = tally.summary(name == "tuning")
    return results


async def stop_over_the_ring() -> dict[str, Any]:
    """The measurement with the Whisper `app.timers` loads (from the model cache, on one thread)."""
    from app.config.paths import model_cache

    return await timer_stop_over_the_ring(await asyncio.to_thread(spotters_whisper, model_cache()))
